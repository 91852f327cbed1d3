/**
 * The multi-faceted candidate pool (RichRAG Sec. 3.3, Eq. 3-4): one ranked list per sub-aspect is
 * merged into a pool of at most M documents, each document once, carrying the set s(d) of the
 * sub-aspects whose lists contain it. Reference note richrag.md §1.2.
 *
 * The merge order is not in the paper or the released code, and it matters: 8 aspects × top-50 = 400
 * > M = 270..293, so truncation drops documents. Orders:
 *   'round-robin' (default, the notes' recommendation): rank 1 of every list in list order, then rank 2,
 *                 and so on (a shorter list is simply skipped once exhausted);
 *   'score':      every (list, rank) entry by retrieval score, highest first; ties by rank, then list
 *                 order. Only meaningful when all lists' scores share one scale (same retriever).
 * A document keeps its FIRST position in that order; the pool is then cut to the capacity. Its s(d) is
 * the union over ALL the lists that contain it — also those whose entry for it comes after the cut —
 * in list order, since every document of D_i "is associated with" s_i (Eq. 3).
 */
import { DataError } from '../errors';

export interface RetrievedDoc {
  id: string;
  score: number;
}

/** One sub-aspect's retrieval result, best first. */
export interface AspectList {
  aspect: string;
  results: readonly RetrievedDoc[];
}

export type PoolMergeOrder = 'round-robin' | 'score';

export interface PoolOptions {
  /** M, the pool's maximum size. */
  capacity: number;
  order?: PoolMergeOrder;
}

export interface PoolEntry {
  id: string;
  /** s(d): the sub-aspects that retrieved the document, in list order. */
  aspects: string[];
}

interface Entry {
  id: string;
  list: number;
  rank: number;
  score: number;
}

export function mergeCandidatePool(lists: readonly AspectList[], options: PoolOptions): PoolEntry[] {
  const { capacity, order = 'round-robin' } = options;
  if (!Number.isInteger(capacity) || capacity < 1) throw new DataError(`must be a positive integer, got ${capacity}`, { field: 'capacity' });
  checkLists(lists);

  const entries: Entry[] = [];
  if (order === 'round-robin') {
    const depth = lists.reduce((m, l) => Math.max(m, l.results.length), 0);
    for (let rank = 0; rank < depth; rank++) {
      lists.forEach((l, list) => {
        const r = l.results[rank];
        if (r !== undefined) entries.push({ id: r.id, list, rank, score: r.score });
      });
    }
  } else {
    lists.forEach((l, list) => l.results.forEach((r, rank) => entries.push({ id: r.id, list, rank, score: r.score })));
    entries.sort((a, b) => b.score - a.score || a.rank - b.rank || a.list - b.list);
  }

  const aspectsOf = new Map<string, Set<number>>();
  for (const e of entries) {
    const set = aspectsOf.get(e.id) ?? new Set<number>();
    set.add(e.list);
    aspectsOf.set(e.id, set);
  }
  // Map keys keep insertion order = first position in the merge order.
  return [...aspectsOf.entries()].slice(0, capacity).map(([id, set]) => ({
    id,
    aspects: [...set].sort((a, b) => a - b).map((i) => lists[i]!.aspect),
  }));
}

function checkLists(lists: readonly AspectList[]): void {
  const aspects = new Map<string, number>();
  lists.forEach((l, i) => {
    const first = aspects.get(l.aspect);
    if (first !== undefined) throw new DataError(`duplicate sub-aspect '${l.aspect}' (first at lists[${first}])`, { field: `lists[${i}].aspect` });
    aspects.set(l.aspect, i);
    const ids = new Map<string, number>();
    l.results.forEach((r, j) => {
      const field = `lists[${i}].results[${j}]`;
      const seen = ids.get(r.id);
      if (seen !== undefined) throw new DataError(`duplicate document id '${r.id}' in this list (first at results[${seen}])`, { field: `${field}.id` });
      ids.set(r.id, j);
      if (!Number.isFinite(r.score)) throw new DataError(`not a finite number: ${r.score}`, { field: `${field}.score` });
    });
  });
}
