import type { Migration } from '../migration';

/** Workspace metadata, settings and the job table that backs the job tray and resumable work. */
export const migration0001: Migration = {
  version: 1,
  name: 'initial',
  up(db) {
    db.exec(`
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value      TEXT NOT NULL,            -- JSON
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE jobs (
        id          TEXT PRIMARY KEY,
        kind        TEXT NOT NULL,
        title       TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled','interrupted')),
        params      TEXT NOT NULL,            -- JSON: what the job was asked to do, enough to resume it
        progress    REAL NOT NULL DEFAULT 0,  -- units done
        total       REAL,                     -- units in all, when known
        message     TEXT,
        error       TEXT,
        result      TEXT,                     -- JSON
        created_at  TEXT NOT NULL,
        started_at  TEXT,
        finished_at TEXT
      ) STRICT;
      CREATE INDEX jobs_by_status ON jobs(status, created_at);
    `);
  },
};
