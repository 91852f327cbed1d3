/**
 * The FTS5 top-k statements as they were before issue 18 item 3 (commit 9ab442f): every match
 * joined (or read) and sorted in SQL, then LIMIT k. Kept as the reference of
 * test/retrieval/ftsRankOrder.test.ts (same rows, same order, same scores) and as a baseline row of
 * the `search` bench suite. Ties: doc_id DESC since issue 34 (the one rank order, trec_eval's;
 * SQLite's BINARY collation compares UTF-8 bytes, as compareBytewise does); before, doc_id ASC.
 */
import type { Database } from 'better-sqlite3';

export interface V0Hit {
  documentId: number;
  docId: string;
  title: string;
  score: number;
}

/** searchFts's ranking statement (documents_fts, filtered to one collection). */
export function searchTopV0(db: Database, collectionId: number, match: string, k: number, weights = { title: 1, text: 1 }): V0Hit[] {
  return db
    .prepare(
      `SELECT d.id AS documentId, d.doc_id AS docId, d.title AS title, -bm25(documents_fts, ?, ?) AS score
         FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid
        WHERE documents_fts MATCH ? AND d.collection_id = ?
        ORDER BY score DESC, d.doc_id DESC
        LIMIT ?`,
    )
    .all(weights.title, weights.text, match, collectionId, k) as V0Hit[];
}

/** CollectionFtsIndex's statement on its temp table. */
export function indexTopV0(db: Database, table: string, match: string, k: number, weights = { title: 1, text: 1 }): { docId: string; score: number }[] {
  return db
    .prepare(`SELECT doc_id AS docId, -bm25(${table}, ?, ?) AS score FROM temp.${table} WHERE ${table} MATCH ? ORDER BY score DESC, doc_id DESC LIMIT ?`)
    .all(weights.title, weights.text, match, k) as { docId: string; score: number }[];
}
