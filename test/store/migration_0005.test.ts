import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0005 } from '../../src-main/store/migrations/0005_remote_endpoints';

describe('migration 0005 remote endpoints', () => {
  it('creates remote_endpoints with unique names', () => {
    const db = new Database(':memory:');
    migration0005.up(db);
    const insert = db.prepare(`INSERT INTO remote_endpoints(name, base_url, model, added_at) VALUES (?, ?, ?, 'now')`);
    insert.run('lab-vllm', 'http://10.0.0.5:8000/v1', 'qwen');
    expect(() => insert.run('lab-vllm', 'http://x/v1', 'm')).toThrow(/UNIQUE/);
    expect(db.prepare(`SELECT settings, api_key FROM remote_endpoints`).get()).toEqual({ settings: '{}', api_key: null });
  });
});
