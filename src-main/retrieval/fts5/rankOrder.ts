/**
 * FTS5's `ORDER BY rank` shortcut with Fairground's deterministic tie order (issue 18 item 3).
 *
 * `ORDER BY score DESC, doc_id ASC` makes SQLite compute bm25() for every match, join or read every
 * matching row, and sort them all. With `ORDER BY rank` FTS5 sorts the matches itself (rowid and
 * rank only) and the statement reads rows one at a time, best first, so the caller can stop after
 * k. FTS5 leaves the order of equal ranks unspecified; `takeTopK` therefore reads on past the k-th
 * row while the score stays equal to the k-th score, sorts that prefix in Fairground's one rank
 * order (score desc, doc_id desc byte-wise: trec_eval's; core/ir/rankOrder.ts, issue 34) and keeps
 * k: exactly the rows and order of a full sort in that order.
 *
 * The rank function carries the column weights as text (`rank MATCH 'bm25(w1, w2)'`). FTS5's
 * parser takes plain decimals only (no exponent), so weights are written as the exact decimal form
 * of JS's shortest round-trip string; SQLite parses them back to the same doubles (20,000 random
 * weights from 5e-324 to 1.8e308 gave bit-identical rank and bm25() values with SQLite 3.53.2; the
 * tests pin a sample).
 */
import { compareRankOrder } from '../../core/ir/rankOrder';

/** bm25() weights of the two indexed columns (ftsSearch.ts re-exports this type). */
export interface FieldWeights {
  title: number;
  text: number;
}

/** `x` (finite, ≥ 0) as a plain decimal without an exponent that parses back to the same double. */
export function plainDecimal(x: number): string {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`expected a finite number ≥ 0, got ${x}`);
  const s = String(x);
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = (m[1] as string) + (m[2] ?? '');
  const exp = Number(m[3]);
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`;
  return digits.length - 1 <= exp ? digits + '0'.repeat(exp - (digits.length - 1)) : `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** The value for `rank MATCH ?`: FTS5's bm25 with the title and text weights. */
export function bm25RankFunction(weights: FieldWeights): string {
  return `bm25(${plainDecimal(weights.title)}, ${plainDecimal(weights.text)})`;
}

/**
 * The k best of `rows` (read in rank order: score non-increasing), ties broken by docId descending
 * (core/ir/rankOrder.ts). Stops reading at the first row whose score is below the k-th; the iterator is
 * closed there (better-sqlite3 then resets the statement).
 */
export function takeTopK<T extends { score: number; docId: string }>(rows: Iterable<T>, k: number): T[] {
  const taken: T[] = [];
  if (k <= 0) return taken;
  let kth = Number.NaN;
  for (const row of rows) {
    if (taken.length >= k && row.score < kth) break;
    taken.push(row);
    if (taken.length === k) kth = row.score;
  }
  taken.sort((a, b) => compareRankOrder(a.score, a.docId, b.score, b.docId));
  return taken.length > k ? taken.slice(0, k) : taken;
}
