/**
 * User text → a safe FTS5 MATCH expression. Nothing the user types is ever parsed as FTS5 query
 * syntax: the text is cut into terms (runs of letters, digits and marks — what the `unicode61`
 * tokenizer keeps — everything else, including `"`, `*`, `^`, `:`, `(`, `-` and `+`, separates),
 * each term is written as a double-quoted string, and the terms are joined with OR. `AND`, `NOT`,
 * `NEAR` typed by the user are thus plain words. Quoted strings cannot contain `"` here, so no
 * escaping is needed; FTS5's own tokenizer (Porter, case/diacritic folding) then applies inside
 * each string, exactly as it did when indexing.
 *
 * Repeated terms are kept: FTS5's bm25() sums over phrases, so a term typed twice weighs twice —
 * the same query-term-frequency rule as the in-memory BM25 (core/retrieval/bm25.ts).
 */

const TERM = /[\p{L}\p{M}\p{N}\p{Co}]+/gu;

export function queryTerms(text: string): string[] {
  return text.match(TERM) ?? [];
}

/** `"t1" OR "t2" …`, or null when the text has no terms (match nothing; do not query). */
export function toMatchExpression(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}
