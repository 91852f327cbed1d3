import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';
import { migration0009 } from '../../src-main/store/migrations/0009_call_queue';
import { migration0011 } from '../../src-main/store/migrations/0011_call_evidence';

describe('migration 0011 call evidence', () => {
  it('gives exported calls of older workspaces no prompt token counts', () => {
    const db = new Database(':memory:');
    migration0001.up(db);
    migration0002.up(db);
    migration0009.up(db);
    db.prepare(`INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at) VALUES ('k','m','generate','{}','[]','now')`).run();
    migration0011.up(db);
    expect(db.prepare(`SELECT prompt_tokens FROM batch_calls`).get()).toEqual({ prompt_tokens: null });
  });
});
