/**
 * Issue 15 item 5: how long an import of 100k documents into a new collection holds the
 * workspace's write lock — the time every other writer (a second import, a retrieval run, an
 * experiment run, in this process or another) has to wait. Baseline: the import before the short
 * publish (test/bench/baselines/collectionsImportV0.ts: documents inserted row by row inside the
 * transaction, each INSERT firing the full-text trigger in its own statement savepoint, and the
 * content hash computed inside it). Candidate: services/collectionsImport.ts (one INSERT … SELECT
 * from the TEMP staging tables, the new collection's content hash computed from the staging
 * before the lock is taken). Lock hold = BEGIN IMMEDIATE to COMMIT (withWriteLock's onHeld). Each
 * repetition imports into a fresh workspace file on disk; the two sides alternate (A B, B A, …)
 * and each pair gives a ratio; the rows report medians and the range of the pair ratios. A second
 * row gives the whole import's wall time of the same runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ImportReport } from '../../src-main/api/contract/collections';
import { fileSource } from '../../src-main/io/importers/source';
import { importIntoCollection, type ImportInput, type ImportProgress } from '../../src-main/services/collectionsImport';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace } from '../../src-main/store/workspace';
import { writeCorpus } from '../stress/support';
import { importIntoCollectionV0 } from './baselines/collectionsImportV0';
import { median, type Alternation, alternationRow, type BenchContext, type BenchRow } from './harness';

type ImportFn = (repo: CollectionsRepo, target: { name: string }, input: ImportInput, opts: ImportProgress) => Promise<ImportReport>;

function summarize(b: number[], c: number[]): Alternation {
  const ratios = b.map((x, i) => c[i]! / x);
  const sorted = ratios.slice().sort((x, y) => x - y);
  return { baselineMs: median(b), candidateMs: median(c), ratio: median(ratios), low: sorted[0]!, high: sorted[sorted.length - 1]!, pairs: b.length, baselineTimes: b, candidateTimes: c };
}

export async function importLockBench(ctx: BenchContext): Promise<BenchRow[]> {
  const docs = Math.max(1000, Math.round(100_000 * ctx.scale));
  const pairs = ctx.scale >= 1 ? 5 : 3;
  // On disk (not /dev/shm): the WAL and its fsyncs are part of what a publish costs.
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-importlock-'));
  try {
    const corpus = join(dir, 'corpus.jsonl');
    writeCorpus(corpus, docs, 15);
    ctx.log(`corpus of ${docs.toLocaleString('en-US')} documents written`);
    let n = 0;
    const hashes = new Set<string>();
    const one = async (fn: ImportFn): Promise<{ held: number; total: number }> => {
      const path = join(dir, `w${++n}.fairground`);
      const ws = openWorkspace(path);
      let held = Number.NaN;
      try {
        const t0 = performance.now();
        const report = await fn(new CollectionsRepo(ws.db), { name: 'big' }, { kind: 'corpus', sources: [fileSource(corpus)] }, { onPublished: (ms) => (held = ms) });
        const total = performance.now() - t0;
        if (report.documents.added !== docs) throw new Error(`imported ${report.documents.added} of ${docs} documents`);
        hashes.add(report.contentHash);
        return { held, total };
      } finally {
        ws.close();
        for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
      }
    };
    const before: ImportFn = importIntoCollectionV0;
    const after: ImportFn = importIntoCollection;
    await one(before);
    await one(after);
    const held: [number[], number[]] = [[], []];
    const total: [number[], number[]] = [[], []];
    for (let p = 0; p < pairs; p++) {
      const order: [ImportFn, 0 | 1][] = p % 2 === 0 ? [[before, 0], [after, 1]] : [[after, 1], [before, 0]];
      for (const [fn, side] of order) {
        const r = await one(fn);
        held[side].push(r.held);
        total[side].push(r.total);
      }
      ctx.log(`pair ${p + 1}: lock held ${held[0][p]!.toFixed(0)} ms before, ${held[1][p]!.toFixed(0)} ms after`);
    }
    if (hashes.size !== 1) throw new Error(`the two imports disagree on the content hash: ${[...hashes].join(', ')}`);
    const lock = summarize(...held);
    const wall = summarize(...total);
    const what = `${docs.toLocaleString('en-US')} documents into a new collection`;
    return [
      alternationRow(
        {
          suite: 'import',
          name: `write lock held by an import of ${what}`,
          metric: 'ms',
          baselineLabel: 'row-by-row commit, hash inside',
          candidateLabel: 'INSERT … SELECT from staging, hash before the lock',
          better: 'lower',
          note: `BEGIN IMMEDIATE to COMMIT, each repetition on a fresh workspace on disk; most of what is left is FTS5 indexing the text (same content hash both ways)`,
        },
        lock,
      ),
      alternationRow(
        {
          suite: 'import',
          name: `whole import of ${what} (scan, parse, stage, publish)`,
          metric: 'ms',
          baselineLabel: 'before',
          candidateLabel: 'after',
          better: 'lower',
          note: 'the same runs as the row above',
        },
        wall,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
