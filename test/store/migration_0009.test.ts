import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';
import { migration0009 } from '../../src-main/store/migrations/0009_call_queue';

describe('migration 0009 call queue', () => {
  it('gives existing cache rows one computation and no endpoint, and adds the batch_calls table', () => {
    const db = new Database(':memory:');
    migration0001.up(db);
    migration0002.up(db);
    db.prepare(`INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms) VALUES ('k','m','generate','{}','{}','now',1)`).run();
    migration0009.up(db);
    expect(db.prepare(`SELECT computations, served_by FROM llm_call_cache`).get()).toEqual({ computations: 1, served_by: null });
    db.prepare(`INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at) VALUES ('k','m','score','{}','[]','now')`).run();
    expect(() => db.prepare(`INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at) VALUES ('k2','m','tokenize','{}','[]','now')`).run()).toThrow(/CHECK/);
  });
});
