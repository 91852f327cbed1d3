/**
 * The demo collection shipped in resources/demo/ (format: resources/demo/README.md): made-up
 * text written for Fairground, small enough to read in full. It is imported with the ordinary
 * importers (JSONL corpus and queries, Fair-RAG utility labels with deltas, TREC qrels), so it
 * also shows what those files look like. Loading is idempotent: every step is a no-op when the
 * collection already has its content, and a deleted demo is recreated.
 */
import { join } from 'node:path';
import type { ImportReport } from '../api/contract/collections';
import type { CollectionsService, ImportFilesRequest } from './collectionsService';
import { resourcesDir } from './paths';

export const DEMO_COLLECTION_NAME = 'Fairground demo';

const DESCRIPTION =
  'Made-up demo: movie tagging with per-user profiles (LaMP-2-like, accuracy), headline generation with per-journalist profiles (ROUGE-L), ' +
  'and multi-aspect questions with sub-answers (RichRAG-style). Documents carry a provider and a group for exposure fairness. ' +
  'Utility labels and deltas are illustrative, written by hand.';

export interface DemoLoadResult {
  collectionId: number;
  /** True when something was written (first load, or the demo was incomplete). */
  changed: boolean;
  steps: ImportReport[];
}

export async function loadDemoCollection(services: { collections: CollectionsService }, dir = join(resourcesDir(), 'demo')): Promise<DemoLoadResult> {
  const target = { collectionName: DEMO_COLLECTION_NAME, description: DESCRIPTION };
  const f = (name: string) => join(dir, name);
  const run = (kind: ImportFilesRequest['kind'], files: string[], mapping?: ImportFilesRequest['mapping']) =>
    services.collections.importFiles({ ...target, kind, files, ...(mapping ? { mapping } : {}) });
  const steps = [
    await run('corpus', [f('documents.jsonl')]),
    await run('queries', [f('queries.jsonl')]),
    await run('fairrag-mapping', [f('utility_mapping.tsv'), f('utility_delta.tsv')], { generator: 'hand-written (illustrative)' }),
    await run('qrels', [f('qrels.txt')]),
  ];
  return { collectionId: steps[0]!.collectionId, changed: steps.some((s) => !s.noop), steps };
}
