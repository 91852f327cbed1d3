/**
 * Issue 15 item 5: how long an import of 100k documents into a new collection holds the
 * workspace's write lock — the time every other writer (a second import, a retrieval run, an
 * experiment run, in this process or another) has to wait. Baseline: the import before the short
 * publish (test/bench/baselines/collectionsImportV0.ts: documents inserted row by row inside the
 * transaction, each INSERT firing the full-text trigger in its own statement savepoint, and the
 * content hash computed inside it). Candidate: services/collectionsImport.ts (the documents in
 * ranges, each one INSERT … SELECT from the TEMP staging tables in its own short transaction, the
 * hashes computed from the staging outside the lock, then a short publish that renames the
 * collection). Lock hold = BEGIN IMMEDIATE to COMMIT (withWriteLock's onHeld); the first row is the
 * longest single hold, what another writer may have to wait. Each
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
import { importIntoCollection, RANGE_DOCUMENTS, type ImportInput } from '../../src-main/services/collectionsImport';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace } from '../../src-main/store/workspace';
import { writeCorpus } from '../stress/support';
import { importIntoCollectionV0 } from './baselines/collectionsImportV0';
import { median, type Alternation, alternationRow, type BenchContext, type BenchRow } from './harness';

type ImportFn = (repo: CollectionsRepo, target: { name: string }, input: ImportInput, opts: { onPublished: (longestMs: number, totalMs?: number) => void }) => Promise<ImportReport>;

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
    const one = async (fn: ImportFn): Promise<{ held: number; heldTotal: number; total: number }> => {
      const path = join(dir, `w${++n}.fairground`);
      const ws = openWorkspace(path);
      let held = Number.NaN;
      let heldTotal = Number.NaN;
      try {
        const t0 = performance.now();
        const report = await fn(new CollectionsRepo(ws.db), { name: 'big' }, { kind: 'corpus', sources: [fileSource(corpus)] }, {
          onPublished: (longest, all) => {
            held = longest;
            heldTotal = all ?? longest;
          },
        });
        const total = performance.now() - t0;
        if (report.documents.added !== docs) throw new Error(`imported ${report.documents.added} of ${docs} documents`);
        hashes.add(report.contentHash);
        return { held, heldTotal, total };
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
    const heldTotal: [number[], number[]] = [[], []];
    const total: [number[], number[]] = [[], []];
    for (let p = 0; p < pairs; p++) {
      const order: [ImportFn, 0 | 1][] = p % 2 === 0 ? [[before, 0], [after, 1]] : [[after, 1], [before, 0]];
      for (const [fn, side] of order) {
        const r = await one(fn);
        held[side].push(r.held);
        heldTotal[side].push(r.heldTotal);
        total[side].push(r.total);
      }
      ctx.log(
        `pair ${p + 1}: longest lock hold ${held[0][p]!.toFixed(0)} ms before, ${held[1][p]!.toFixed(0)} ms after (all holds ${heldTotal[1][p]!.toFixed(0)} ms); whole import ${total[0][p]!.toFixed(0)} / ${total[1][p]!.toFixed(0)} ms`,
      );
    }
    if (hashes.size !== 1) throw new Error(`the two imports disagree on the content hash: ${[...hashes].join(', ')}`);
    const lock = summarize(...held);
    const lockTotal = summarize(...heldTotal);
    const wall = summarize(...total);
    const what = `${docs.toLocaleString('en-US')} documents into a new collection`;
    return [
      alternationRow(
        {
          suite: 'import',
          name: `longest write-lock hold of an import of ${what} (what another writer may wait)`,
          metric: 'ms',
          baselineLabel: 'one transaction, row by row, hash inside',
          candidateLabel: `ranges of ≥${RANGE_DOCUMENTS.toLocaleString('en-US')} documents by INSERT … SELECT, hashes outside the lock`,
          better: 'lower',
          note: `BEGIN IMMEDIATE to COMMIT, each repetition on a fresh workspace on disk; a range's time is mostly FTS5 indexing its text (same content hash both ways)`,
        },
        lock,
      ),
      alternationRow(
        {
          suite: 'import',
          name: `write lock held by an import of ${what}, all holds together`,
          metric: 'ms',
          baselineLabel: 'one transaction',
          candidateLabel: 'ranges and the publish',
          better: 'lower',
          note: 'the same runs as the row above',
        },
        lockTotal,
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
