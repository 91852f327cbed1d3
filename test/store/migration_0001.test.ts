import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';

describe('migration 0001 initial', () => {
  it('creates meta, settings and jobs with a status check', () => {
    const db = new Database(':memory:');
    migration0001.up(db);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`).all() as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(['jobs', 'meta', 'settings']);
    db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at) VALUES ('j1','k','t','queued','{}','now')`).run();
    expect(() =>
      db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at) VALUES ('j2','k','t','exploded','{}','now')`).run(),
    ).toThrow(/CHECK constraint/);
    // STRICT tables reject a wrongly typed value
    expect(() => db.prepare(`INSERT INTO jobs(id, kind, title, status, params, progress, created_at) VALUES ('j3','k','t','queued','{}','lots','now')`).run()).toThrow();
  });
});
