/**
 * Issue 25 item 1: what the run reads and writes more cheaply must be what it read and wrote before.
 * Fair RAG's item keys are built from their parts' JSON (not by stringifying an array): the same
 * text as JSON.stringify of the array, for any identifier; `ExperimentsRepo.itemFields` reads payload
 * fields in SQLite: the same values as parsing each payload, in `items()` order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generationKey, judgmentKey, KEY_PREFIX, queryKey, queryKeyPrefix, sampleKey } from '../../src-main/experiments/fair-rag/items';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { ExperimentsRepo } from '../../src-main/store/experimentsRepo';
import { openWorkspace } from '../../src-main/store/workspace';

// Quotes, backslashes, control characters, U+2028, an astral character, a lone surrogate, empty.
const awkward = ['q1', 'say "hi"', 'back\\slash', 'tab\there\nnewline', 'line\u2028sep', 'emoji 🎲', 'lone \ud800 surrogate', '', 'ünïcödé', '["s",'];

describe('Fair RAG item keys', () => {
  it('are exactly JSON.stringify of their arrays, and each type-and-query prefix starts exactly its keys', () => {
    for (const a of awkward) {
      expect(queryKey(a)).toBe(JSON.stringify(['q', a]));
      for (const b of awkward) {
        expect(generationKey(a, b)).toBe(JSON.stringify(['g', a, b]));
        for (const n of [0, 7, 199, 12345]) expect(sampleKey(a, b, n)).toBe(JSON.stringify(['s', a, b, n]));
        for (const c of ['d1', 'doc "7"', 'x\\y']) expect(judgmentKey(a, b, c)).toBe(JSON.stringify(['j', a, b, c]));
        // A query's prefix starts its own keys and no other query's (a query id that extends another's).
        expect(sampleKey(a, b, 3).startsWith(queryKeyPrefix('sample', a))).toBe(true);
        expect(generationKey(a, b).startsWith(queryKeyPrefix('generation', a))).toBe(true);
        if (a !== b) expect(sampleKey(a, 'c', 0).startsWith(queryKeyPrefix('sample', b))).toBe(false);
      }
    }
    expect(queryKeyPrefix('judgment', 'q1')).toBe(`${KEY_PREFIX.judgment}"q1",`);
  });
});

describe('ExperimentsRepo.itemFields', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-itemfields-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the same field values as parsing each payload, in items() order, for one query or a key prefix', () => {
    const ws = openWorkspace(join(dir, 'w.fairground'));
    try {
      const repo = new ExperimentsRepo(ws.db);
      const e = repo.createExperiment({ kind: 'fair-rag', name: 'fields', spec: {} });
      const run = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 });
      const items = [];
      // Written out of order: the read comes back in (query, condition, sample, key) order.
      for (const q of ['q2', 'q1', 'q10']) {
        for (let s = 3; s >= 0; s--) {
          const ranking = [`d${s}`, `d"${s + 1}"`, 'd\\x', 'd🎲'];
          items.push({ key: sampleKey(q, 'bm25/alpha=1', s), queryId: q, condition: 'bm25/alpha=1', sample: s, payload: { type: 'sample', promptHash: `h${s % 2}`, ranking } });
        }
        items.push({ key: generationKey(q, 'h0'), queryId: q, condition: '', sample: null, payload: { type: 'generation', prompt: 'p "1"', output: 'o', fromCache: true } });
        items.push({ key: judgmentKey(q, 'o', 'd1'), queryId: q, condition: '', sample: null, payload: { type: 'judgment', prompt: null, fromCache: false, premiseCut: 'shortened' } });
        items.push({ key: judgmentKey(q, 'o', 'd2'), queryId: q, condition: '', sample: null, payload: { type: 'judgment', prompt: 'j', fromCache: false } });
        items.push({ key: judgmentKey(q, 'o', 'd3'), queryId: q, condition: '', sample: null, payload: { type: 'judgment', fromCache: true } });
      }
      repo.upsertItems(run.id, items);

      const samples = repo.itemFields(run.id, { keyPrefix: queryKeyPrefix('sample', 'q1') }, { promptHash: '$.promptHash', ranking: '$.ranking' });
      const parsed = repo.items(run.id, { queryId: 'q1', keyPrefix: KEY_PREFIX.sample });
      expect(samples.map((s) => s.key)).toEqual(parsed.map((it) => it.key));
      expect(samples.map((s) => s.key)).toEqual([0, 1, 2, 3].map((n) => sampleKey('q1', 'bm25/alpha=1', n)));
      expect(samples.map((s) => ({ promptHash: s.promptHash, ranking: JSON.parse(String(s.ranking)) as unknown }))).toEqual(
        parsed.map((it) => ({ promptHash: (it.payload as { promptHash: string }).promptHash, ranking: (it.payload as { ranking: string[] }).ranking })),
      );

      // JSON null, a string, a missing field: told apart by the JSON type; booleans as 1/0.
      const judged = repo.itemFields(run.id, { keyPrefix: KEY_PREFIX.judgment }, { prompt: { typeOf: '$.prompt' }, fromCache: '$.fromCache', premiseCut: '$.premiseCut' });
      expect(judged).toHaveLength(9);
      expect(judged.slice(0, 3)).toEqual([
        { key: judgmentKey('q1', 'o', 'd1'), prompt: 'null', fromCache: 0, premiseCut: 'shortened' },
        { key: judgmentKey('q1', 'o', 'd2'), prompt: 'text', fromCache: 0, premiseCut: null },
        { key: judgmentKey('q1', 'o', 'd3'), prompt: null, fromCache: 1, premiseCut: null },
      ]);
      expect(() => repo.itemFields(run.id, {}, { 'x) FROM run_items; --': '$.a' })).toThrow(/not a plain field name/);
    } finally {
      ws.close();
    }
  });
});

describe('CallCacheRepo.lookup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-lookup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the stored response alone (as get does), undefined for a miss, and names a damaged row', () => {
    const ws = openWorkspace(join(dir, 'w.fairground'));
    try {
      const cache = new CallCacheRepo(ws.db);
      cache.put({ key: 'k', modelKey: 'm', op: 'generate', request: { prompt: 'p' }, response: { text: 'answer "1"', n: 2 }, durationMs: 1 });
      expect(cache.lookup('k')).toEqual({ response: cache.get('k')!.response });
      expect(cache.lookup('k')).toEqual({ response: { text: 'answer "1"', n: 2 } });
      expect(cache.lookup('missing')).toBeUndefined();
      expect(cache.claim('k')).toEqual({ response: { text: 'answer "1"', n: 2 } });
      ws.db.prepare(`UPDATE llm_call_cache SET response = '{broken' WHERE key = 'k'`).run();
      expect(() => cache.lookup('k')).toThrow(/stored response of call k is not valid JSON/);
    } finally {
      ws.close();
    }
  });
});
