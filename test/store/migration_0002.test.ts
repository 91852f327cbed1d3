import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';

function migrated(): Database.Database {
  const db = new Database(':memory:');
  migration0001.up(db);
  migration0002.up(db);
  return db;
}

describe('migration 0002 engine', () => {
  it('creates the model library and the call cache', () => {
    const db = migrated();
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type='table' AND name IN ('models','llm_call_cache') ORDER BY name`).all() as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(['llm_call_cache', 'models']);
    db.prepare(`INSERT INTO models(name, path, size, status, added_at) VALUES ('m','/m.gguf',1,'pending','now')`).run();
    expect(db.prepare(`SELECT sha256, metadata, settings FROM models`).get()).toEqual({ sha256: null, metadata: '{}', settings: '{}' });
  });

  it('keeps names unique and statuses, ops and hashes well-formed', () => {
    const db = migrated();
    const add = db.prepare(`INSERT INTO models(name, path, size, sha256, status, added_at) VALUES (?, '/p', 1, ?, ?, 'now')`);
    add.run('a', null, 'ready');
    expect(() => add.run('a', null, 'ready')).toThrow(/UNIQUE/);
    expect(() => add.run('b', null, 'exploded')).toThrow(/CHECK/);
    expect(() => add.run('c', 'short', 'ready')).toThrow(/CHECK/);
    const put = db.prepare(`INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms) VALUES (?, 'mk', ?, '{}', '{}', 'now', 1.5)`);
    put.run('k1', 'generate');
    expect(() => put.run('k1', 'score')).toThrow(/UNIQUE|PRIMARY/);
    expect(() => put.run('k2', 'translate')).toThrow(/CHECK/);
    // STRICT: a duration must be a number
    expect(() => db.prepare(`INSERT INTO llm_call_cache VALUES ('k3','mk','embed','{}','{}','now','slow')`).run()).toThrow();
  });
});
