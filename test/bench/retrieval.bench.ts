/**
 * Retrieval latency as the collection grows (issue 10): FTS5 BM25 search (the SearchPanel's query:
 * rank, then snippets for the top 10) and sqlite-vec KNN (cosine, 384-d float32, k = 10) on
 * synthetic collections of 10k and 100k documents. Each ratio is latency at 100k / latency at
 * 10k, measured in the same run: the growth factor (10 = linear in the collection size).
 *
 * `--scale` multiplies both sizes: `--scale 10` measures 100k → 1M (several minutes, about 2 GB
 * of workspace: not part of the default run), `--scale 0.1` is a quick smoke run.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRng, type Rng } from '../../src-main/core/random/rng';
import { searchFts } from '../../src-main/retrieval/fts5/ftsSearch';
import { createVectorTable, insertVectors, knnCosine } from '../../src-main/retrieval/dense/vectorTable';
import { CollectionsService } from '../../src-main/services/collectionsService';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';
import { row, type BenchContext, type BenchRow } from './harness';

const DIMS = 384;
const QUERIES = 40;
const K = 10;

/** Zipf-distributed words from a 20k vocabulary, as in natural text: common words match much. */
function vocabulary(): string[] {
  const syl = ['ka', 'ri', 'mo', 'ten', 'sol', 'var', 'du', 'pe', 'lin', 'gor', 'fa', 'ni', 'bel', 'tro', 'cu', 'zen', 'ab', 'os', 'um', 'et'];
  return Array.from({ length: 20_000 }, (_, i) => syl[i % 20]! + syl[Math.floor(i / 20) % 20]! + syl[Math.floor(i / 400) % 20]! + (i >= 8000 ? syl[Math.floor(i / 8000)]! : ''));
}

function zipfSampler(n: number, rng: Rng): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
  return () => {
    const u = rng.nextFloat() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function benchDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return mkdtempSync('/dev/shm/fg-bench-retrieval-');
  } catch {
    return mkdtempSync(join(tmpdir(), 'fg-bench-retrieval-'));
  }
}

interface Built {
  ws: Workspace;
  collectionId: number;
  buildMs: number;
}

async function build(dir: string, docs: number, words: string[], log: (m: string) => void): Promise<Built> {
  const t0 = performance.now();
  const ws = openWorkspace(join(dir, `w${docs}.fairground`));
  const svc = new CollectionsService(ws.db, new JobRunner(ws.db, new EventBus()));
  const rng = createRng(docs);
  const word = zipfSampler(words.length, rng);
  const lines: string[] = [];
  for (let i = 0; i < docs; i++) {
    const text = Array.from({ length: 40 + rng.nextInt(40) }, () => words[word()]).join(' ');
    lines.push(JSON.stringify({ id: `d${i}`, title: `${words[word()]} ${words[word()]}`, text }));
  }
  // In chunks: one import of a million lines would hold every line twice in memory.
  const chunk = 50_000;
  for (let start = 0; start < docs; start += chunk) {
    await svc.importContents({ collectionName: 'bench' }, 'corpus', [{ name: `part${start}.jsonl`, content: lines.slice(start, start + chunk).join('\n') }]);
  }
  const collectionId = svc.byName('bench')!.id;
  createVectorTable(ws.db, 1, DIMS);
  const ids = ws.db.prepare(`SELECT id FROM documents WHERE collection_id = ? ORDER BY id`).pluck().all(collectionId) as number[];
  const vrng = createRng(docs + 1);
  for (let start = 0; start < ids.length; start += 5000) {
    insertVectors(
      ws.db,
      1,
      ids.slice(start, start + 5000).map((documentId) => ({ documentId, vector: randomVector(vrng), textHash: '' })),
    );
  }
  const buildMs = performance.now() - t0;
  log(`built ${docs.toLocaleString('en-US')} documents and vectors in ${(buildMs / 1000).toFixed(1)} s`);
  return { ws, collectionId, buildMs };
}

function randomVector(rng: Rng): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rng.nextNormal();
  return v;
}

/** Median over `passes` of the mean per-call time of `calls`. */
function perCallMs(calls: (() => unknown)[], passes = 3): number {
  for (const c of calls.slice(0, 3)) c(); // warm the page cache and statement cache
  const means: number[] = [];
  for (let p = 0; p < passes; p++) {
    const t0 = performance.now();
    for (const c of calls) c();
    means.push((performance.now() - t0) / calls.length);
  }
  means.sort((a, b) => a - b);
  return means[Math.floor(means.length / 2)]!;
}

export async function retrievalBench(ctx: BenchContext): Promise<BenchRow[]> {
  const small = Math.max(1000, Math.round(10_000 * ctx.scale));
  const big = small * 10;
  const words = vocabulary();
  const qrng = createRng(99);
  const qword = zipfSampler(words.length, qrng);
  // Queries of 2-4 words drawn like the text, so some hit common words and match much.
  const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 2 + qrng.nextInt(3) }, () => words[qword()]).join(' '));
  const vectors = Array.from({ length: QUERIES }, () => randomVector(qrng));
  const dir = benchDir();
  const rows: BenchRow[] = [];
  try {
    const measured: Record<string, { fts: number; knn: number; hits: number }> = {};
    for (const n of [small, big]) {
      const b = await build(dir, n, words, ctx.log);
      try {
        let hits = 0;
        const fts = perCallMs(queries.map((query) => () => (hits += searchFts(b.ws.db, { collectionId: b.collectionId, query, k: K }).hits.length)));
        const knn = perCallMs(vectors.map((v) => () => knnCosine(b.ws.db, 1, v, K)));
        measured[n] = { fts, knn, hits };
        ctx.log(`${n.toLocaleString('en-US')} documents: FTS5 ${fts.toFixed(2)} ms/query, KNN ${knn.toFixed(2)} ms/query`);
      } finally {
        b.ws.close();
        rmSync(join(dir, `w${n}.fairground`), { force: true });
      }
    }
    const s = measured[small]!;
    const l = measured[big]!;
    const label = (n: number) => `${n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`} docs`;
    rows.push(
      row({
        suite: 'retrieval',
        name: `FTS5 BM25 search, top ${K} with snippets (${QUERIES} Zipf queries)`,
        metric: 'ms per query',
        better: 'lower',
        baselineLabel: label(small),
        candidateLabel: label(big),
        baseline: s.fts,
        candidate: l.fts,
        note: 'ratio = growth factor for 10x the documents (10 = linear)',
      }),
      row({
        suite: 'retrieval',
        name: `sqlite-vec KNN, cosine, ${DIMS}-d float32, k=${K}`,
        metric: 'ms per query',
        better: 'lower',
        baselineLabel: label(small),
        candidateLabel: label(big),
        baseline: s.knn,
        candidate: l.knn,
        note: 'ratio = growth factor for 10x the vectors (brute force: 10 = linear)',
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
