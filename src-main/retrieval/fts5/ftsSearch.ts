/**
 * Interactive BM25 search of one collection with SQLite FTS5 over `documents_fts` (migration 0004).
 *
 * Scores are FTS5's `bm25(documents_fts, w_title, w_text)` negated: FTS5 returns lower-is-better
 * values (−score) so that `ORDER BY rank` ascends; here higher is better. FTS5's BM25 has k1 = 1.2,
 * b = 0.75, idf = ln((N − n + 0.5)/(n + 0.5)) floored at 1e-6, the column weight multiplying each
 * term frequency, and |D| = tokens in all columns (sqlite fts5_aux.c).
 *
 * Statistics: `documents_fts` indexes the documents of every collection, so N, n and avgdl here are
 * workspace-wide; the collection only filters the hits. Fine for browsing, but scores change when
 * another collection is imported — stored runs therefore use a per-collection index instead
 * (collectionIndex.ts).
 */
import type { Database } from 'better-sqlite3';
import { toMatchExpression, queryTerms } from './matchExpression';
import { bm25RankFunction, takeTopK, type FieldWeights } from './rankOrder';
import { markedToHtml, passageOfHighlighted, SQL_MARK_CLOSE, SQL_MARK_OPEN } from './snippetHtml';

/** Texts longer than this (characters) get their snippet from highlight() (see searchFts). */
export const LONG_TEXT_CHARS = 65_536;

export type { FieldWeights } from './rankOrder';

export const DEFAULT_FIELD_WEIGHTS: Readonly<FieldWeights> = Object.freeze({ title: 1, text: 1 });

export interface FtsSearchOptions {
  collectionId: number;
  query: string;
  k: number;
  weights?: FieldWeights;
  /** Tokens in a snippet (FTS5 allows 1..64). Default 24. */
  snippetTokens?: number;
}

export interface FtsHit {
  rank: number;
  /** documents.id */
  documentId: number;
  /** The document's id in its collection. */
  docId: string;
  title: string;
  /** The title, HTML-escaped, matched terms in <mark>. */
  titleHtml: string;
  /** A passage of the text around the matches, HTML-escaped, matched terms in <mark>; "…" where cut. */
  snippetHtml: string;
  score: number;
}

export interface FtsSearchResult {
  /** The terms searched for (the query as FTS5 saw it, before stemming). */
  terms: string[];
  hits: FtsHit[];
}

export function checkFieldWeights(w: FieldWeights): void {
  for (const [field, v] of Object.entries(w)) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`field weight ${field} must be a finite number ≥ 0, got ${v}`);
  }
}

export function searchFts(db: Database, options: FtsSearchOptions): FtsSearchResult {
  const terms = queryTerms(options.query);
  const match = toMatchExpression(terms);
  const weights = options.weights ?? DEFAULT_FIELD_WEIGHTS;
  checkFieldWeights(weights);
  if (!Number.isInteger(options.k) || options.k < 0) throw new RangeError(`k must be a non-negative integer, got ${options.k}`);
  if (match === null || options.k === 0) return { terms, hits: [] };
  const snippetTokens = Math.max(1, Math.min(64, Math.trunc(options.snippetTokens ?? 24)));

  // Rank first, then build snippets for the k winners only: snippet() on every matching row of a
  // common term would cost as much as reading the whole collection. FTS5 sorts the matches by rank
  // itself; the join reads documents in that order and stops after the k-th row and its ties
  // (rankOrder.ts), in the one rank order: score desc, doc_id desc byte-wise (trec_eval's).
  const ranked = db
    .prepare(
      `SELECT d.id AS documentId, d.doc_id AS docId, d.title AS title, -bm25(documents_fts, ?, ?) AS score
         FROM documents_fts CROSS JOIN documents d ON d.id = documents_fts.rowid
        WHERE documents_fts MATCH ? AND documents_fts.rank MATCH ? AND d.collection_id = ?
        ORDER BY documents_fts.rank`,
    )
    .iterate(weights.title, weights.text, match, bm25RankFunction(weights), options.collectionId) as IterableIterator<{
    documentId: number;
    docId: string;
    title: string;
    score: number;
  }>;
  const top = takeTopK(ranked, options.k);

  const marks = db.prepare(
    `SELECT highlight(documents_fts, 0, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}) AS title,
            snippet(documents_fts, 1, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}, '…', ?) AS snippet
       FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?`,
  );
  // FTS5's snippet() scores a passage at every match against every other match: quadratic in the
  // matches, seconds for a common word in a megabyte. A text over LONG_TEXT_CHARS gets the passage
  // picked from highlight()'s marks instead (linear; passageOfHighlighted).
  const lengthOf = db.prepare(`SELECT length(text) FROM documents WHERE id = ?`).pluck();
  const marksLong = db.prepare(
    `SELECT highlight(documents_fts, 0, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}) AS title,
            highlight(documents_fts, 1, ${SQL_MARK_OPEN}, ${SQL_MARK_CLOSE}) AS text
       FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?`,
  );
  const hits = top.map((row, i) => {
    // The rowid must be bound as BigInt: a JS number binds as REAL, and FTS5 then silently ignores
    // the `rowid = ?` constraint and returns every matching row (measured with SQLite 3.53.2).
    const rowid = BigInt(row.documentId);
    let title: string | null | undefined;
    let snippet: string | null | undefined;
    if (((lengthOf.get(row.documentId) as number | null) ?? 0) > LONG_TEXT_CHARS) {
      const m = marksLong.get(match, rowid) as { title: string | null; text: string | null } | undefined;
      title = m?.title;
      snippet = m?.text == null ? m?.text : passageOfHighlighted(m.text, snippetTokens);
    } else {
      const m = marks.get(snippetTokens, match, rowid) as { title: string | null; snippet: string | null } | undefined;
      title = m?.title;
      snippet = m?.snippet;
    }
    return {
      rank: i + 1,
      documentId: row.documentId,
      docId: row.docId,
      title: row.title,
      titleHtml: markedToHtml(title ?? row.title),
      snippetHtml: markedToHtml(snippet ?? ''),
      score: row.score,
    };
  });
  return { terms, hits };
}

/** Throws if `documents_fts` does not match `documents` exactly. */
export function checkFtsIndex(db: Database): void {
  db.prepare(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('integrity-check', 1)`).run();
}
