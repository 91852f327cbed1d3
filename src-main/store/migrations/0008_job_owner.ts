import type { Migration } from '../migration';

/**
 * Jobs record the process that runs them (JSON {pid, host}), so an app opening a workspace that a
 * `fairground` command is working in marks only jobs whose process is gone as interrupted.
 */
export const migration0008: Migration = {
  version: 8,
  name: 'job_owner',
  up(db) {
    db.exec(`ALTER TABLE jobs ADD COLUMN owner TEXT`);
  },
};
