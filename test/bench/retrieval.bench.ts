/**
 * Retrieval latency as the collection grows (issue 10): FTS5 BM25 search (the SearchPanel's query:
 * rank, then snippets for the top 10) and sqlite-vec KNN (cosine, 384-d float32, k = 10) on
 * synthetic collections of 10k and 100k documents. Each growth ratio is latency at 100k / latency
 * at 10k, measured in alternating repetitions with both workspaces open: the growth factor (10 =
 * linear in the collection size). Issue 18: at 100k, searchFts against FTS5's own
 * `ORDER BY rank LIMIT 10` statement with snippets (the peer) and against the previous full-sort
 * statement (test/bench/baselines/ftsSearchV0.ts).
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
import { queryTerms, toMatchExpression } from '../../src-main/retrieval/fts5/matchExpression';
import { markedToHtml, SQL_MARK_CLOSE, SQL_MARK_OPEN } from '../../src-main/retrieval/fts5/snippetHtml';
import { createVectorTable, insertVectors, knnCosine } from '../../src-main/retrieval/dense/vectorTable';
import { CollectionsService } from '../../src-main/services/collectionsService';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';
import { searchTopV0 } from './baselines/ftsSearchV0';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

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
  documents: number;
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
  return { ws, collectionId, documents: docs, buildMs };
}

function randomVector(rng: Rng): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rng.nextNormal();
  return v;
}

/** One pass: every call once; `alternate` divides by the number of calls. */
function pass(calls: (() => unknown)[]): () => void {
  return () => {
    for (const c of calls) c();
  };
}

/**
 * FTS5's own statement, the peer of issue 18: `ORDER BY rank LIMIT k` over documents_fts with
 * highlight() and snippet() in the same statement (no join, no collection filter, no tie order).
 */
function fts5Own(b: Built, k: number): (match: string) => unknown[] {
  const stmt = b.ws.db.prepare(
    `SELECT rowid, highlight(documents_fts, 0, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}) AS title,
            snippet(documents_fts, 1, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}, '…', 24) AS snippet, rank
       FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rank LIMIT ${k}`,
  );
  return (match) => stmt.all(match);
}

/** The previous searchFts: the full-sort statement (baselines/ftsSearchV0.ts) plus the same snippets. */
function searchV0(b: Built, k: number): (match: string) => unknown[] {
  const marks = b.ws.db.prepare(
    `SELECT highlight(documents_fts, 0, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}) AS title, snippet(documents_fts, 1, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}, '…', 24) AS snippet
       FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?`,
  );
  return (match) =>
    searchTopV0(b.ws.db, b.collectionId, match, k).map((h) => {
      const m = marks.get(match, BigInt(h.documentId)) as { title: string | null; snippet: string | null } | undefined;
      return { ...h, titleHtml: markedToHtml(m?.title ?? h.title), snippetHtml: markedToHtml(m?.snippet ?? '') };
    });
}

export async function retrievalBench(ctx: BenchContext): Promise<BenchRow[]> {
  const small = Math.max(1000, Math.round(10_000 * ctx.scale));
  const big = small * 10;
  const words = vocabulary();
  const qrng = createRng(99);
  const qword = zipfSampler(words.length, qrng);
  // Queries of 2-4 words drawn like the text, so some hit common words and match much.
  const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 2 + qrng.nextInt(3) }, () => words[qword()]).join(' '));
  const matches = queries.map((q) => toMatchExpression(queryTerms(q)) as string);
  const vectors = Array.from({ length: QUERIES }, () => randomVector(qrng));
  const dir = benchDir();
  const rows: BenchRow[] = [];
  const label = (n: number) => `${n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`} docs`;
  const built: Built[] = [];
  try {
    // Both collections stay open so that the two sizes are measured in alternating repetitions.
    for (const n of [small, big]) built.push(await build(dir, n, words, ctx.log));
    const [s, l] = built as [Built, Built];
    const search = (b: Built) => queries.map((query) => () => searchFts(b.ws.db, { collectionId: b.collectionId, query, k: K }));
    const knn = (b: Built) => vectors.map((v) => () => knnCosine(b.ws.db, 1, v, K));
    for (const b of built) {
      const hits = queries.reduce((sum, query) => sum + searchFts(b.ws.db, { collectionId: b.collectionId, query, k: K }).hits.length, 0);
      ctx.log(`${label(b.documents)}: ${hits} hits for ${QUERIES} queries`);
    }
    const ftsGrowth = await alternate(pass(search(s)), pass(search(l)), { pairs: 7, per: QUERIES });
    ctx.log(`FTS5 search: ${ftsGrowth.baselineMs.toFixed(2)} → ${ftsGrowth.candidateMs.toFixed(2)} ms/query`);
    const knnGrowth = await alternate(pass(knn(s)), pass(knn(l)), { pairs: 7, per: QUERIES });
    ctx.log(`KNN: ${knnGrowth.baselineMs.toFixed(2)} → ${knnGrowth.candidateMs.toFixed(2)} ms/query`);
    const own = fts5Own(l, K);
    const v0 = searchV0(l, K);
    const vsOwn = await alternate(pass(matches.map((m) => () => own(m))), pass(search(l)), { pairs: 7, per: QUERIES });
    ctx.log(`100k: FTS5's own statement ${vsOwn.baselineMs.toFixed(2)} ms/query, searchFts ${vsOwn.candidateMs.toFixed(2)}`);
    const vsV0 = await alternate(pass(matches.map((m) => () => v0(m))), pass(search(l)), { pairs: 7, per: QUERIES });
    ctx.log(`100k: previous full sort ${vsV0.baselineMs.toFixed(2)} ms/query, searchFts ${vsV0.candidateMs.toFixed(2)}`);
    rows.push(
      alternationRow(
        {
          suite: 'retrieval',
          name: `FTS5 BM25 search, top ${K} with snippets (${QUERIES} Zipf queries)`,
          metric: 'ms per query',
          better: 'lower',
          baselineLabel: label(small),
          candidateLabel: label(big),
          note: 'ratio = growth factor for 10x the documents (10 = linear)',
        },
        ftsGrowth,
      ),
      alternationRow(
        {
          suite: 'retrieval',
          name: `sqlite-vec KNN, cosine, ${DIMS}-d float32, k=${K}`,
          metric: 'ms per query',
          better: 'lower',
          baselineLabel: label(small),
          candidateLabel: label(big),
          note: 'ratio = growth factor for 10x the vectors (brute force: 10 = linear)',
        },
        knnGrowth,
      ),
      alternationRow(
        {
          suite: 'retrieval',
          name: `FTS5 search at ${label(big)}: searchFts vs FTS5's own ORDER BY rank LIMIT ${K} with snippets`,
          metric: 'ms per query',
          better: 'lower',
          baselineLabel: "FTS5's own statement",
          candidateLabel: 'searchFts',
          note: 'searchFts also joins documents (doc id, title), filters the collection and orders ties by doc id',
        },
        vsOwn,
      ),
      alternationRow(
        {
          suite: 'retrieval',
          name: `FTS5 search at ${label(big)}: ORDER BY rank + ties vs the previous full sort`,
          metric: 'ms per query',
          better: 'lower',
          baselineLabel: 'previous (score, doc_id) sort',
          candidateLabel: 'searchFts',
          note: 'identical hits (test/retrieval/ftsRankOrder.test.ts)',
        },
        vsV0,
      ),
    );
  } finally {
    for (const b of built) b.ws.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
