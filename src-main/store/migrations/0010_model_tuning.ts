import type { Migration } from '../migration';

/**
 * Thread-count tunings (issue 19): for each model and machine (OS, CPU model, usable logical CPUs;
 * `machineKey`), the count chosen and the measurements it was chosen on, as JSON. A model's rows
 * go with it.
 */
export const migration0010: Migration = {
  version: 10,
  name: 'model_tuning',
  up(db) {
    db.exec(`
      CREATE TABLE model_tuning (
        model_id  INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        machine   TEXT NOT NULL,
        threads   INTEGER NOT NULL CHECK (threads >= 1),
        result    TEXT NOT NULL,               -- JSON: ThreadTuning (engine/local/threadTuning.ts)
        tuned_at  TEXT NOT NULL,
        PRIMARY KEY (model_id, machine)
      ) STRICT;
    `);
  },
};
