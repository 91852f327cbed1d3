/**
 * A remote engine whose GET /models failed once does not keep a version-less identity for its
 * life (issue 24, "Identity lookups spread out"): the identity is provisional (saying why, and
 * still naming the recorded revision), the call cache does not keep it, the next need asks again
 * in the background no more often than the back-off allows, and the calls computed meanwhile are
 * stored under the same key as with the full identity (the revision is part of it). A server that
 * has no /models (404) is an answer, kept as before. Against the fault stand-in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedEngine, callCacheKey } from '../../../src-main/engine/callCache';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import type { RemoteEngineConfig } from '../../../src-main/engine/remote/remoteEngineConfig';
import type { GenerateRequest } from '../../../src-main/engine/types';
import { CallCacheRepo } from '../../../src-main/store/callCacheRepo';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';

let server: FakeOpenAiServer;
let engines: RemoteEngine[];
const revision = 'root=/w/m';

beforeEach(async () => {
  server = await FakeOpenAiServer.start({ models: ['m'], root: '/w/m' });
  engines = [];
});
afterEach(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await server.close();
});

function engine(over: Partial<RemoteEngineConfig> = {}): RemoteEngine {
  const e = new RemoteEngine({ baseUrl: server.baseUrl, model: 'm', revision, checkRevision: false, retries: 0, identityRetryMs: 100, identityRetryMaxMs: 400, ...over });
  engines.push(e);
  return e;
}
const lookups = () => server.requestsTo('/v1/models').length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(ok: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(20);
  }
}
const ask = (i: number): GenerateRequest => ({ prompt: `question ${i}`, maxTokens: 4, sampling: { temperature: 0 } });

describe('RemoteEngine.identity after a failed GET /models', () => {
  it('is provisional (saying why, naming the revision), asked again after the back-off, then complete and kept', async () => {
    const e = engine();
    server.failNext(1, { status: 500, message: 'models are loading' });
    const first = await e.identity();
    expect(first.modelKey).toBe('remote:m@root=/w/m');
    expect(first.provisional).toMatch(/^GET \/models failed: .*HTTP 500: models are loading/);
    expect(first.versions).toEqual({ 'remote.identity': expect.stringMatching(/^incomplete: GET \/models failed \(.*HTTP 500.*\) at \d{4}-.*; asked again when next needed$/), 'remote.revision': revision });

    // Within the back-off: no new request.
    expect(await e.identity()).toBe(first);
    expect(lookups()).toBe(1);
    await sleep(150);
    // Due: the need is answered at once with what is known, and the lookup goes on in the background.
    expect(await e.identity()).toBe(first);
    // (The 500 put the endpoint in its pool back-off, which the lookup waits out.)
    await until(() => lookups() === 2 && e.identity().then((i) => i.provisional === undefined));
    const full = await e.identity();
    expect(full.provisional).toBeUndefined();
    expect(full.versions).toMatchObject({ 'remote.model': 'm', 'remote.modelRoot': '/w/m', 'remote.servedRevision': revision, 'remote.revision': revision });
    expect(full.modelKey).toBe(first.modelKey);
    expect(full.outputAffectingSettings).toEqual(first.outputAffectingSettings);
    await e.identity();
    expect(lookups()).toBe(2);
  });

  it('asks a server that keeps failing no more often than the doubling back-off allows', async () => {
    const e = engine();
    server.options.failAll = { status: 503 };
    const t0 = Date.now();
    const times: number[] = [];
    let seen = 0;
    while (Date.now() - t0 < 1_300) {
      await e.identity();
      if (lookups() > seen) {
        seen = lookups();
        times.push(Date.now() - t0);
      }
      await sleep(10);
    }
    // Back-off 100, 200, 400, 400 … ms after each failure: at most 1 + 1.3 s / ≥100 ms-spaced, here ≤ 6
    // (fewer when the pool's own back-off after a 503 holds the lookup longer, as on a loaded machine).
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(90);
    expect((await e.identity()).provisional).toBeDefined();
  });

  it('keeps the answer of a server without /models (404): not provisional, not asked again', async () => {
    server.options.modelsEndpoint = false;
    const e = engine();
    const identity = await e.identity();
    expect(identity.provisional).toBeUndefined();
    expect(identity.versions).toEqual({});
    await sleep(150);
    await e.identity();
    expect(lookups()).toBe(1);
  });
});

describe('the call cache over a remote engine whose GET /models failed', () => {
  let dir: string;
  let ws: Workspace;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fg-identity-retry-'));
    ws = openWorkspace(join(dir, 'w.fairground'));
  });
  afterEach(() => {
    ws.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not keep the provisional identity: calls are stored under the revision key, and the manifest versions become complete', async () => {
    const repo = new CallCacheRepo(ws.db);
    const inner = engine();
    const cached = new CachedEngine(inner, repo);
    server.failNext(1, { status: 502 });
    const signal = new AbortController().signal;
    const a = await cached.generate(ask(0), signal);
    const provisional = await cached.identity();
    expect(provisional.provisional).toBeDefined();
    // Stored under the recorded revision: the same key the full identity gives.
    const key = callCacheKey(provisional, 'generate', ask(0));
    expect(repo.get(key)).toMatchObject({ modelKey: 'remote:m@root=/w/m', response: a });

    await sleep(150);
    await cached.generate(ask(1), signal); // the next need (same run signal) asks again, in the background
    await until(() => inner.identity().then((i) => i.provisional === undefined));
    const full = await cached.identity();
    expect(full.provisional).toBeUndefined();
    expect(full.versions['remote.modelRoot']).toBe('/w/m');
    expect(callCacheKey(full, 'generate', ask(0))).toBe(key);
    expect(await cached.generate(ask(0), signal)).toEqual(a);
    expect(cached.stats()).toMatchObject({ hits: 1, misses: 2 });
    expect(lookups()).toBe(2);
  });

  it('a hanging GET /models holds the calls once, not on every call of the back-off window', async () => {
    const repo = new CallCacheRepo(ws.db);
    const inner = engine({ timeoutMs: 400, identityRetryMs: 60_000, identityRetryMaxMs: 60_000 });
    const cached = new CachedEngine(inner, repo);
    server.failNext(1, { hang: true });
    const signal = new AbortController().signal;
    const t0 = performance.now();
    await cached.generate(ask(0), signal);
    const firstMs = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 1; i <= 5; i++) await cached.generate(ask(i), signal);
    const restMs = performance.now() - t1;
    expect(firstMs).toBeGreaterThanOrEqual(350);
    expect(restMs).toBeLessThan(350);
    expect(lookups()).toBe(1);
    expect((await cached.identity()).provisional).toMatch(/GET \/models failed/);
  });
});
