import type { Migration } from '../migration';

/**
 * Retrieval: a full-text index over every collection's documents, embedding sets for dense
 * retrieval, and stored retrieval runs.
 *
 * `documents_fts` is an external-content FTS5 table (the text lives once, in `documents`; FTS5
 * reads it from there for snippets) kept in sync by the three triggers below. Tokenizer:
 * `porter unicode61 remove_diacritics 2` — Unicode-aware word splitting, case and diacritic
 * folding (`2` also folds the combining marks that `1` misses), then English Porter stemming: the
 * analysis Anserini/Pyserini's default BM25 uses (Lucene's English analyzer stems with Porter;
 * FTS5 has no stop-word list, so unlike Anserini stop words stay in). The research collections
 * here (LaMP, WikiPassageQA, WikiAsp) are English.
 *
 * Writers of `documents` must not use `INSERT OR REPLACE`: its implicit delete fires no DELETE
 * trigger (unless `recursive_triggers` is on) and leaves stale index entries that corrupt an
 * external-content index; use `INSERT … ON CONFLICT DO UPDATE` (fires the UPDATE trigger). Deletes
 * cascading from `collections` do fire the DELETE trigger.
 *
 * Dense vectors are NOT created here: a vec0 table needs the sqlite-vec extension loaded and a
 * fixed dimension per embedding model. Each `embedding_sets` row gets its own `vec_<id>` vec0
 * table, created at run time (retrieval/dense/vectorTable.ts). `AUTOINCREMENT` keeps set ids from
 * being reused, so a table left behind by a deleted set can never be mistaken for a new set's.
 *
 * Retrieval results name queries and documents by their external ids (`queries.query_id`,
 * `documents.doc_id`): a run is a self-contained artifact, exportable as a TREC run as it was made.
 */
export const migration0004: Migration = {
  version: 4,
  name: 'retrieval',
  up(db) {
    db.exec(`
      CREATE VIRTUAL TABLE documents_fts USING fts5(
        title, text,
        content = 'documents', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      -- Index documents imported before this migration.
      INSERT INTO documents_fts(documents_fts) VALUES ('rebuild');

      CREATE TRIGGER documents_fts_after_insert AFTER INSERT ON documents BEGIN
        INSERT INTO documents_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
      END;
      CREATE TRIGGER documents_fts_after_delete AFTER DELETE ON documents BEGIN
        INSERT INTO documents_fts(documents_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
      END;
      CREATE TRIGGER documents_fts_after_update AFTER UPDATE OF id, title, text ON documents BEGIN
        INSERT INTO documents_fts(documents_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
        INSERT INTO documents_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
      END;

      CREATE TABLE embedding_sets (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        model_key     TEXT NOT NULL,              -- EngineIdentity.modelKey (SHA-256 of the GGUF, or remote:<url>#<model>)
        model_name    TEXT NOT NULL DEFAULT '',
        dimensions    INTEGER NOT NULL CHECK (dimensions > 0),
        metric        TEXT NOT NULL CHECK (metric IN ('cosine','dot')), -- default similarity for retrieval
        params        TEXT NOT NULL DEFAULT '{}', -- JSON: how documents were rendered and batched
        created_at    TEXT NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('building','partial','ready','failed')),
        UNIQUE (collection_id, model_key)
      ) STRICT;

      CREATE TABLE retrieval_runs (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        name          TEXT NOT NULL,
        method        TEXT NOT NULL CHECK (method IN ('bm25','dense','rrf')),
        params        TEXT NOT NULL DEFAULT '{}',  -- JSON: everything needed to redo the run
        created_at    TEXT NOT NULL,
        UNIQUE (collection_id, name)
      ) STRICT;

      CREATE TABLE retrieval_results (
        run_id   INTEGER NOT NULL REFERENCES retrieval_runs(id) ON DELETE CASCADE,
        query_id TEXT NOT NULL,
        doc_id   TEXT NOT NULL,
        rank     INTEGER NOT NULL CHECK (rank >= 1),
        score    REAL NOT NULL,
        PRIMARY KEY (run_id, query_id, doc_id)
      ) STRICT, WITHOUT ROWID;
      CREATE UNIQUE INDEX retrieval_results_by_rank ON retrieval_results(run_id, query_id, rank);
    `);
  },
};
