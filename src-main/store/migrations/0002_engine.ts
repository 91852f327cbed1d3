import type { Migration } from '../migration';

/**
 * The model library and the LLM call cache.
 *
 * - `models`: one row per GGUF the researcher added. `sha256` is NULL until hashed (hashing a
 *   multi-gigabyte file takes a while); `metadata` is what the GGUF header says (architecture,
 *   parameters, quantization...), `settings` the engine settings chosen for this model.
 * - `llm_call_cache`: one row per engine call, keyed by the SHA-256 of the canonical JSON of
 *   (model key, operation, request, output-affecting settings); `model_key` is the file's
 *   SHA-256 (or `remote:<url>#<model>`), so the cache survives renaming or moving a model and
 *   can be cleared per model.
 */
export const migration0002: Migration = {
  version: 2,
  name: 'engine',
  up(db) {
    db.exec(`
      CREATE TABLE models (
        id        INTEGER PRIMARY KEY,
        name      TEXT NOT NULL UNIQUE,
        path      TEXT NOT NULL,
        size      INTEGER NOT NULL,
        sha256    TEXT CHECK (sha256 IS NULL OR length(sha256) = 64),
        metadata  TEXT NOT NULL DEFAULT '{}',   -- JSON
        settings  TEXT NOT NULL DEFAULT '{}',   -- JSON
        status    TEXT NOT NULL CHECK (status IN ('pending','ready','failed','missing')),
        error     TEXT,
        added_at  TEXT NOT NULL
      ) STRICT;
      CREATE INDEX models_by_sha256 ON models(sha256);

      CREATE TABLE llm_call_cache (
        key         TEXT PRIMARY KEY,
        model_key   TEXT NOT NULL,
        op          TEXT NOT NULL CHECK (op IN ('generate','score','embed')),
        request     TEXT NOT NULL,             -- JSON
        response    TEXT NOT NULL,             -- JSON
        created_at  TEXT NOT NULL,
        duration_ms REAL NOT NULL
      ) STRICT;
      CREATE INDEX llm_call_cache_by_model ON llm_call_cache(model_key, op);
    `);
  },
};
