/**
 * A BM25 run over all queries of a collection.
 *
 * - A query with its own candidate set (LaMP: the user's profile) is scored in memory over exactly
 *   those candidates, statistics from the candidate set (core/retrieval/bm25.ts) — what Fair-RAG
 *   does, with its BM25Okapi settings by default. Every candidate is ranked (also those scoring 0),
 *   because the Fair RAG stochastic retriever samples from the whole profile; `k` then truncates.
 * - A query without candidates is searched in the whole collection with FTS5 bm25() over a
 *   per-collection index (fts5/collectionIndex.ts): only documents matching a query term are ranked.
 */
import { buildBm25Corpus, checkBm25Params, idfTable, scoreBm25, type Bm25Params } from '../../core/retrieval/bm25';
import { topK } from '../../core/retrieval/ranking';
import { tokenize, type TokenizerOptions } from '../../core/retrieval/tokenizer';
import type { Database } from 'better-sqlite3';
import { CollectionFtsIndex } from '../fts5/collectionIndex';
import type { FieldWeights } from '../fts5/ftsSearch';
import { yieldToEventLoop, type RunProgress, type RunRankings } from './runTypes';

export interface CandidateText {
  docId: string;
  text: string;
}

export interface Bm25RunQuery {
  queryId: string;
  text: string;
  /** null: search the whole collection. */
  candidates: readonly CandidateText[] | null;
}

export interface Bm25RunOptions extends RunProgress {
  db: Database;
  collectionId: number;
  queries: readonly Bm25RunQuery[];
  k: number;
  /** FTS5 field weights (whole-collection queries). */
  weights: FieldWeights;
  /** In-memory BM25 (candidate sets). */
  candidateParams: Bm25Params;
  tokenizer: TokenizerOptions;
}

export async function bm25Run(o: Bm25RunOptions): Promise<RunRankings> {
  checkBm25Params(o.candidateParams);
  const out: RunRankings = new Map();
  let index: CollectionFtsIndex | undefined;
  try {
    for (let i = 0; i < o.queries.length; i++) {
      if (i % 16 === 0) {
        await yieldToEventLoop();
        o.signal?.throwIfAborted();
        o.onProgress?.(i, o.queries.length);
      }
      const q = o.queries[i]!;
      let ranking;
      if (q.candidates) {
        ranking = scoreCandidates(q.text, q.candidates, o.candidateParams, o.tokenizer, o.k);
      } else {
        index ??= CollectionFtsIndex.build(o.db, o.collectionId);
        ranking = index.search(q.text, o.k, o.weights).map((h) => ({ id: h.docId, score: h.score }));
      }
      if (ranking.length > 0) out.set(q.queryId, ranking);
    }
  } finally {
    index?.drop();
  }
  o.onProgress?.(o.queries.length, o.queries.length);
  return out;
}

function scoreCandidates(query: string, candidates: readonly CandidateText[], params: Bm25Params, tokenizer: TokenizerOptions, k: number) {
  const corpus = buildBm25Corpus(candidates.map((c) => tokenize(c.text, tokenizer)));
  const scores = scoreBm25(corpus, idfTable(corpus, params), tokenize(query, tokenizer), params);
  return topK(
    candidates.map((c, i) => ({ id: c.docId, score: scores[i]! })),
    k,
  );
}
