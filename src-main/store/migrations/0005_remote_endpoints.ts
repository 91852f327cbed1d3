import type { Migration } from '../migration';

/**
 * OpenAI-compatible servers (vLLM, llama.cpp server, Ollama, any /v1) a lab points experiments at.
 * The API key is kept in the workspace so runs can resume unattended; it is never returned by the
 * API, written to exports, manifests or logs.
 */
export const migration0005: Migration = {
  version: 5,
  name: 'remote_endpoints',
  up(db) {
    db.exec(`
      CREATE TABLE remote_endpoints (
        id        INTEGER PRIMARY KEY,
        name      TEXT NOT NULL UNIQUE,
        base_url  TEXT NOT NULL,
        model     TEXT NOT NULL,
        api_key   TEXT,
        settings  TEXT NOT NULL DEFAULT '{}',   -- JSON: serverKind, maxConcurrency, timeoutMs, scoring
        added_at  TEXT NOT NULL
      ) STRICT;
    `);
  },
};
