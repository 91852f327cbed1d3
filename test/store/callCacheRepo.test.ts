import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';
import { migration0009 } from '../../src-main/store/migrations/0009_call_queue';

function repo(): CallCacheRepo {
  const db = new Database(':memory:');
  migration0001.up(db);
  migration0002.up(db);
  migration0009.up(db);
  return new CallCacheRepo(db);
}

describe('CallCacheRepo', () => {
  it('stores and returns calls with their JSON intact', () => {
    const cache = repo();
    const request = { prompt: 'ü 🙂', maxTokens: 3, sampling: { temperature: 0 } };
    const response = { text: ' x', promptTokens: 4, completionTokens: 3, finishReason: 'length' };
    cache.put({ key: 'k1', modelKey: 'm1', op: 'generate', request, response, durationMs: 12.5, createdAt: '2025-01-01T00:00:00.000Z' });
    expect(cache.get('k1')).toEqual({ key: 'k1', modelKey: 'm1', op: 'generate', request, response, durationMs: 12.5, createdAt: '2025-01-01T00:00:00.000Z', servedBy: null });
    expect(cache.get('nope')).toBeUndefined();
  });

  it('counts, summarises and clears per model', () => {
    const cache = repo();
    cache.put({ key: 'a', modelKey: 'm1', op: 'generate', request: {}, response: {}, durationMs: 1 });
    cache.put({ key: 'b', modelKey: 'm1', op: 'score', request: {}, response: {}, durationMs: 2 });
    cache.put({ key: 'c', modelKey: 'm2', op: 'embed', request: {}, response: {}, durationMs: 3 });
    // A second put of a stored key keeps the first response (never overwrite) and counts the computation.
    expect(cache.put({ key: 'c', modelKey: 'm2', op: 'embed', request: {}, response: { again: true }, durationMs: 4 })).toBe(false);
    expect(cache.count()).toBe(3);
    expect(cache.count('m1')).toBe(2);
    expect(cache.get('c')?.response).toEqual({});
    expect(cache.extraComputations('m2')).toBe(1);
    expect(cache.summary()).toEqual([
      { modelKey: 'm1', op: 'generate', calls: 1, totalDurationMs: 1 },
      { modelKey: 'm1', op: 'score', calls: 1, totalDurationMs: 2 },
      { modelKey: 'm2', op: 'embed', calls: 1, totalDurationMs: 3 },
    ]);
    expect(cache.clearModel('m1')).toBe(2);
    expect(cache.count()).toBe(1);
  });
});
