import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0008 } from '../../src-main/store/migrations/0008_job_owner';

describe('migration 0008 job owner', () => {
  it('adds a nullable owner to existing job rows', () => {
    const db = new Database(':memory:');
    migration0001.up(db);
    db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at) VALUES ('j1','k','t','running','{}','now')`).run();
    migration0008.up(db);
    expect(db.prepare(`SELECT owner FROM jobs WHERE id='j1'`).get()).toEqual({ owner: null });
    db.prepare(`UPDATE jobs SET owner=? WHERE id='j1'`).run(JSON.stringify({ pid: 1, host: 'h' }));
    expect(JSON.parse((db.prepare(`SELECT owner FROM jobs`).get() as { owner: string }).owner)).toEqual({ pid: 1, host: 'h' });
  });
});
