/**
 * The order in which trec_eval reads a ranking (conventions.md §4, M1). trec_eval ignores the rank
 * column: `form_res_rels.c` sorts each query's documents with `comp_sim_docno`, i.e. by score
 * descending and, for equal scores, by docno **descending** (`strcmp(p2->docno, p1->docno)`), so
 * among tied documents "d9" comes before "d10" and "b" before "a".
 */

export interface ScoredDoc {
  docno: string;
  score: number;
}

/**
 * Byte-wise (`strcmp`) order of two strings as trec_eval sees their UTF-8 bytes. UTF-8 byte order
 * equals code-point order, which differs from JS's UTF-16 `<` only between astral characters
 * (surrogate pairs) and U+E000–U+FFFF; the fix-up below maps UTF-16 units onto code-point order.
 */
export function compareBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (D800–DFFF) encode code points above FFFF: move them above E000–FFFF.
      x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
      y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * THE rank order of Fairground (issue 34 item 1): score descending, equal scores by docno
 * descending (byte-wise), as trec_eval reads a run. Every ranking that is stored, exported,
 * evaluated, fused or cut to a top N goes through this one function, so a stored run, its TREC
 * export, its evaluation and the candidates taken from it list the same documents in the same order.
 */
export function compareRankOrder(aScore: number, aDocno: string, bScore: number, bDocno: string): number {
  if (aScore > bScore) return -1;
  if (aScore < bScore) return 1;
  return compareBytewise(bDocno, aDocno);
}

/** trec_eval's ranking order: score descending, ties by docno descending (byte-wise). */
export function compareTrecEvalOrder(a: ScoredDoc, b: ScoredDoc): number {
  return compareRankOrder(a.score, a.docno, b.score, b.docno);
}

/** A copy of `docs` in trec_eval's ranking order. */
export function sortTrecEvalOrder<T extends ScoredDoc>(docs: readonly T[]): T[] {
  return docs.slice().sort(compareTrecEvalOrder);
}
