import type { Migration } from '../migration';

/**
 * The work queue's bookkeeping in the call cache:
 * - `computations`: how many times the engine computed this call. A stored key is never overwritten
 *   (the first response stays); a second computation (which the queue is built to prevent) only
 *   raises this count, so "no call is computed twice" is checkable from the file, across processes.
 * - `served_by`: the endpoint of a remote pool that computed the call (for manifests), else NULL.
 * - `batch_calls`: calls written to an OpenAI-Batch file by `fairground plan export`, with the
 *   request lines they became, so `fairground cache import` can check each response against its
 *   request before it fills the cache.
 */
export const migration0009: Migration = {
  version: 9,
  name: 'call_queue',
  up(db) {
    db.exec(`
      ALTER TABLE llm_call_cache ADD COLUMN computations INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE llm_call_cache ADD COLUMN served_by TEXT;
      CREATE TABLE batch_calls (
        key         TEXT PRIMARY KEY,
        model_key   TEXT NOT NULL,
        op          TEXT NOT NULL CHECK (op IN ('generate','score','embed')),
        request     TEXT NOT NULL,             -- JSON: the engine request
        lines       TEXT NOT NULL,             -- JSON: [{custom_id, url, body}] as exported
        exported_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
