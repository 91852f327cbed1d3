/**
 * The model library service over a real workspace, the real llama.cpp engine on a generated tiny
 * model, and a loopback OpenAI-compatible server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { sha256File } from '../../src-main/engine/gguf/sha256File';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';

let dir: string;
let services: AppServices;
let modelPath: string;
let server: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-models-'));
  modelPath = join(dir, 'tiny.gguf');
  await writeTinyGguf(modelPath, { preset: 'tiny', seed: 7 });
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  services.settings.update({ threads: 1 });
  server = await FakeOpenAiServer.start({ models: ['lab-model'], apiKey: 'sk-secret-123' });
});

afterAll(async () => {
  await services.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ModelService', () => {
  it('adds a GGUF (header now, SHA-256 in a background job) and lists it', async () => {
    const added = await services.models.add(modelPath);
    expect(added).toMatchObject({ name: 'tiny', status: 'pending', sha256: null, metadata: { architecture: 'llama', hasChatTemplate: true } });
    const job = services.jobs.list().find((j) => j.kind === 'models.hash')!;
    const done = await services.jobs.wait(job.id);
    expect(done.status).toBe('succeeded');
    const listed = services.models.list()[0]!;
    expect(listed.sha256).toBe(await sha256File(modelPath));
    expect(listed.status).toBe('ready');
    expect(listed.effectiveSettings).toMatchObject({ threads: 1 });
  });

  it('refuses a non-GGUF file and a duplicate name with clear errors', async () => {
    const junk = join(dir, 'notes.gguf');
    writeFileSync(junk, 'hello, I am not a model');
    await expect(services.models.add(junk)).rejects.toThrow(/notes\.gguf/);
    await expect(services.models.add(modelPath)).rejects.toThrow(/already in the library/);
    await expect(services.models.add(join(dir, 'missing.gguf'))).rejects.toThrow(/no such file/);
  });

  it('tries a model greedily, then serves the same call from the cache', async () => {
    const id = services.models.list()[0]!.id;
    const first = await services.models.try({ kind: 'local', modelId: id }, { prompt: 'The capital of France is', maxTokens: 8, temperature: 0, chat: false });
    expect(first.fromCache).toBe(false);
    expect(first.completionTokens).toBeGreaterThan(0);
    const second = await services.models.try({ kind: 'local', modelId: id }, { prompt: 'The capital of France is', maxTokens: 8, temperature: 0, chat: false });
    expect(second).toMatchObject({ text: first.text, fromCache: true });
    expect(services.models.get(id).cachedCalls).toBe(1);
    expect(services.models.clearCache(id)).toBe(1);
    expect(services.models.get(id).cachedCalls).toBe(0);
  });

  it('records the context size the engine ran with (the trained 512), not the configured 4096 (issue 34 item 8c)', async () => {
    const id = services.models.list()[0]!.id;
    const ref = { kind: 'local', modelId: id } as const;
    // The tiny preset is trained for 512 tokens; no setting names a context, so 4096 is configured.
    expect(services.models.get(id).effectiveSettings).toMatchObject({ contextSize: 4096 });
    const ran = await services.models.engineFor(ref).tokenize({ texts: ['x'] });
    expect(ran.contextSize).toBe(512);
    // describe() feeds every manifest's sampler.contextSize (manifestRuntime) and the utility label records.
    expect(services.models.describe(ref).settings).toMatchObject({ contextSize: 512, contextSizeConfigured: 4096 });
  });

  it('validates settings through the API, naming the field', async () => {
    const router = createApiRouter(services);
    const id = services.models.list()[0]!.id;
    const bad = await router.call('models.updateSettings', { id, settings: { threads: 0 } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'validation', field: 'settings.threads' } });
    const good = await router.call('models.updateSettings', { id, settings: { contextSize: 256, threads: 1 } });
    expect(good).toMatchObject({ ok: true, data: { settings: { contextSize: 256, threads: 1 }, effectiveSettings: { contextSize: 256 } } });
  });

  it('registers an OpenAI-compatible server, generates through it, and never returns its key', async () => {
    const router = createApiRouter(services);
    const added = await router.call('remotes.add', { name: 'lab', baseUrl: server.baseUrl, model: 'lab-model', apiKey: 'sk-secret-123' });
    expect(added).toMatchObject({ ok: true, data: { name: 'lab', hasApiKey: true } });
    expect(JSON.stringify(added)).not.toContain('sk-secret-123');
    const id = (added as { data: { id: number } }).data.id;
    // remotes.add probed the server (serverProbe.ts): count the try's requests only.
    const probed = server.requestsTo('/v1/chat/completions').length;
    const tried = await router.call('remotes.try', { id, request: { prompt: 'hello there', chat: true } });
    expect(tried).toMatchObject({ ok: true, data: { fromCache: false } });
    expect(server.requestsTo('/v1/chat/completions')).toHaveLength(probed + 1);
    const listed = await router.call('remotes.list', {});
    expect(JSON.stringify(listed)).not.toContain('sk-secret-123');
    expect(services.models.describe({ kind: 'remote', endpointId: id })).not.toHaveProperty('apiKey');
  });
});

describe('withoutCredentials', () => {
  it('masks a user and password typed into a server URL and leaves other URLs alone', async () => {
    const { withoutCredentials } = await import('../../src-main/services/modelService');
    expect(withoutCredentials('http://alice:s3cret@10.0.0.5:8000/v1')).toBe('http://***@10.0.0.5:8000/v1');
    expect(withoutCredentials('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
    expect(withoutCredentials('not a url')).toBe('not a url');
  });
});
