/**
 * One import, all or nothing: parse and validate every input into staging tables (streaming, with
 * progress and cancellation), then commit, checking each row against the
 * collection — same id and same content: unchanged; same id, other content: a DataError naming the
 * file and line, and nothing is written. Importing content the collection already has is a no-op
 * (reported; the content hash and the sources stay as they were).
 *
 * Stage outside the lock, publish in short transactions (issue 15 item 5): reading, validating,
 * staging and — for a new collection — the content hash happen before the write lock is taken (the
 * staging tables are TEMP tables, outside the workspace file). An import into an existing
 * collection, or a new one of up to 10,000 documents, then publishes in one transaction (documents
 * by one INSERT … SELECT, queries and judgments row by row). A bigger new collection is written in
 * ranges, each one short transaction, into a collection of its own that one last short transaction
 * renames (importInRanges). While another writer holds the lock, the import waits without blocking
 * and says who it waits for (store/workspace.ts withWriteLock), for as long as it takes,
 * cancellably.
 */
import { hostname } from 'node:os';
import type { ImportReport } from '../api/contract/collections';
import { groupThousands } from '../core/format/thousands';
import { ImportCancelledError, runImporter, type ColumnMapping, type ImportKind, type SourceStats, type TextSource } from '../io/importers/index';
import { emptyCounts, type AddCounts, type SourceEntry } from '../store/collectionTypes';
import { throwLabelDifferences, type CollectionsRepo, type LabelDifference } from '../store/collectionsRepo';
import { ImportStaging } from '../store/importStaging';
import { withWriteLock, type WriteLockOptions } from '../store/workspace';
import { ownerGone } from './processOwner';

/**
 * The collection to import into. `replaceLabels`: imported judgments replace stored labels of another
 * value (manual, LLM or earlier imports; counted in the report); without it such a label is an error
 * naming the first differences, and nothing is written.
 */
export interface ImportTarget {
  name: string;
  description?: string | undefined;
  replaceLabels?: boolean | undefined;
}

export interface ImportInput {
  kind: ImportKind;
  sources: readonly TextSource[];
  mapping?: ColumnMapping | undefined;
}

export interface ImportProgress {
  signal?: AbortSignal | undefined;
  progress?: ((done: number, total: number | null, message?: string) => void) | undefined;
  /**
   * Told how long the import held the workspace's write lock: the longest single hold (what another
   * writer may have to wait) and all holds together (benchmarks).
   */
  onPublished?: ((longestHoldMs: number, totalHoldMs: number) => void) | undefined;
}

/** A new collection of more documents than this is written in ranges, each in its own short transaction. */
export const RANGE_DOCUMENTS = 10_000;
/** …in at most this many ranges (bigger ranges beyond 80k documents). */
const MAX_RANGES = 8;
/**
 * Pause between two ranges, with the lock let go: a writer waiting for it — withWriteLock polls
 * every 100 ms, SQLite's busy handler sleeps at most 100 ms between tries — gets it in this gap.
 */
const STEP_ASIDE_MS = 110;
/** Names of collections being filled range by range: `NAME (importing PID-N)`, renamed when complete. */
const IMPORTING = / \(importing (\d+)-\d+\)$/;
let importSequence = 0;

/**
 * Import one input, or several (a corpus with its queries and qrels) into the same staging tables
 * and one commit: all of them or nothing.
 */
export async function importIntoCollection(
  repo: CollectionsRepo,
  target: ImportTarget,
  inputOrInputs: ImportInput | readonly ImportInput[],
  opts: ImportProgress = {},
): Promise<ImportReport> {
  const inputs: readonly ImportInput[] = Array.isArray(inputOrInputs) ? inputOrInputs : [inputOrInputs as ImportInput];
  let total = 0;
  const sha256 = new Map<string, string>();
  for (const s of inputs.flatMap((i) => i.sources)) {
    // Cancel reaches the scan too (a huge file used to be read to its end first; issue 15 item 4).
    const scan = await s.scan(opts.signal);
    total += scan.lines;
    sha256.set(s.name, scan.sha256);
  }
  await removeAbandonedImports(repo, opts.signal);
  opts.progress?.(0, total, 'reading');
  const staging = new ImportStaging(repo.db);
  try {
    const stats: SourceStats[] = [];
    // Lines read by the inputs before the current one (progress runs over all the files).
    let base = 0;
    for (const input of inputs) {
      let read = 0;
      stats.push(
        ...(await runImporter(input.kind, input.sources, input.mapping ?? {}, staging, {
          signal: opts.signal,
          onProgress: (n) => {
            read = n;
            opts.progress?.(Math.min(base + n, total), total, `read ${groupThousands(base + n)} of ${groupThousands(total)} lines`);
          },
        })),
      );
      if (opts.signal?.aborted) throw new ImportCancelledError();
      base += read;
    }
    if (opts.signal?.aborted) throw new ImportCancelledError();
    const resolveProfileIds = inputs.some((i) => i.kind === 'fairrag-mapping');
    // Outside the lock: what a new collection's content hash will be (a quarter of a second per
    // 100k documents that the publish no longer spends holding the lock).
    const hashIfNew = repo.byName(target.name) === undefined ? staging.contentHashAsNew(resolveProfileIds) : null;
    if (opts.signal?.aborted) throw new ImportCancelledError();
    opts.progress?.(total, total, 'writing');
    // Let the 'writing' event reach the UI before the first transaction (each one synchronous;
    // most of its time is the full-text index). While another process writes, wait for it without
    // blocking, saying so (issue 15 item 5).
    await new Promise<void>((r) => setImmediate(r));
    const holds: number[] = [];
    const lock = (what: string) => ({
      signal: opts.signal,
      what,
      checkpointAfter: true,
      onHeld: (ms: number) => holds.push(ms),
      onWait: (message: string) => opts.progress?.(total, total, message),
    });
    const documents = staging.counts().documents;
    const range = Math.max(RANGE_DOCUMENTS, Math.ceil(documents / MAX_RANGES));
    const report =
      hashIfNew !== null && documents > range
        ? await importInRanges(repo, target, staging, range, lock, opts, total, (id) => commitLoaded(repo, id, target, resolveProfileIds, stats, sha256, staging, hashIfNew))
        : await withWriteLock(repo.db, () => commit(repo, target, resolveProfileIds, stats, sha256, staging, hashIfNew), lock('import is publishing'));
    opts.onPublished?.(Math.max(...holds), holds.reduce((a, b) => a + b, 0));
    // The last message is what the job tray keeps showing.
    opts.progress?.(total, total, report.message);
    return report;
  } finally {
    staging.drop();
  }
}

/**
 * A new collection of many documents (issue 15 item 5): the documents go in range by range, each
 * range one short transaction, into a collection named `NAME (importing PID-N)` whose content hash
 * always matches its rows (computed from the staging before each range, outside the lock); between
 * ranges the lock is let go long enough for a waiting writer to take it. The last transaction adds
 * the queries and judgments and renames the collection: NAME appears complete, all at once. A
 * failed or cancelled import deletes its collection; one whose process died is deleted by the next
 * import (removeAbandonedImports).
 */
async function importInRanges(
  repo: CollectionsRepo,
  target: ImportTarget,
  staging: ImportStaging,
  range: number,
  lock: (what: string) => WriteLockOptions,
  opts: ImportProgress,
  total: number,
  publish: (loadingId: number) => ImportReport,
): Promise<ImportReport> {
  const n = staging.counts().documents;
  let loadingId: number | null = null;
  try {
    loadingId = await withWriteLock(repo.db, () => repo.create(`${target.name} (importing ${process.pid}-${++importSequence})`, target.description ?? '').id, lock('import is writing'));
    for (let after = 0; after < n; ) {
      const upTo = Math.min(n, after + range);
      const hash = staging.documentsHashUpTo(upTo);
      if (opts.signal?.aborted) throw new ImportCancelledError();
      const id: number = loadingId;
      const from = after;
      await withWriteLock(
        repo.db,
        () => {
          staging.insertDocumentRange(id, from, upTo);
          repo.setContentHash(id, hash);
        },
        lock('import is writing'),
      );
      after = upTo;
      opts.progress?.(total, total, `writing: ${groupThousands(upTo)} of ${groupThousands(n)} documents`);
      await new Promise((r) => setTimeout(r, STEP_ASIDE_MS));
    }
    const id: number = loadingId;
    const report = await withWriteLock(repo.db, () => publish(id), lock('import is publishing'));
    loadingId = null;
    return report;
  } finally {
    if (loadingId !== null) {
      const id: number = loadingId;
      // Not cancellable: what this import wrote goes, whatever stopped it.
      await withWriteLock(repo.db, () => repo.delete(id), { what: 'import is removing what it wrote' }).catch(() => undefined);
    }
  }
}

/**
 * Collections of imports whose process died while filling them (see importInRanges) are deleted:
 * at the next import, and when the app opens the workspace (appServices.ts).
 */
export async function removeAbandonedImports(repo: CollectionsRepo, signal: AbortSignal | undefined): Promise<void> {
  for (const c of repo.list()) {
    const pid = Number(IMPORTING.exec(c.name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || !ownerGone({ pid, host: hostname() })) continue;
    await withWriteLock(
      repo.db,
      () => {
        if (repo.get(c.id)?.name === c.name) repo.delete(c.id);
      },
      { signal, what: 'import is removing an interrupted import' },
    );
  }
}

/** The last transaction of importInRanges: queries and judgments, sources and hash, and the name. */
function commitLoaded(
  repo: CollectionsRepo,
  loadingId: number,
  target: ImportTarget,
  resolveProfileIds: boolean,
  stats: SourceStats[],
  sha256: ReadonlyMap<string, string>,
  staging: ImportStaging,
  hashIfNew: string,
): ImportReport {
  return repo.inTransaction(() => {
    if (repo.byName(target.name)) {
      // Another process created the collection meanwhile: this becomes an ordinary import into it.
      repo.delete(loadingId);
      return commit(repo, target, resolveProfileIds, stats, sha256, staging, null);
    }
    repo.update(loadingId, { name: target.name });
    const documents = { ...emptyCounts(), added: staging.counts().documents };
    return loadRestAndReport(repo, { id: loadingId, name: target.name, contentHash: '' }, true, documents, { resolveProfileIds, replaceLabels: target.replaceLabels }, stats, sha256, staging, hashIfNew);
  });
}

function commit(
  repo: CollectionsRepo,
  target: ImportTarget,
  resolveProfileIds: boolean,
  stats: SourceStats[],
  sha256: ReadonlyMap<string, string>,
  staging: ImportStaging,
  hashIfNew: string | null,
): ImportReport {
  return repo.inTransaction(() => {
    const existing = repo.byName(target.name);
    const collection = existing ?? repo.create(target.name, target.description ?? '');
    const documents = emptyCounts();
    staging.publishDocuments(collection.id, existing === undefined, documents);
    return loadRestAndReport(repo, collection, existing === undefined, documents, { resolveProfileIds, replaceLabels: target.replaceLabels }, stats, sha256, staging, hashIfNew);
  });
}

/**
 * The rest of an import's last transaction, once the documents are in collection `c` (`created`:
 * by this import; its `contentHash` is read only when it was not): queries and judgments, then, unless nothing was added, the sources and the
 * content hash (`hashIfNew` when a new collection took every staged row as staged), and the report.
 */
function loadRestAndReport(
  repo: CollectionsRepo,
  c: { id: number; name: string; contentHash: string },
  created: boolean,
  documents: AddCounts,
  labels: { resolveProfileIds: boolean; replaceLabels: boolean | undefined },
  stats: SourceStats[],
  sha256: ReadonlyMap<string, string>,
  staging: ImportStaging,
  hashIfNew: string | null,
): ImportReport {
  const queries = emptyCounts();
  const judgments = emptyCounts();
  for (const chunk of staging.queryChunks()) repo.addQueryTexts(c.id, chunk, queries);
  const differences: LabelDifference[] = [];
  for (const chunk of staging.judgmentChunks()) repo.addJudgmentTexts(c.id, chunk, { ...labels, differences }, judgments);
  // Labels that differ from stored manual/LLM ones: an error naming the first ones (the transaction writes nothing).
  throwLabelDifferences(differences);
  const noop = !created && documents.added + queries.added + judgments.added + judgments.replaced === 0;
  const now = new Date().toISOString();
  const files: SourceEntry[] = stats.map((s) => ({ file: s.name, kind: s.role, sha256: sha256.get(s.name) ?? '', rows: s.rows, importedAt: now }));
  let contentHash = c.contentHash;
  if (!noop) {
    repo.recordSources(c.id, files);
    // A new collection that took every staged row as staged holds exactly the staged content.
    const staged = staging.counts();
    const asStaged = created && documents.added === staged.documents && queries.added === staged.queries && judgments.added === staged.judgments;
    contentHash = asStaged && hashIfNew !== null ? repo.setContentHash(c.id, hashIfNew) : repo.refreshContentHash(c.id);
  }
  return {
    collectionId: c.id,
    collectionName: c.name,
    created,
    noop,
    documents,
    queries,
    judgments,
    files,
    contentHash,
    previousContentHash: created ? null : c.contentHash,
    message: summarize(c.name, noop, documents, queries, judgments),
  };
}

function summarize(name: string, noop: boolean, d: AddCounts, q: AddCounts, j: AddCounts): string {
  if (noop) return `no change: '${name}' already has all ${d.unchanged + q.unchanged + j.unchanged + j.kept} rows of these files`;
  const parts: string[] = [];
  const part = (c: AddCounts, one: string, many: string) => {
    if (c.added) parts.push(`${groupThousands(c.added)} ${c.added === 1 ? one : many}`);
  };
  part(d, 'document', 'documents');
  part(q, 'query', 'queries');
  part(j, 'judgment', 'judgments');
  let msg = parts.length ? `added ${parts.join(', ')} to '${name}'` : `nothing added to '${name}'`;
  const same = d.unchanged + q.unchanged + j.unchanged;
  if (same) msg += ` (${groupThousands(same)} already there)`;
  if (j.replaced) msg += `; replaced ${groupThousands(j.replaced)} stored label${j.replaced === 1 ? '' : 's'} that differed`;
  if (j.kept) msg += `; kept ${j.kept} manual/LLM labels (same values)`;
  if (j.unknownDocuments) msg += `; ${j.unknownDocuments} judgments name documents not in the collection`;
  if (j.unknownQueries) msg += `; ${j.unknownQueries} judgments name queries not in the collection`;
  return msg;
}
