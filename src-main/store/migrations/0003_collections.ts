import type { Migration } from '../migration';

/**
 * Test collections: a corpus of documents, queries (with reference answers, task/metric, RichRAG
 * sub-aspects and, for LaMP, a per-query candidate set = the user's profile) and judgments
 * (relevance from qrels, utility labels from Fair-RAG's labeling or an LLM, manual overrides).
 *
 * JSON columns are written in canonical form (keys sorted, no whitespace; store/canonicalJson.ts)
 * so that equal content is equal text, which the import's no-op/conflict checks and the content
 * hash rely on. The retrieval index (migration 0004) is built over `documents`.
 */
export const migration0003: Migration = {
  version: 3,
  name: 'collections',
  up(db) {
    db.exec(`
      CREATE TABLE collections (
        id           INTEGER PRIMARY KEY,
        name         TEXT NOT NULL UNIQUE,
        description  TEXT NOT NULL DEFAULT '',
        content_hash TEXT NOT NULL,             -- SHA-256 of the canonical serialisation of the content
        sources      TEXT NOT NULL DEFAULT '[]', -- JSON [{file, kind, sha256, rows}]
        created_at   TEXT NOT NULL
      ) STRICT;

      CREATE TABLE documents (
        id            INTEGER PRIMARY KEY,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        doc_id        TEXT NOT NULL,
        title         TEXT NOT NULL DEFAULT '',
        text          TEXT NOT NULL,
        attrs         TEXT NOT NULL DEFAULT '{}', -- JSON: provider, author, group, ...
        UNIQUE (collection_id, doc_id)
      ) STRICT;

      CREATE TABLE queries (
        id            INTEGER PRIMARY KEY,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        query_id      TEXT NOT NULL,
        text          TEXT NOT NULL,
        answers       TEXT NOT NULL DEFAULT '[]', -- JSON string[]
        task          TEXT,
        metric        TEXT,
        subaspects    TEXT,                       -- JSON [{aspect, answer}] or NULL
        candidates    TEXT,                       -- JSON doc_id[] (per-query corpus, LaMP profiles) or NULL
        attrs         TEXT NOT NULL DEFAULT '{}',
        UNIQUE (collection_id, query_id)
      ) STRICT;
      CREATE INDEX queries_by_task ON queries(collection_id, task);

      CREATE TABLE judgments (
        id            INTEGER PRIMARY KEY,
        collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        query_id      TEXT NOT NULL,
        doc_id        TEXT NOT NULL,
        kind          TEXT NOT NULL CHECK (kind IN ('relevance','utility')),
        label         REAL NOT NULL,
        source        TEXT NOT NULL DEFAULT 'import', -- import | llm | manual
        provenance    TEXT NOT NULL DEFAULT '{}',     -- JSON: generator, template, metric, baseline, utility, delta
        updated_at    TEXT NOT NULL,
        UNIQUE (collection_id, query_id, doc_id, kind)
      ) STRICT;
      CREATE INDEX judgments_by_doc ON judgments(collection_id, doc_id);
    `);
  },
};
