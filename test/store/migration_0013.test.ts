import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src-main/store/workspace';

describe('migration 0013 call claims', () => {
  it('adds the call_claims table: one claim per call key, with its process, boot and heartbeat', () => {
    const ws = openWorkspace(':memory:');
    try {
      const insert = ws.db.prepare(`INSERT INTO call_claims(key, pid, boot, started_at, heartbeat) VALUES (?, ?, ?, ?, ?)`);
      insert.run('k', 42, 'host/boot', 'now', 1);
      expect(() => insert.run('k', 43, 'host/boot', 'now', 2)).toThrow(/UNIQUE/);
      expect(() => insert.run('k2', 'x', 'host/boot', 'now', 2)).toThrow(/INTEGER/);
      expect(ws.db.prepare(`SELECT key, pid, boot, heartbeat FROM call_claims`).all()).toEqual([{ key: 'k', pid: 42, boot: 'host/boot', heartbeat: 1 }]);
    } finally {
      ws.close();
    }
  });
});
