import type { Migration } from '../migration';

/**
 * Experiments, their versioned specs, their runs and the generic per-unit result table every
 * experiment kind writes to (Fair RAG now; MoI, RichRAG and conversations later).
 *
 * - `experiments`: one row per named experiment; `spec` is the current spec (JSON, validated by the
 *   kind's zod schema before it is stored), `version` counts edits. Editing a spec bumps the version
 *   and keeps every older version in `experiment_spec_versions` (the current one is there too), so a
 *   run can always be traced to the exact text it ran.
 * - `runs`: one execution of an experiment. `spec` is a copy of the exact (defaults filled in) spec
 *   it ran and `spec_version` the version it came from, so editing the experiment later never
 *   changes what a run means. `job_id` is the job that executes it (jobs table, migration 0001);
 *   `stats` holds counters (naive vs distinct LLM calls, cache hits...), `manifest` the
 *   reproducibility manifest written when the run finished. `owner` names the process executing a
 *   `running` run, so another process can tell a run whose process died (resumable) from one that
 *   is still in progress elsewhere.
 * - `run_items`: the results, one row per unit of work, keyed by (`run_id`, `key`). Writers upsert
 *   (`INSERT … ON CONFLICT(run_id, key) DO UPDATE`), so re-running a unit after a crash replaces
 *   its row instead of adding a second one: resuming is idempotent by construction. `key` is chosen
 *   by the kind and must be a pure function of the unit's identity (never a counter or a time).
 *   `query_id`, `condition` and `sample` are the columns views filter and page by; everything else
 *   is in `payload` (JSON). `condition` names the experimental arm within the query (Fair RAG:
 *   `bm25/alpha=2`, `bm25/deterministic`, `oracle`; '' for rows that belong to the whole query or are
 *   shared between arms); `sample` is the sample index within the arm (NULL when not per sample).
 *   See src-main/experiments/README.md for the conventions each kind follows.
 *
 * Deleting an experiment deletes its runs and their items (ON DELETE CASCADE).
 */
export const migration0006: Migration = {
  version: 6,
  name: 'experiments',
  up(db) {
    db.exec(`
      CREATE TABLE experiments (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        kind       TEXT NOT NULL,                 -- experiment kind, e.g. 'fair-rag'
        name       TEXT NOT NULL UNIQUE,
        spec       TEXT NOT NULL,                 -- JSON: the current spec
        version    INTEGER NOT NULL CHECK (version >= 1),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE experiment_spec_versions (
        experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
        version       INTEGER NOT NULL CHECK (version >= 1),
        spec          TEXT NOT NULL,              -- JSON
        created_at    TEXT NOT NULL,
        PRIMARY KEY (experiment_id, version)
      ) STRICT;

      CREATE TABLE runs (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
        spec          TEXT NOT NULL,              -- JSON: the exact spec this run executes
        spec_version  INTEGER NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('pending','running','succeeded','failed','cancelled','interrupted')),
        job_id        TEXT,
        owner         TEXT,                       -- JSON {pid, host} of the process executing it (stale-run detection)
        error         TEXT,
        stats         TEXT NOT NULL DEFAULT '{}', -- JSON counters
        created_at    TEXT NOT NULL,
        finished_at   TEXT,
        manifest      TEXT                        -- JSON reproducibility manifest (when finished)
      ) STRICT;
      CREATE INDEX runs_by_experiment ON runs(experiment_id, id);

      CREATE TABLE run_items (
        run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key       TEXT NOT NULL,
        query_id  TEXT NOT NULL DEFAULT '',
        condition TEXT NOT NULL DEFAULT '',
        sample    INTEGER,
        payload   TEXT NOT NULL,                  -- JSON
        PRIMARY KEY (run_id, key)
      ) STRICT;
      CREATE INDEX run_items_by_unit ON run_items(run_id, query_id, condition, sample);
    `);
  },
};
