/**
 * Endpoint pools (issue 13 item 3) against real loopback OpenAI-compatible servers: dispatch by
 * load, a failing replica avoided and its calls retried on another, back-off and probing, the
 * revision check, per-endpoint statistics, and the cache identity shared by replicas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedEngine, callCacheKey } from '../../../src-main/engine/callCache';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import type { RemoteEngineConfig } from '../../../src-main/engine/remote/remoteEngineConfig';
import { servedRevision } from '../../../src-main/engine/remote/servedRevision';
import { EngineError, type CallReport, type GenerateRequest } from '../../../src-main/engine/types';
import { CallCacheRepo } from '../../../src-main/store/callCacheRepo';
import { openWorkspace } from '../../../src-main/store/workspace';
import { FakeOpenAiServer, type FakeOpenAiOptions } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

const servers: FakeOpenAiServer[] = [];
const engines: RemoteEngine[] = [];

async function replicas(count: number, options: Partial<FakeOpenAiOptions> = {}): Promise<FakeOpenAiServer[]> {
  const started = await Promise.all(Array.from({ length: count }, () => FakeOpenAiServer.start(options)));
  servers.push(...started);
  return started;
}

function pool(fakes: FakeOpenAiServer[], limits: number[], config: Partial<RemoteEngineConfig> = {}): RemoteEngine {
  const engine = new RemoteEngine({
    model: 'fake-model',
    endpoints: fakes.map((f, i) => ({ baseUrl: f.baseUrl, maxConcurrency: limits[i]! })),
    ...fastRetries,
    ...config,
  });
  engines.push(engine);
  return engine;
}

afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const ask = (i: number): GenerateRequest => ({ prompt: `question ${i}`, maxTokens: 8, sampling: { temperature: 0 } });
const newReport = (): CallReport => ({ servedBy: [], attempts: 0 });
const completions = (f: FakeOpenAiServer): number => f.requestsTo('/v1/completions').length;

// Server-side in-flight counts need requests to overlap there: delays long enough for a busy machine.
describe('endpoint pool dispatch', () => {
  it('spreads concurrent calls by load: 4 calls over two idle endpoints go 2 and 2, not all to the first', async () => {
    const [a, b] = await replicas(2, { delayMs: 250 });
    const engine = pool([a!, b!], [4, 4]);
    const reports = Array.from({ length: 4 }, newReport);
    await Promise.all(reports.map((r, i) => engine.generate(ask(i), undefined, r)));
    expect([completions(a!), completions(b!)]).toEqual([2, 2]);
    expect([a!.maxInFlight, b!.maxInFlight]).toEqual([2, 2]);
    // Least loaded, ties to the one used least recently: a, b, a, b.
    expect(reports.map((r) => r.servedBy)).toEqual([[a!.baseUrl], [b!.baseUrl], [a!.baseUrl], [b!.baseUrl]]);
    expect(reports.every((r) => r.attempts === 1)).toBe(true);
  });

  it('respects each endpoint’s limit and fills them in proportion: limits 1 and 3, 8 calls → 2 and 6', async () => {
    const [a, b] = await replicas(2, { delayMs: 250 });
    const engine = pool([a!, b!], [1, 3]);
    expect(engine.capacity()).toBe(4);
    await Promise.all(Array.from({ length: 8 }, (_, i) => engine.generate(ask(i))));
    // Two rounds of 4 (every freed slot takes exactly one waiting call).
    expect([completions(a!), completions(b!)]).toEqual([2, 6]);
    expect([a!.maxInFlight, b!.maxInFlight]).toEqual([1, 3]);
    const stats = engine.endpointStats();
    expect(stats.map((s) => [s.baseUrl, s.limit, s.attempts, s.succeeded, s.failed, s.inFlight])).toEqual([
      [a!.baseUrl, 1, 2, 2, 0, 0],
      [b!.baseUrl, 3, 6, 6, 0, 0],
    ]);
  });

  it('a single base URL is a pool of one with maxConcurrency as its limit', async () => {
    const [a] = await replicas(1, { delayMs: 250 });
    const engine = new RemoteEngine({ baseUrl: a!.baseUrl, model: 'fake-model', maxConcurrency: 3 });
    engines.push(engine);
    expect(engine.capacity()).toBe(3);
    await Promise.all(Array.from({ length: 7 }, (_, i) => engine.generate(ask(i))));
    expect(a!.maxInFlight).toBe(3);
    expect(engine.endpointStats()).toMatchObject([{ baseUrl: a!.baseUrl, limit: 3, succeeded: 7, state: 'healthy' }]);
  });
});

describe('endpoint pool failures', () => {
  it('avoids a failing endpoint: its call is retried on the other at once, later calls do not go there', async () => {
    const [a, b] = await replicas(2);
    a!.options.failAll = { status: 503, message: 'replica overloaded' };
    // A long back-off keeps `a` out for the whole test.
    const engine = pool([a!, b!], [2, 2], { backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    const first = newReport();
    const started = Date.now();
    expect((await engine.generate(ask(0), undefined, first)).text).toBe('You said: question 0');
    expect(Date.now() - started).toBeLessThan(30_000); // no back-off wait: another endpoint was free
    expect(first).toEqual({ servedBy: [b!.baseUrl], attempts: 2 });
    for (let i = 1; i <= 5; i++) await engine.generate(ask(i));
    expect(a!.requests).toHaveLength(1);
    expect(completions(b!)).toBe(6);
    const [sa, sb] = engine.endpointStats();
    expect(sa).toMatchObject({ state: 'backing-off', attempts: 1, succeeded: 0, failed: 1, retriedElsewhere: 1, consecutiveFailures: 1 });
    expect(sa!.lastError).toBe('HTTP 503: replica overloaded');
    expect(sa!.retryInMs).toBeGreaterThan(50_000);
    expect(sb).toMatchObject({ state: 'healthy', attempts: 6, succeeded: 6, failed: 0 });
  });

  it('moves calls off a replica that drops connections, for concurrent calls too', async () => {
    const [a, b, c] = await replicas(3, { delayMs: 20 });
    b!.options.failAll = { disconnect: true };
    const engine = pool([a!, b!, c!], [2, 2, 2], { backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => engine.generate(ask(i))));
    expect(results.map((r) => r.text)).toEqual(Array.from({ length: 12 }, (_, i) => `You said: question ${i}`));
    // The first round put one call on b (before it failed): 12 answered by a and c.
    expect(completions(a!) + completions(c!)).toBe(12);
    expect(engine.endpointStats()[1]).toMatchObject({ succeeded: 0, state: 'backing-off' });
    expect(engine.endpointStats()[1]!.failed).toBe(b!.requests.length);
  });

  it('takes a recovered endpoint back: after its back-off one probe call, then its full limit', async () => {
    const [a, b] = await replicas(2, { delayMs: 40 });
    a!.options.failAll = { status: 500 };
    const engine = pool([a!, b!], [3, 3], { backoffBaseMs: 150, backoffMaxMs: 150 });
    await engine.generate(ask(0)); // fails on a, served by b
    a!.options.failAll = undefined;
    expect(engine.endpointStats()[0]!.state).toBe('backing-off');
    await new Promise((r) => setTimeout(r, 200));
    expect(engine.endpointStats()[0]!.state).toBe('probing');
    const before = completions(a!);
    // Probing: a takes one call at a time until one succeeds.
    await Promise.all(Array.from({ length: 4 }, (_, i) => engine.generate(ask(10 + i))));
    expect(completions(a!) - before).toBe(1);
    expect(engine.endpointStats()[0]).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
    // Healthy again: 6 calls at once split 3 and 3 (a probing endpoint would have taken only 1).
    const healthyBefore = completions(a!);
    await Promise.all(Array.from({ length: 6 }, (_, i) => engine.generate(ask(20 + i))));
    expect(completions(a!) - healthyBefore).toBe(3);
  });

  it('retries a timed-out call on another endpoint, never on the one that may still be working on it', async () => {
    const [slow, fast] = await replicas(2);
    slow!.options.delayMs = 5000;
    const engine = pool([slow!, fast!], [1, 1], { timeoutMs: 400, backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    const report = newReport();
    expect((await engine.generate(ask(0), undefined, report)).text).toBe('You said: question 0');
    expect(report).toEqual({ servedBy: [fast!.baseUrl], attempts: 2 });
    expect(slow!.requests).toHaveLength(1);
    expect(engine.endpointStats()[0]).toMatchObject({ state: 'backing-off', retriedElsewhere: 1 });
    expect(engine.endpointStats()[0]!.lastError).toMatch(/no complete response within 400 ms/);
  });

  it('with one endpoint, waits out its back-off and retries there (as before pools)', async () => {
    const [a] = await replicas(1);
    a!.failNext(2, { status: 503, retryAfterMs: '100' });
    const engine = pool([a!], [2]);
    const report = newReport();
    await engine.generate(ask(0), undefined, report);
    expect(report).toEqual({ servedBy: [a!.baseUrl], attempts: 3 });
    const times = a!.requests.map((r) => r.at);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(90);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(90);
  });

  it('fails with the last endpoint’s error when every endpoint fails through all retries', async () => {
    const [a, b] = await replicas(2);
    a!.options.failAll = { status: 502, message: 'bad gateway a' };
    b!.options.failAll = { status: 502, message: 'bad gateway b' };
    const engine = pool([a!, b!], [1, 1], { retries: 3 });
    const error = await engine.generate(ask(0)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('remote-error');
    expect((error as EngineError).message).toMatch(/HTTP 502: bad gateway [ab] \(after 4 attempt\(s\)\)/);
    expect(a!.requests.length + b!.requests.length).toBe(4);
    // Alternating: each failure sends the retry to the endpoint not yet failed on.
    expect([a!.requests.length, b!.requests.length]).toEqual([2, 2]);
  });

  it('a bad request is not retried elsewhere and does not mark the endpoint unhealthy', async () => {
    const [a, b] = await replicas(2);
    const engine = pool([a!, b!], [1, 1]);
    const error = await engine.generate({ ...ask(0), sampling: { temperature: 5, seed: 1 } }).catch((e: unknown) => e);
    expect((error as EngineError).code).toBe('bad-request');
    expect(a!.requests.length + b!.requests.length).toBe(1);
    expect(engine.endpointStats()[0]).toMatchObject({ state: 'healthy', failed: 1, consecutiveFailures: 0 });
  });

  it('cancels a call waiting for a slot without sending it', async () => {
    const [a] = await replicas(1, { delayMs: 300 });
    const engine = pool([a!], [1]);
    const busy = engine.generate(ask(0));
    const controller = new AbortController();
    const waiting = engine.generate(ask(1), controller.signal).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 30);
    expect(((await waiting) as EngineError).code).toBe('aborted');
    await busy;
    expect(completions(a!)).toBe(1);
  });
});

describe('calls of several requests', () => {
  it('a score call spreads its continuations over the pool and reports every endpoint that answered', async () => {
    const [a, b] = await replicas(2, { delayMs: 100 });
    const engine = pool([a!, b!], [2, 2], { scoring: 'echo-logprobs' });
    const report = newReport();
    const result = await engine.score({ prompt: 'The sky is', continuations: [' blue', ' green', ' grey', ' red'] }, undefined, report);
    expect(result.scores).toHaveLength(4);
    expect(report.attempts).toBe(4);
    expect([...report.servedBy].sort()).toEqual([a!.baseUrl, b!.baseUrl].sort());
    expect([completions(a!), completions(b!)]).toEqual([2, 2]);
  });
});

describe('per-endpoint statistics', () => {
  it('counts successes per minute, tokens from usage and latency at least the server delay', async () => {
    const [a, b] = await replicas(2, { delayMs: 50 });
    const engine = pool([a!, b!], [1, 1]);
    await Promise.all(Array.from({ length: 6 }, (_, i) => engine.generate(ask(i))));
    const stats = engine.endpointStats();
    expect(stats.map((s) => s.perMinute)).toEqual([3, 3]);
    // The fake's prompt 'question N' is 2 word tokens; 'You said: question N' is 4.
    expect(stats.map((s) => [s.promptTokens, s.completionTokens])).toEqual([
      [6, 12],
      [6, 12],
    ]);
    for (const s of stats) expect(s.meanLatencyMs).toBeGreaterThanOrEqual(45);
    expect(stats.every((s) => s.lastError === null && s.lastErrorAt === null)).toBe(true);
  });
});

describe('served revision', () => {
  it('reads vLLM’s root and llama.cpp’s meta from a GET /models entry', () => {
    expect(servedRevision({ id: 'llama', root: 'meta-llama/Llama-3.1-8B-Instruct' })).toBe('root=meta-llama/Llama-3.1-8B-Instruct');
    expect(servedRevision({ id: 'm.gguf', meta: { vocab_type: 2, n_vocab: 128256, n_ctx_train: 131072, n_embd: 4096, n_params: 8030261248, size: 4920734720 } })).toBe(
      'gguf:n_params=8030261248,size=4920734720,n_vocab=128256,vocab_type=2,n_embd=4096,n_ctx_train=131072',
    );
    expect(servedRevision({ id: 'gpt-4o-mini', owned_by: 'openai' })).toBeUndefined();
  });

  it('leaves out a replica serving other weights and names it in the statistics', async () => {
    const [a, b] = await replicas(2, { root: '/models/llama-8b-instruct' });
    b!.options.root = '/models/llama-8b-base';
    const engine = pool([a!, b!], [2, 2], { revision: 'root=/models/llama-8b-instruct', checkRevision: true });
    for (let i = 0; i < 4; i++) await engine.generate(ask(i));
    expect(completions(a!)).toBe(4);
    expect(completions(b!)).toBe(0);
    expect(b!.requestsTo('/v1/models')).toHaveLength(1);
    expect(a!.requestsTo('/v1/models')).toHaveLength(1); // checked once
    const sb = engine.endpointStats()[1]!;
    expect(sb.state).toBe('excluded');
    expect(sb.lastError).toContain('serves root=/models/llama-8b-base, not the recorded root=/models/llama-8b-instruct');
    expect(engine.capacity()).toBe(2);
  });

  it('refuses to run when no endpoint serves the recorded revision', async () => {
    const [a] = await replicas(1, { meta: { n_params: 1000, size: 2000 }, root: null });
    const engine = pool([a!], [1], { revision: 'gguf:n_params=999,size=2000', checkRevision: true });
    const error = await engine.generate(ask(0)).catch((e: unknown) => e);
    expect((error as EngineError).code).toBe('remote-error');
    expect((error as EngineError).message).toContain("no endpoint serves the model's recorded revision");
    expect((error as EngineError).message).toContain('serves gguf:n_params=1000,size=2000');
    expect(completions(a!)).toBe(0);
  });
});

describe('pool configuration', () => {
  it('gives each endpoint the engine’s maxConcurrency unless it has its own, and names bad fields', () => {
    const engine = new RemoteEngine({ model: 'm', maxConcurrency: 5, endpoints: [{ baseUrl: 'http://127.0.0.1:1/v1' }, { baseUrl: 'http://127.0.0.1:2/v1/', maxConcurrency: 2 }] });
    engines.push(engine);
    expect(engine.capacity()).toBe(7);
    expect(engine.endpointStats().map((s) => [s.baseUrl, s.limit])).toEqual([
      ['http://127.0.0.1:1/v1', 5],
      ['http://127.0.0.1:2/v1', 2],
    ]);
    const bad = (config: Partial<RemoteEngineConfig>) => () => new RemoteEngine({ model: 'm', ...config });
    expect(bad({ endpoints: [{ baseUrl: 'http://a/v1' }, { baseUrl: 'http://a/v1/' }] })).toThrow(/endpoints\[1\]\.baseUrl.*listed twice|listed twice/);
    expect(bad({ endpoints: [{ baseUrl: 'http://a/v1' }, { baseUrl: 'ftp://b/v1' }] })).toThrow(/endpoints\[1\]\.baseUrl/);
    expect(bad({ endpoints: [{ baseUrl: 'http://a/v1', maxConcurrency: 0 }] })).toThrow(/endpoints\[0\]\.maxConcurrency/);
    expect(bad({})).toThrow(/baseUrl/);
    expect(bad({ baseUrl: 'http://c/v1', endpoints: [{ baseUrl: 'http://a/v1' }] })).toThrow(/one of the endpoints/);
    expect(bad({ baseUrl: 'http://a/v1', checkRevision: true })).toThrow(/revision/);
  });

  it('keys the cache by model and revision, the same for every replica and URL', async () => {
    const one = new RemoteEngine({ baseUrl: 'http://127.0.0.1:1/v1', model: 'llama', revision: 'root=/w/llama', retries: 0 });
    const two = new RemoteEngine({ model: 'llama', revision: 'root=/w/llama', retries: 0, endpoints: [{ baseUrl: 'http://127.0.0.1:2/v1' }, { baseUrl: 'http://127.0.0.1:3/v1' }] });
    const other = new RemoteEngine({ baseUrl: 'http://127.0.0.1:1/v1', model: 'llama', revision: 'root=/w/llama-base', retries: 0 });
    engines.push(one, two, other);
    // Nothing listens on these ports: the key needs no server (a run can finish from the cache offline).
    const [k1, k2, k3] = await Promise.all([one, two, other].map(async (e) => (await e.identity()).modelKey));
    expect(k1).toBe('remote:llama@root=/w/llama');
    expect(k2).toBe(k1);
    expect(k3).toBe('remote:llama@root=/w/llama-base');
  });
});

describe('replicas share the call cache', () => {
  it('a call computed on one replica is a hit for a pool of other replicas; the cache row names the endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-pool-cache-'));
    const ws = openWorkspace(join(dir, 'w.fairground'));
    try {
      const repo = new CallCacheRepo(ws.db);
      const [a, b, c] = await replicas(3, { root: '/models/llama-8b' });
      const revision = 'root=/models/llama-8b';
      const first = new CachedEngine(pool([a!], [2], { revision, checkRevision: true }), repo);
      const computed = await Promise.all([0, 1, 2].map((i) => first.generate(ask(i))));
      expect(first.stats()).toMatchObject({ hits: 0, misses: 3 });
      const key = callCacheKey(await first.identity(), 'generate', ask(1));
      expect(repo.get(key)).toMatchObject({ modelKey: 'remote:fake-model@root=/models/llama-8b', servedBy: a!.baseUrl });

      // Other URLs, same served model: every call is a hit, no call reaches b or c (only GET /models
      // for the manifest's versions and the revision check).
      const second = new CachedEngine(pool([b!, c!], [1, 1], { revision, checkRevision: true }), repo);
      expect(await Promise.all([0, 1, 2].map((i) => second.generate(ask(i))))).toEqual(computed);
      expect(second.stats()).toMatchObject({ hits: 3, misses: 0 });
      expect(completions(b!) + completions(c!)).toBe(0);

      // A new call on the pool is computed there and recorded with the endpoint that served it.
      await second.generate(ask(3));
      const row = repo.get(callCacheKey(await second.identity(), 'generate', ask(3)));
      expect([b!.baseUrl, c!.baseUrl]).toContain(row?.servedBy);

      // Another revision of the same model name is another model: a miss.
      const [d] = await replicas(1, { root: '/models/llama-8b-base' });
      const other = new CachedEngine(pool([d!], [1], { revision: 'root=/models/llama-8b-base' }), repo);
      await other.generate(ask(0));
      expect(other.stats()).toMatchObject({ hits: 0, misses: 1 });
    } finally {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
