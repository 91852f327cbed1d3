/**
 * Remote models with several endpoints through the API (issue 13 item 3): the revision recorded
 * from the servers, replicas that disagree refused, rows written before pools read unchanged,
 * endpoints replaced without changing the cache identity, per-endpoint stats.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';

let dir: string;
let services: AppServices;
let router: ReturnType<typeof createApiRouter>;
const fakes: FakeOpenAiServer[] = [];

async function fake(root: string, delayMs = 0): Promise<FakeOpenAiServer> {
  const f = await FakeOpenAiServer.start({ models: ['llama-8b'], root, delayMs });
  fakes.push(f);
  return f;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-pools-'));
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  router = createApiRouter(services);
});

afterAll(async () => {
  await services.close();
  await Promise.all(fakes.map((f) => f.close()));
  rmSync(dir, { recursive: true, force: true });
});

type Ok<T> = { ok: true; data: T };
const data = <T>(r: unknown): T => {
  expect(r).toMatchObject({ ok: true });
  return (r as Ok<T>).data;
};

describe('remote model pools through the API', () => {
  it('records the revision the replicas report, dispatches over them and reports per-endpoint stats', async () => {
    const [a, b] = [await fake('/models/llama-8b-instruct', 40), await fake('/models/llama-8b-instruct', 40)];
    const added = data<{ id: number; baseUrl: string; endpoints: unknown; revision: string | null; settings: Record<string, unknown> }>(
      await router.call('remotes.add', { name: 'pool', model: 'llama-8b', endpoints: [{ baseUrl: a.baseUrl, maxConcurrency: 2 }, { baseUrl: b.baseUrl }], maxConcurrency: 3 }),
    );
    expect(added.baseUrl).toBe(a.baseUrl);
    expect(added.endpoints).toEqual([
      { baseUrl: a.baseUrl, maxConcurrency: 2, effectiveConcurrency: 2 },
      { baseUrl: b.baseUrl, maxConcurrency: 3, effectiveConcurrency: 3 },
    ]);
    expect(added.revision).toBe('root=/models/llama-8b-instruct');
    expect(services.models.describe({ kind: 'remote', endpointId: added.id })).toMatchObject({ modelKey: 'remote:llama-8b@root=/models/llama-8b-instruct' });

    const engine = services.models.engineFor({ kind: 'remote', endpointId: added.id });
    await Promise.all(Array.from({ length: 10 }, (_, i) => engine.generate({ prompt: `q${i}`, maxTokens: 4, sampling: { temperature: 0 } })));
    const stats = data<{ capacity: number; endpoints: Array<{ baseUrl: string; succeeded: number; state: string }> }>(await router.call('remotes.stats', { id: added.id }));
    expect(stats.capacity).toBe(5);
    expect(stats.endpoints.map((e) => e.baseUrl)).toEqual([a.baseUrl, b.baseUrl]);
    expect(stats.endpoints.reduce((n, e) => n + e.succeeded, 0)).toBe(10);
    expect(stats.endpoints.every((e) => e.succeeded > 0 && e.state === 'healthy')).toBe(true);
    // The work queue's bound is the pool's capacity.
    expect(engine.queueStats()).toMatchObject({ capacity: 5 });
    // Each computed call's cache row names the endpoint that served it.
    const rows = services.workspace.db.prepare(`SELECT served_by AS s, count(*) AS n FROM llm_call_cache GROUP BY served_by ORDER BY served_by`).all();
    expect(rows).toEqual(
      [a.baseUrl, b.baseUrl]
        .sort()
        .map((s) => ({ s, n: stats.endpoints.find((e) => e.baseUrl === s)!.succeeded })),
    );
  });

  it('refuses replicas that serve different weights, naming them', async () => {
    const [a, b] = [await fake('/models/llama-8b-instruct'), await fake('/models/llama-8b-base')];
    const refused = await router.call('remotes.add', { name: 'mixed', model: 'llama-8b', endpoints: [{ baseUrl: a.baseUrl }, { baseUrl: b.baseUrl }] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'validation', field: 'endpoints' } });
    expect(JSON.stringify(refused)).toContain(`${b.baseUrl} root=/models/llama-8b-base`);
    expect(data<unknown[]>(await router.call('remotes.list', {})).map((r) => (r as { name: string }).name)).not.toContain('mixed');
  });

  it('reads a row written before pools as a pool of one with no revision, and keys it by model name', async () => {
    const a = await fake('/models/old');
    services.workspace.db
      .prepare(`INSERT INTO remote_endpoints(name, base_url, model, api_key, settings, added_at) VALUES ('old', ?, 'llama-8b', NULL, ?, 'then')`)
      .run(a.baseUrl, JSON.stringify({ serverKind: 'vllm', maxConcurrency: 3 }));
    const old = data<Array<{ id: number; name: string; endpoints: unknown; revision: unknown }>>(await router.call('remotes.list', {})).find((r) => r.name === 'old')!;
    expect(old).toMatchObject({ endpoints: [{ baseUrl: a.baseUrl, maxConcurrency: 3 }], revision: null });
    expect(services.models.describe({ kind: 'remote', endpointId: old.id })).toMatchObject({ modelKey: 'remote:llama-8b' });
    const tried = data<{ text: string }>(await router.call('remotes.try', { id: old.id, request: { prompt: 'hello' } }));
    expect(tried.text).toBe('You said: hello');
  });

  it('replaces endpoints keeping the identity; a replica with other weights is refused', async () => {
    const [a, b, c] = [await fake('/models/x'), await fake('/models/x'), await fake('/models/y')];
    const added = data<{ id: number; revision: string }>(await router.call('remotes.add', { name: 'grow', model: 'llama-8b', baseUrl: a.baseUrl }));
    expect(added.revision).toBe('root=/models/x');
    const grown = data<{ endpoints: unknown; revision: string; baseUrl: string }>(
      await router.call('remotes.updateEndpoints', { id: added.id, endpoints: [{ baseUrl: a.baseUrl }, { baseUrl: b.baseUrl, maxConcurrency: 8 }] }),
    );
    expect(grown).toMatchObject({ baseUrl: a.baseUrl, revision: 'root=/models/x', endpoints: [{ baseUrl: a.baseUrl, maxConcurrency: 4 }, { baseUrl: b.baseUrl, maxConcurrency: 8 }] });
    const refused = await router.call('remotes.updateEndpoints', { id: added.id, endpoints: [{ baseUrl: a.baseUrl }, { baseUrl: c.baseUrl }] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'validation', field: 'endpoints' } });
  });

  it('keeps a stated revision, asks no server when probe is false, and names a bad endpoint field', async () => {
    const stated = data<{ revision: string }>(
      await router.call('remotes.add', { name: 'offline', model: 'llama-8b', baseUrl: 'http://127.0.0.1:9/v1', revision: 'sha256:abc', probe: false }),
    );
    expect(stated.revision).toBe('sha256:abc');
    const dup = await router.call('remotes.add', { name: 'dup', model: 'm', endpoints: [{ baseUrl: 'http://127.0.0.1:9/v1' }, { baseUrl: 'http://127.0.0.1:9/v1/' }], probe: false });
    expect(dup).toMatchObject({ ok: false, error: { code: 'validation', field: 'endpoints[1].baseUrl' } });
    const none = await router.call('remotes.add', { name: 'none', model: 'm' });
    expect(none).toMatchObject({ ok: false, error: { code: 'validation' } });
  });
});
