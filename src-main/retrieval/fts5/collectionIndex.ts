/**
 * A throw-away FTS5 index of ONE collection, in the connection's TEMP schema, for retrieval runs.
 *
 * Why not `documents_fts`: its BM25 statistics (N, document frequencies, average length) cover the
 * documents of every collection in the workspace, so a run's scores would change whenever some other
 * collection is imported or deleted. A run must depend only on its collection, so it indexes that
 * collection alone — same tokenizer as migration 0004 (`porter unicode61 remove_diacritics 2`),
 * same bm25() — and drops the index afterwards. Building costs about as much as importing the text
 * (≈4 s per 100k documents of ~120 words on the reference machine).
 */
import type { Database, Statement } from 'better-sqlite3';
import { toMatchExpression, queryTerms } from './matchExpression';
import { checkFieldWeights, DEFAULT_FIELD_WEIGHTS, type FieldWeights } from './ftsSearch';
import { bm25RankFunction, takeTopK } from './rankOrder';

export const FTS_TOKENIZER = 'porter unicode61 remove_diacritics 2';

let counter = 0;

export interface IndexHit {
  docId: string;
  score: number;
}

export class CollectionFtsIndex {
  private dropped = false;
  private readonly searchStmt: Statement;

  private constructor(
    private readonly db: Database,
    private readonly table: string,
    readonly documents: number,
  ) {
    this.searchStmt = db.prepare(
      // FTS5 sorts by rank itself; takeTopK reads the k best and their ties (rankOrder.ts).
      `SELECT doc_id AS docId, -bm25(${table}, ?, ?) AS score FROM temp.${table} WHERE ${table} MATCH ? AND rank MATCH ? ORDER BY rank`,
    );
  }

  static build(db: Database, collectionId: number): CollectionFtsIndex {
    // Unqualified in bm25() and MATCH (FTS5 wants the bare table name there), temp.-qualified elsewhere.
    const table = `retrieval_fts_${process.pid}_${++counter}`;
    db.exec(`CREATE VIRTUAL TABLE temp.${table} USING fts5(title, text, doc_id UNINDEXED, tokenize = '${FTS_TOKENIZER}')`);
    try {
      const info = db.prepare(`INSERT INTO temp.${table}(title, text, doc_id) SELECT title, text, doc_id FROM documents WHERE collection_id = ? ORDER BY id`).run(collectionId);
      return new CollectionFtsIndex(db, table, info.changes);
    } catch (err) {
      db.exec(`DROP TABLE IF EXISTS temp.${table}`);
      throw err;
    }
  }

  /** The k best documents for the user text `query` (OR of its terms), score = −bm25, higher better. */
  search(query: string, k: number, weights: FieldWeights = DEFAULT_FIELD_WEIGHTS): IndexHit[] {
    if (this.dropped) throw new Error('the collection index was dropped');
    checkFieldWeights(weights);
    const match = toMatchExpression(queryTerms(query));
    if (match === null || k <= 0) return [];
    return takeTopK(this.searchStmt.iterate(weights.title, weights.text, match, bm25RankFunction(weights)) as IterableIterator<IndexHit>, k);
  }

  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS temp.${this.table}`);
  }
}
