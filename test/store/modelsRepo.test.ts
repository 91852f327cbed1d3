import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { ModelsRepo } from '../../src-main/store/modelsRepo';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';

function repo(): ModelsRepo {
  const db = new Database(':memory:');
  migration0001.up(db);
  migration0002.up(db);
  return new ModelsRepo(db);
}

const HASH = 'a'.repeat(64);

describe('ModelsRepo', () => {
  it('adds, finds, lists and removes models', () => {
    const models = repo();
    const when = new Date('2025-01-02T03:04:05Z');
    const m = models.add({ name: 'tiny', path: '/m/tiny.gguf', size: 123, metadata: { architecture: 'llama' }, settings: { threads: 1 } }, when);
    expect(m).toEqual({
      id: m.id,
      name: 'tiny',
      path: '/m/tiny.gguf',
      size: 123,
      sha256: null,
      metadata: { architecture: 'llama' },
      settings: { threads: 1 },
      status: 'pending',
      error: null,
      addedAt: '2025-01-02T03:04:05.000Z',
    });
    models.add({ name: 'another', path: '/m/a.gguf', size: 1, sha256: HASH });
    expect(models.list().map((x) => [x.name, x.status])).toEqual([
      ['another', 'ready'],
      ['tiny', 'pending'],
    ]);
    expect(models.getByName('tiny')?.id).toBe(m.id);
    expect(models.remove(m.id)).toBe(true);
    expect(models.remove(m.id)).toBe(false);
    expect(models.get(m.id)).toBeUndefined();
  });

  it('refuses a second model with the same name', () => {
    const models = repo();
    models.add({ name: 'x', path: '/a', size: 1 });
    expect(() => models.add({ name: 'x', path: '/b', size: 1 })).toThrow(DataError);
  });

  it('records hashes, failures and settings', () => {
    const models = repo();
    const m = models.add({ name: 'x', path: '/a', size: 1 });
    models.setHash(m.id, HASH);
    expect(models.get(m.id)).toMatchObject({ sha256: HASH, status: 'ready' });
    models.setStatus(m.id, 'failed', 'the engine process was killed by SIGABRT');
    expect(models.get(m.id)).toMatchObject({ status: 'failed', error: 'the engine process was killed by SIGABRT' });
    models.setHash(m.id, HASH); // does not clear a failure
    expect(models.get(m.id)?.status).toBe('failed');
    models.setSettings(m.id, { gpu: false });
    expect(models.get(m.id)?.settings).toEqual({ gpu: false });
  });
});
