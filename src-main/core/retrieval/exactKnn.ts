/**
 * Exact (brute-force) nearest neighbours, in double precision: the reference that sqlite-vec's
 * KNN is checked against, and the scorer for small sets (a query's candidates) and for dot-product
 * retrieval, which vec0 has no distance metric for.
 */
import { topK, type ScoredId } from './ranking';

export type VectorMetric = 'cosine' | 'dot';

export type Vector = ArrayLike<number>;

export function dotProduct(a: Vector, b: Vector): number {
  if (a.length !== b.length) throw new RangeError(`vectors of different dimensions (${a.length} and ${b.length})`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Cosine similarity; 0 when either vector is all zeros (no direction). */
export function cosineSimilarity(a: Vector, b: Vector): number {
  const ab = dotProduct(a, b);
  const na = Math.sqrt(dotProduct(a, a));
  const nb = Math.sqrt(dotProduct(b, b));
  return na === 0 || nb === 0 ? 0 : ab / (na * nb);
}

export function similarity(a: Vector, b: Vector, metric: VectorMetric): number {
  if (metric === 'cosine') return cosineSimilarity(a, b);
  if (metric === 'dot') return dotProduct(a, b);
  throw new RangeError(`unknown vector metric '${String(metric)}'`);
}

export interface IdVector {
  id: string;
  vector: Vector;
}

/**
 * The k items most similar to `query` (score = cosine similarity or dot product, higher is
 * better), ties by id ascending. sqlite-vec's cosine *distance* is 1 − this similarity.
 */
export function exactKnn(query: Vector, items: readonly IdVector[], k: number, metric: VectorMetric = 'cosine'): ScoredId[] {
  return topK(
    items.map((it) => ({ id: it.id, score: similarity(query, it.vector, metric) })),
    k,
  );
}
