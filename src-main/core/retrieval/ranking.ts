/** Ranked lists of scored ids, and the one deterministic order every retriever here uses. */
import { compareRankOrder } from '../ir/rankOrder';

export interface ScoredId {
  id: string;
  score: number;
}

/**
 * Score descending; equal scores by id descending (byte-wise): trec_eval's order, the one rank
 * order of core/ir/rankOrder.ts (issue 34 item 1), so a ranking never depends on input order and a
 * stored run, its export and its evaluation agree. NaN sorts last.
 */
export function compareScoredDesc(a: ScoredId, b: ScoredId): number {
  const an = Number.isNaN(a.score);
  const bn = Number.isNaN(b.score);
  if (an !== bn) return an ? 1 : -1;
  if (an) return compareRankOrder(0, a.id, 0, b.id);
  return compareRankOrder(a.score, a.id, b.score, b.id);
}

/** The best `k` items (all when k is undefined), in `compareScoredDesc` order. */
export function topK<T extends ScoredId>(items: readonly T[], k?: number): T[] {
  if (k !== undefined && (!Number.isInteger(k) || k < 0)) throw new RangeError(`k must be a non-negative integer, got ${k}`);
  const sorted = [...items].sort(compareScoredDesc);
  return k === undefined ? sorted : sorted.slice(0, k);
}
