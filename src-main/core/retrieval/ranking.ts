/** Ranked lists of scored ids, and the one deterministic order every retriever here uses. */

export interface ScoredId {
  id: string;
  score: number;
}

/**
 * Score descending; equal scores by id ascending (code-unit order), so a ranking never depends on
 * input order. (trec_eval breaks ties the other way — docno descending — but every writer here goes
 * through `formatRun`, which keeps the intended order; see io/trec/run.ts.) NaN sorts last.
 */
export function compareScoredDesc(a: ScoredId, b: ScoredId): number {
  const an = Number.isNaN(a.score);
  const bn = Number.isNaN(b.score);
  if (an !== bn) return an ? 1 : -1;
  if (a.score > b.score) return -1;
  if (a.score < b.score) return 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The best `k` items (all when k is undefined), in `compareScoredDesc` order. */
export function topK<T extends ScoredId>(items: readonly T[], k?: number): T[] {
  if (k !== undefined && (!Number.isInteger(k) || k < 0)) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  const sorted = [...items].sort(compareScoredDesc);
  return k === undefined ? sorted : sorted.slice(0, k);
}
