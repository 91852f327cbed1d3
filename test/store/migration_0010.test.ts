import { describe, expect, it } from 'vitest';
import { ThreadTuningRepo } from '../../src-main/store/threadTuningRepo';
import { openWorkspace } from '../../src-main/store/workspace';

describe('migration 0010 model tuning', () => {
  it('stores one tuning per model and machine, replaces it on a new tuning, drops it with the model, and reads a damaged row as absent', () => {
    const ws = openWorkspace(':memory:');
    try {
      const { db } = ws;
      db.prepare(`INSERT INTO models(id, name, path, size, status, added_at) VALUES (1, 'm', '/m.gguf', 1, 'ready', 'now')`).run();
      const repo = new ThreadTuningRepo(db);
      repo.put(1, { threads: 2, machine: 'A', tunedAt: 't1' });
      repo.put(1, { threads: 1, machine: 'B', tunedAt: 't1' });
      repo.put(1, { threads: 1, machine: 'A', tunedAt: 't2' });
      expect(repo.get(1, 'A')).toEqual({ threads: 1, machine: 'A', tunedAt: 't2' });
      expect(repo.get(1, 'B')?.threads).toBe(1);
      expect(repo.get(1, 'C')).toBeUndefined();
      expect(() => repo.put(1, { threads: 0, machine: 'A', tunedAt: 't3' })).toThrow(/CHECK/);
      db.prepare(`UPDATE model_tuning SET result='{not json' WHERE machine='B'`).run();
      expect(repo.get(1, 'B')).toBeUndefined();
      db.prepare(`DELETE FROM models WHERE id=1`).run();
      expect(db.prepare(`SELECT count(*) n FROM model_tuning`).get()).toEqual({ n: 0 });
    } finally {
      ws.close();
    }
  });
});
