/**
 * The demo collection shipped in resources/demo/ (format: resources/demo/README.md): made-up
 * text written for Fairground, small enough to read in full. It is imported with the ordinary
 * importers (JSONL corpus and queries, Fair-RAG utility labels with deltas, TREC qrels), so it
 * also shows what those files look like.
 *
 * All or nothing (issue 15 item 1): the four imports go into a loading collection named
 * `Fairground demo (loading PID-N)`, which one short transaction renames to the demo's name — a
 * process killed on the way leaves only a loading collection, which the next load deletes. A
 * demo collection that is there but incomplete (an older version killed between its four
 * transactions) is detected by its recorded source files and repaired by importing what is
 * missing (each import is idempotent). Two processes loading at once: the first rename wins, the
 * other deletes its own loading collection.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ImportReport } from '../api/contract/collections';
import type { CollectionsService, ImportFilesRequest } from './collectionsService';
import { resourcesDir } from './paths';
import { ownerGone } from './processOwner';

export const DEMO_COLLECTION_NAME = 'Fairground demo';
const LOADING_PREFIX = `${DEMO_COLLECTION_NAME} (loading `;

const DESCRIPTION =
  'Made-up demo: movie tagging with per-user profiles (LaMP-2-like, accuracy), headline generation with per-journalist profiles (ROUGE-L), ' +
  'and multi-aspect questions with sub-answers (RichRAG-style). Documents carry a provider and a group for exposure fairness. ' +
  'Utility labels and deltas are illustrative, written by hand.';

export interface DemoLoadResult {
  collectionId: number;
  /** True when something was written (first load, or the demo was incomplete). */
  changed: boolean;
  /** True when an incomplete demo collection was completed. */
  repaired: boolean;
  steps: ImportReport[];
}

interface Step {
  kind: ImportFilesRequest['kind'];
  files: string[];
  mapping?: ImportFilesRequest['mapping'];
}

function demoSteps(dir: string): Step[] {
  const f = (name: string) => join(dir, name);
  return [
    { kind: 'corpus', files: [f('documents.jsonl')] },
    { kind: 'queries', files: [f('queries.jsonl')] },
    { kind: 'fairrag-mapping', files: [f('utility_mapping.tsv'), f('utility_delta.tsv')], mapping: { generator: 'hand-written (illustrative)' } },
    { kind: 'qrels', files: [f('qrels.txt')] },
  ];
}

let loadSequence = 0;
/** Loading collections this process is filling right now. */
const inFlight = new Set<string>();

export async function loadDemoCollection(services: { collections: CollectionsService }, dir = join(resourcesDir(), 'demo')): Promise<DemoLoadResult> {
  const { collections } = services;
  const repo = collections.repo;
  const steps = demoSteps(dir);
  const run = (name: string, s: Step) => collections.importFiles({ collectionName: name, description: DESCRIPTION, kind: s.kind, files: s.files, ...(s.mapping ? { mapping: s.mapping } : {}) });

  removeAbandonedLoads(services);
  const existing = collections.byName(DEMO_COLLECTION_NAME);
  if (existing) {
    if (isComplete(existing.sources, steps)) return { collectionId: existing.id, changed: false, repaired: false, steps: [] };
    // Incomplete: import what is missing (what is there is a no-op).
    const reports: ImportReport[] = [];
    for (const s of steps) reports.push(await run(DEMO_COLLECTION_NAME, s));
    return { collectionId: existing.id, changed: reports.some((r) => !r.noop), repaired: true, steps: reports };
  }

  const loading = `${LOADING_PREFIX}${process.pid}-${++loadSequence})`;
  const reports: ImportReport[] = [];
  inFlight.add(loading);
  try {
    for (const s of steps) reports.push(await run(loading, s));
  } catch (err) {
    const partial = collections.byName(loading);
    if (partial) repo.delete(partial.id);
    throw err;
  } finally {
    inFlight.delete(loading);
  }
  const id = reports[0]!.collectionId;
  // Publish: one short transaction. Another process may have published first: then ours goes.
  const won = repo.inTransaction(() => {
    const other = repo.byName(DEMO_COLLECTION_NAME);
    if (other) {
      repo.delete(id);
      return other.id;
    }
    repo.db.prepare(`UPDATE collections SET name = ? WHERE id = ?`).run(DEMO_COLLECTION_NAME, id);
    return null;
  });
  if (won !== null) return { collectionId: won, changed: false, repaired: false, steps: [] };
  return { collectionId: id, changed: true, repaired: false, steps: reports };
}

/** Whether every demo file (by SHA-256 as imported) is among the collection's recorded sources. */
function isComplete(sources: readonly { file: string; sha256: string }[], steps: readonly Step[]): boolean {
  const names = new Set(sources.map((s) => s.file.split(/[\\/]/).pop()));
  return steps.every((s) => s.files.every((f) => names.has(f.split(/[\\/]/).pop())));
}

/** Loading collections of processes that are gone (killed mid-load) are deleted. */
function removeAbandonedLoads(services: { collections: CollectionsService }): void {
  for (const c of services.collections.repo.list()) {
    if (!c.name.startsWith(LOADING_PREFIX)) continue;
    if (inFlight.has(c.name)) continue;
    const pid = Number(/\(loading (\d+)-\d+\)$/.exec(c.name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !ownerGone({ pid, host: hostname() })) continue;
    services.collections.repo.delete(c.id);
  }
}
