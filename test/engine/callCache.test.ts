import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedEngine, callCacheKey, canonicalJson } from '../../src-main/engine/callCache';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import type { EmbedRequest, Engine, EngineIdentity, GenerateRequest, ScoreRequest, TokenizeRequest } from '../../src-main/engine/types';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { openWorkspace } from '../../src-main/store/workspace';
import { TEST_SETTINGS, tinyModels, type TinyModels } from './support/tinyModels';

/** The real local engine, counting the calls that reach it. */
class CountingEngine implements Engine {
  calls = { generate: 0, score: 0, embed: 0 };
  constructor(private readonly inner: Engine) {}
  identity() {
    return this.inner.identity();
  }
  generate(r: GenerateRequest, s?: AbortSignal) {
    this.calls.generate++;
    return this.inner.generate(r, s);
  }
  score(r: ScoreRequest, s?: AbortSignal) {
    this.calls.score++;
    return this.inner.score(r, s);
  }
  embed(r: EmbedRequest, s?: AbortSignal) {
    this.calls.embed++;
    return this.inner.embed(r, s);
  }
  tokenize(r: TokenizeRequest, s?: AbortSignal) {
    return this.inner.tokenize(r, s);
  }
  close() {
    return this.inner.close();
  }
}

let models: TinyModels;
let local: LocalEngine;
let dir: string;

beforeAll(async () => {
  models = tinyModels();
  dir = mkdtempSync(join(tmpdir(), 'fg-cache-'));
  local = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
});
afterAll(async () => {
  await local?.close();
  models?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const greedy: GenerateRequest = { prompt: 'The cached answer is', maxTokens: 16, sampling: { temperature: 0 } };

describe('CachedEngine over the real local engine', () => {
  it('answers a repeated call from the cache without reaching the engine, across reopening the workspace', async () => {
    const wsPath = join(dir, 'cache.fairground');
    let ws = openWorkspace(wsPath);
    const counting = new CountingEngine(local);
    let cached = new CachedEngine(counting, new CallCacheRepo(ws.db));

    const g1 = await cached.generate(greedy);
    const s1 = await cached.score({ prompt: 'Q', continuations: [' a', ' b'] });
    const e1 = await cached.embed({ texts: ['fair'] });
    expect(counting.calls).toEqual({ generate: 1, score: 1, embed: 1 });
    expect(cached.stats()).toEqual({ hits: 0, misses: 3, bypassed: 0 });

    expect(await cached.generate({ ...greedy })).toEqual(g1);
    expect(await cached.score({ continuations: [' a', ' b'], prompt: 'Q' })).toEqual(s1); // key order does not matter
    expect(await cached.embed({ texts: ['fair'] })).toEqual(e1);
    expect(counting.calls).toEqual({ generate: 1, score: 1, embed: 1 });
    expect(cached.stats()).toEqual({ hits: 3, misses: 3, bypassed: 0 });

    // A different request is a miss.
    await cached.generate({ ...greedy, maxTokens: 8 });
    expect(counting.calls.generate).toBe(2);

    ws.close();
    ws = openWorkspace(wsPath);
    cached = new CachedEngine(counting, new CallCacheRepo(ws.db));
    expect(await cached.generate(greedy)).toEqual(g1);
    expect(counting.calls.generate).toBe(2);
    expect(cached.stats().hits).toBe(1);

    // Clearing the model's calls makes the next one reach the engine again.
    expect(await cached.clear()).toBe(4);
    expect(await cached.generate(greedy)).toEqual(g1);
    expect(counting.calls.generate).toBe(3);
    ws.close();
  });

  it('does not cache cancelled generations or unseeded sampling', async () => {
    const ws = openWorkspace(':memory:');
    const counting = new CountingEngine(local);
    const cached = new CachedEngine(counting, new CallCacheRepo(ws.db));
    // A call whose signal is already aborted never takes a slot, so it never reaches the engine.
    const controller = new AbortController();
    controller.abort();
    await expect(cached.generate(greedy, controller.signal)).rejects.toBeDefined();
    expect(counting.calls.generate).toBe(0);
    // A generation cancelled after it took a slot and reached the engine ends 'aborted' and is not stored: the next
    // call computes it. The cancel is made by the engine wrapper as the call arrives (no timer racing the call), so
    // the real local engine answers 'aborted' every time (issue 26: the 5 ms timer made this check optional).
    const midway = new AbortController();
    const aborting = new CountingEngine(local);
    const inner = aborting.generate.bind(aborting);
    aborting.generate = (req, sig) => {
      midway.abort();
      return inner(req, sig);
    };
    const cachedAborting = new CachedEngine(aborting, new CallCacheRepo(ws.db));
    const cutRequest: GenerateRequest = { ...greedy, maxTokens: 400 };
    const r = await cachedAborting.generate(cutRequest, midway.signal);
    expect(r.finishReason).toBe('aborted');
    expect(aborting.calls.generate).toBe(1);
    expect(cachedAborting.stats()).toEqual({ hits: 0, misses: 0, bypassed: 1 });
    const full = await cached.generate(cutRequest);
    expect(full.finishReason).not.toBe('aborted');
    expect(counting.calls.generate).toBe(1); // not answered from the cache: computed
    expect(await cached.generate(cutRequest)).toEqual(full); // and that one is stored
    expect(counting.calls.generate).toBe(1);
    await expect(cached.generate({ ...greedy, sampling: { temperature: 1 } })).rejects.toMatchObject({ code: 'bad-request' });
    expect(cached.stats()).toEqual({ hits: 1, misses: 1, bypassed: 1 });
    ws.close();
  });

  it('refuses to overwrite a stored call and counts the extra computation instead', async () => {
    const ws = openWorkspace(':memory:');
    const repo = new CallCacheRepo(ws.db);
    expect(repo.put({ key: 'k', modelKey: 'm', op: 'generate', request: { a: 1 }, response: { text: 'first' }, durationMs: 3 })).toBe(true);
    expect(repo.put({ key: 'k', modelKey: 'm', op: 'generate', request: { a: 1 }, response: { text: 'second' }, durationMs: 4 })).toBe(false);
    expect(repo.get('k')!.response).toEqual({ text: 'first' });
    expect(repo.extraComputations()).toBe(1);
    expect(repo.extraComputations('other')).toBe(0);
    ws.close();
  });

  it('computes concurrent identical calls once', async () => {
    const ws = openWorkspace(':memory:');
    const counting = new CountingEngine(local);
    const cached = new CachedEngine(counting, new CallCacheRepo(ws.db), { capacity: () => 4 });
    const outs = await Promise.all([cached.generate(greedy), cached.generate(greedy), cached.withPolicy({ mode: 'compute' }).generate(greedy)]);
    expect(outs[1]).toEqual(outs[0]);
    expect(outs[2]).toEqual(outs[0]);
    expect(counting.calls.generate).toBe(1);
    ws.close();
  });
});

describe('callCacheKey', () => {
  const identity: EngineIdentity = { kind: 'local', modelKey: 'abc', modelName: 'm', outputAffectingSettings: { batchSize: 512 }, versions: {} };

  it('depends on model, operation, request and output-affecting settings, not on key order', () => {
    const k = callCacheKey(identity, 'generate', greedy);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(callCacheKey(identity, 'generate', { sampling: { temperature: 0 }, maxTokens: 16, prompt: 'The cached answer is' })).toBe(k);
    expect(callCacheKey({ ...identity, modelKey: 'abd' }, 'generate', greedy)).not.toBe(k);
    expect(callCacheKey(identity, 'score', greedy)).not.toBe(k);
    expect(callCacheKey({ ...identity, outputAffectingSettings: { batchSize: 256 } }, 'generate', greedy)).not.toBe(k);
    expect(callCacheKey({ ...identity, versions: { x: '1' } }, 'generate', greedy)).toBe(k);
  });

  it('writes canonical JSON and refuses numbers JSON cannot carry', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"e":2,"f":1}]},"b":1}');
    expect(() => canonicalJson({ t: NaN })).toThrow(/NaN/);
  });
});
