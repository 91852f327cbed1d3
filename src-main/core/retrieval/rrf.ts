/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): score(d) = Σ_lists 1/(k + rank_l(d)),
 * a list in which d does not appear contributing 0.
 *
 * - k = 60 by default (Cormack et al.; RAG-Fusion; reference/richrag.md §1.8).
 * - Rank base: 1-based by default (Cormack et al.: the top document of a list adds 1/61).
 *   `rankBase: 0` gives RAG-Fusion's reference code (Raudaschl 2023), where the top adds 1/60
 *   (reference/richrag.md Pitfall 11: keep k = 60 and state the base).
 * - Ties (`ties`): by default equal fused scores are ordered as every ranking here is, by docno
 *   descending (trec_eval's order, core/ir/rankOrder.ts; issue 34 item 1), so RRF of a run with
 *   itself is that run and the fused run's export and evaluation keep its order. `'first-seen'`
 *   keeps first-seen order — lists in the order given, each read from its top — as RAG-Fusion's
 *   reference code does (dict insertion order plus Python's stable sort; reference/richrag.md §1.8).
 * - `depth`, when given, reads only the first `depth` entries of every list.
 */
import { compareScoredDesc, type ScoredId } from './ranking';

/** How equal fused scores are ordered: trec_eval's docno-descending rule, or RAG-Fusion's first-seen. */
export type RrfTies = 'trec_eval' | 'first-seen';

export interface RrfOptions {
  k?: number;
  rankBase?: 0 | 1;
  depth?: number;
  /** Default 'trec_eval'. */
  ties?: RrfTies;
}

export const RRF_DEFAULT_K = 60;

export function reciprocalRankFusion(lists: readonly (readonly string[])[], options: RrfOptions = {}): ScoredId[] {
  const k = options.k ?? RRF_DEFAULT_K;
  const base = options.rankBase ?? 1;
  if (!Number.isFinite(k) || k < 0) throw new RangeError(`RRF k must be a finite number ≥ 0, got ${k}`);
  if (base !== 0 && base !== 1) throw new RangeError(`RRF rank base must be 0 or 1, got ${String(base)}`);
  if (base === 0 && k === 0) throw new RangeError('RRF with k = 0 and 0-based ranks divides by zero');
  if (options.depth !== undefined && (!Number.isInteger(options.depth) || options.depth < 0)) {
    throw new RangeError(`RRF depth must be a non-negative integer, got ${options.depth}`);
  }
  const fused = new Map<string, number>();
  lists.forEach((list, l) => {
    const seen = new Set<string>();
    const n = Math.min(list.length, options.depth ?? list.length);
    for (let i = 0; i < n; i++) {
      const id = list[i]!;
      if (seen.has(id)) throw new RangeError(`RRF list ${l + 1} ranks '${id}' twice`);
      seen.add(id);
      fused.set(id, (fused.get(id) ?? 0) + 1 / (k + i + base));
    }
  });
  const out = [...fused].map(([id, score]) => ({ id, score }));
  // Array.prototype.sort is stable: with 'first-seen', equal scores keep first-seen order.
  return (options.ties ?? 'trec_eval') === 'first-seen' ? out.sort((a, b) => b.score - a.score) : out.sort(compareScoredDesc);
}
