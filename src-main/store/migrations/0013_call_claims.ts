import type { Migration } from '../migration';

/**
 * Issue 35 item 4, one computation per call across processes: before a process computes a call
 * the cache cannot answer, it claims the call's key here (one write transaction with the cache
 * check); another process that needs the same call waits for the answer instead of computing it,
 * unless the claim's process is gone (its pid is not alive on the same host and boot, or its
 * heartbeat stopped), in which case the claim is taken over. The row goes once the answer is
 * stored or the computation fails. `boot` is the host and boot id under which `pid` names a
 * process; `heartbeat` is the owner's last sign of life (ms since the epoch).
 */
export const migration0013: Migration = {
  version: 13,
  name: 'call_claims',
  up(db) {
    db.exec(`
      CREATE TABLE call_claims (
        key        TEXT PRIMARY KEY,
        pid        INTEGER NOT NULL,
        boot       TEXT NOT NULL,
        started_at TEXT NOT NULL,
        heartbeat  INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
