/**
 * A dense run: every query text embedded with the set's model (batched), then the k most similar
 * documents of the collection — or of the query's own candidates (exact) when it has them.
 * Queries with blank text retrieve nothing.
 */
import type { VectorMetric } from '../../core/retrieval/exactKnn';
import type { CandidateDoc, DenseIndex } from '../dense/denseIndex';
import type { Embedder } from '../dense/embedDocuments';
import { yieldToEventLoop, type RunProgress, type RunRankings } from './runTypes';

export interface DenseRunQuery {
  queryId: string;
  text: string;
  candidates: readonly CandidateDoc[] | null;
}

export interface DenseRunOptions extends RunProgress {
  index: DenseIndex;
  embedder: Embedder;
  queries: readonly DenseRunQuery[];
  k: number;
  metric: VectorMetric;
  batchSize?: number;
}

export async function denseRun(o: DenseRunOptions): Promise<RunRankings> {
  const batchSize = o.batchSize ?? 16;
  const out: RunRankings = new Map();
  const queries = o.queries.filter((q) => q.text.trim() !== '');
  const total = o.queries.length;
  let done = total - queries.length;
  o.onProgress?.(done, total);
  for (let start = 0; start < queries.length; start += batchSize) {
    o.signal?.throwIfAborted();
    const batch = queries.slice(start, start + batchSize);
    const { vectors } = await o.embedder.embed({ texts: batch.map((q) => q.text) }, o.signal);
    if (vectors.length !== batch.length) throw new Error(`the model returned ${vectors.length} vectors for ${batch.length} queries`);
    batch.forEach((q, i) => {
      const hits = o.index.search(vectors[i]!, o.k, o.metric, q.candidates ?? undefined);
      if (hits.length > 0) out.set(q.queryId, hits.map((h) => ({ id: h.id, score: h.score })));
    });
    done += batch.length;
    o.onProgress?.(done, total);
    await yieldToEventLoop();
  }
  return out;
}
