/**
 * `remotes.add` asks the server before recording it (issue 24 items 3, 4, 8): unreachable
 * endpoints and unlisted model names fail (naming what the server lists), capabilities are
 * probed and stored, weights the server's report cannot tell apart get a fingerprint checked on
 * every endpoint, specs needing scoring are refused on servers without prompt log-probabilities,
 * and "try" on an unreachable server fails in seconds. Against loopback stand-in servers; the
 * real llama-server is in test/engine/remote/llamaServerIdentity.test.ts.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import type { Router } from '../../src-main/api/router';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { loadDemoCollection, DEMO_COLLECTION_NAME } from '../../src-main/services/collectionsDemo';
import { engineConfigOf, modelKeyOf, identityOf, type RemoteRow } from '../../src-main/services/remoteModels';
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { runCliCaptured } from '../support/cli';

let dir: string;
let s: AppServices;
let router: Router;
let plain: FakeOpenAiServer; // vLLM-like: reports root
let noRoot: FakeOpenAiServer; // reports nothing about the weights
let noRootTwin: FakeOpenAiServer; // the same "weights"
let noRootOther: FakeOpenAiServer; // other "weights" under the same name
let llamaLike: FakeOpenAiServer; // llama.cpp-like: GGUF meta, echo ignored
let deadUrl: string;

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-remote-probe-'));
  s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  router = createApiRouter(s);
  await loadDemoCollection(s);
  const meta = { n_params: 1000, size: 2000, n_vocab: 32, vocab_type: 1, n_embd: 8, n_ctx_train: 512 };
  [plain, noRoot, noRootTwin, noRootOther, llamaLike] = await Promise.all([
    FakeOpenAiServer.start({ models: ['m', 'other-model'], root: '/w/m', constraintFields: ['response_format', 'guided_json'] }),
    FakeOpenAiServer.start({ models: ['m'], root: null }),
    FakeOpenAiServer.start({ models: ['m'], root: null }),
    FakeOpenAiServer.start({ models: ['m'], root: null, replyPrefix: 'Other weights. ' }),
    FakeOpenAiServer.start({ models: ['m'], root: null, meta, echo: 'ignore' }),
  ]);
  deadUrl = `http://127.0.0.1:${await closedPort()}/v1`;
});
afterAll(async () => {
  await s.close();
  await Promise.all([plain, noRoot, noRootTwin, noRootOther, llamaLike].map((x) => x.close()));
  rmSync(dir, { recursive: true, force: true });
});

const add = (input: Record<string, unknown>) => router.call('remotes.add', input);
const row = (name: string) => s.workspace.db.prepare(`SELECT * FROM remote_endpoints WHERE name=?`).get(name) as RemoteRow;

describe('remotes.add probes the server', () => {
  it('fails in seconds on an unreachable endpoint, naming it, and stores nothing', async () => {
    const t0 = performance.now();
    const out = await add({ name: 'dead', baseUrl: deadUrl, model: 'm' });
    expect(performance.now() - t0).toBeLessThan(6_000);
    expect(out).toMatchObject({ ok: false, error: { code: 'validation', field: 'endpoints', message: expect.stringContaining(`${deadUrl} cannot be reached`) } });
    // No command-line flag in a message the UI shows (issue 34 item 9).
    expect((out as { error: { message: string } }).error.message).toMatch(/\(add it without asking the servers to record it anyway, marked unverified\)$/);
    expect((out as { error: { message: string } }).error.message).not.toMatch(/--[a-z]/);
    expect((out as { error: { message: string } }).error.message).toContain('ECONNREFUSED');
    expect(s.models.listRemotes().map((r) => r.name)).not.toContain('dead');
  });

  it('fails on a model name the server does not list, naming what it lists', async () => {
    const out = await add({ name: 'typo', baseUrl: plain.baseUrl, model: 'm-typo' });
    expect(out).toMatchObject({ ok: false, error: { code: 'validation', field: 'model', message: `${plain.baseUrl} does not serve "m-typo": it lists "m", "other-model"` } });
    expect(s.models.listRemotes().map((r) => r.name)).not.toContain('typo');
  });

  it('records what the server does: routes, echo scoring, prompt_logprobs, each constraint transport', async () => {
    const out = await add({ name: 'vllm', baseUrl: plain.baseUrl, model: 'm', serverKind: 'vllm', timeoutSeconds: 7 });
    expect(out.ok).toBe(true);
    const info = (out as { data: Record<string, unknown> }).data;
    expect(info).toMatchObject({
      revision: 'root=/w/m',
      identity: { source: 'reported', verified: true },
      timeoutMs: 7000,
      capabilities: {
        completions: { value: 'yes' },
        chat: { value: 'yes' },
        echoScoring: { value: 'yes' },
        promptLogprobs: { value: 'no' },
        constraints: {
          // The stand-in honours response_format and guided_json, and ignores llama.cpp's fields.
          'completions.response_format': { value: 'yes' },
          'completions.guided_json': { value: 'yes' },
          'chat.response_format': { value: 'yes' },
          'completions.json_schema': { value: 'no' },
          'completions.grammar': { value: 'no' },
          'completions.structured_outputs': { value: 'no' },
        },
      },
    });
    // The timeout reaches the engine's configuration.
    expect(engineConfigOf(row('vllm')).timeoutMs).toBe(7000);
    const changed = await router.call('remotes.updateSettings', { id: info.id, timeoutSeconds: 12 });
    expect(changed).toMatchObject({ ok: true, data: { timeoutMs: 12_000 } });
    expect(engineConfigOf(row('vllm')).timeoutMs).toBe(12_000);
  });

  it('marks a server that ignores echo as unable to score, and --no-probe as unverified', async () => {
    const out = await add({ name: 'llamalike', baseUrl: llamaLike.baseUrl, model: 'm', serverKind: 'llama.cpp' });
    expect(out).toMatchObject({ ok: true, data: { capabilities: { echoScoring: { value: 'no', detail: expect.stringContaining('echo ignored') } } } });
    const offline = await add({ name: 'offline', baseUrl: deadUrl, model: 'm', probe: false });
    expect(offline).toMatchObject({ ok: true, data: { capabilities: null, identity: { source: 'none', verified: false, note: expect.stringContaining('added without asking the servers: not known to be reachable') } } });
  });
});

describe('weights identity', () => {
  it('fingerprints weights a server does not report, and refuses a pool whose endpoints serve other weights', async () => {
    const out = await add({ name: 'fp', endpoints: [{ baseUrl: noRoot.baseUrl }, { baseUrl: noRootTwin.baseUrl }], model: 'm', serverKind: 'vllm' });
    expect(out).toMatchObject({ ok: true, data: { identity: { source: 'fingerprint', verified: true }, revision: expect.stringMatching(/^;fingerprint=[0-9a-f]{16}$/) } });
    expect(modelKeyOf(row('fp'))).toBe(`remote:m@${row('fp') && (JSON.parse(row('fp').settings) as { revision: string }).revision}`);

    const mixed = await add({ name: 'mixed', endpoints: [{ baseUrl: noRoot.baseUrl }, { baseUrl: noRootOther.baseUrl }], model: 'm', serverKind: 'vllm' });
    expect(mixed).toMatchObject({ ok: false, error: { code: 'validation', message: expect.stringContaining(`the endpoints serve different weights under one name: ${noRootOther.baseUrl} differs from ${noRoot.baseUrl}`) } });

    // An endpoint with other weights cannot join the recorded pool later either.
    const id = (out as { data: { id: number } }).data.id;
    const joined = await router.call('remotes.updateEndpoints', { id, endpoints: [{ baseUrl: noRoot.baseUrl }, { baseUrl: noRootOther.baseUrl }] });
    expect(joined).toMatchObject({ ok: false, error: { message: expect.stringContaining(`${noRootOther.baseUrl} serves other weights (fingerprint: `) } });
    expect(s.models.listRemotes().find((r) => r.name === 'fp')!.endpoints.map((e) => e.baseUrl)).toEqual([noRoot.baseUrl, noRootTwin.baseUrl]);
  });

  it('leaves an endpoint serving other weights out of the running pool (checked before its first call)', async () => {
    const config = { ...engineConfigOf(row('fp')), endpoints: [{ baseUrl: noRootOther.baseUrl }, { baseUrl: noRoot.baseUrl }], retries: 2, backoffBaseMs: 1, backoffMaxMs: 5, jitter: false };
    const engine = new RemoteEngine(config);
    try {
      const before = noRootOther.requestsTo('/v1/completions').length;
      for (let i = 0; i < 4; i++) {
        const r = await engine.generate({ prompt: `question ${i}`, maxTokens: 16, sampling: { temperature: 0 } });
        expect(r.text.startsWith('Other weights')).toBe(false);
      }
      // The other-weights endpoint got only the fingerprint's requests (3), none of the calls.
      expect(noRootOther.requestsTo('/v1/completions').length - before).toBe(3);
      expect(engine.endpointStats().find((e) => e.baseUrl === noRootOther.baseUrl)).toMatchObject({ state: 'excluded', lastError: expect.stringContaining('serves other weights') });
    } finally {
      await engine.close();
    }
  });

  it('checks the weights again when a run starts: a server restarted with other weights between runs is caught', async () => {
    const solo = await add({ name: 'solo', baseUrl: noRootTwin.baseUrl, model: 'm', serverKind: 'vllm' });
    const id = (solo as { data: { id: number } }).data.id;
    const engine = s.models.engineFor({ kind: 'remote', endpointId: id });
    const request = (prompt: string) => ({ prompt, maxTokens: 16, sampling: { temperature: 0 as const } });
    expect((await engine.generate(request('first run'))).text).toBe('You said: first run');
    noRootTwin.options.replyPrefix = 'Other weights. ';
    try {
      // Without a new check the checked endpoint would answer with the other weights.
      s.models.recheckRemoteWeights();
      await expect(engine.generate(request('second run'))).rejects.toThrow(/serves other weights/);
    } finally {
      noRootTwin.options.replyPrefix = '';
    }
  });

  it('keeps the cache key of a model added before weight checks, and says it is unverified', () => {
    const settings = { serverKind: 'llama.cpp', maxConcurrency: 4, revision: 'gguf:n_params=1000,size=2000', checkRevision: true };
    s.workspace.db
      .prepare(`INSERT INTO remote_endpoints(name, base_url, model, api_key, settings, added_at) VALUES (?, ?, ?, NULL, ?, ?)`)
      .run('old', llamaLike.baseUrl, 'm', JSON.stringify(settings), '2026-01-01T00:00:00Z');
    expect(modelKeyOf(row('old'))).toBe('remote:m@gguf:n_params=1000,size=2000');
    expect(identityOf(row('old'))).toEqual({ source: 'reported', verified: false, note: expect.stringContaining('added before weight checks') });
    expect(s.models.listRemotes().find((r) => r.name === 'old')).toMatchObject({ identity: { verified: false } });
  });
});

describe('capabilities at spec validation', () => {
  const moi = (generator: Record<string, unknown>) => ({ kind: 'moi', name: 'cap', collection: DEMO_COLLECTION_NAME, queries: ['ma-q1'], n: 4, generator });

  it('refuses MoI on a server without prompt log-probabilities, naming the capability and the engines that have it', async () => {
    const v = s.experiments.validateSpec(moi({ remote: 'llamalike' }));
    expect(v.ok).toBe(false);
    expect(v.issues).toEqual([
      {
        path: 'generator',
        message: expect.stringMatching(/^MoI scores every passage ordering with the agent, which needs prompt log-probabilities; server 'llamalike' \(llama\.cpp\) has none \(probed at remote add: echo ignored/),
      },
    ]);
    expect(v.issues[0]!.message).toContain('Engines that have them: a local llama.cpp model (fairground model add) or a vLLM server');
    // A llama.cpp server never asked is known to lack them too; a server that scores passes.
    await add({ name: 'llama-offline', baseUrl: deadUrl, model: 'm', serverKind: 'llama.cpp', probe: false });
    expect(s.experiments.validateSpec(moi({ remote: 'llama-offline' })).issues[0]?.message).toContain("llama.cpp's server returns no prompt log-probabilities");
    expect(s.experiments.validateSpec(moi({ remote: 'vllm' }))).toMatchObject({ ok: true });
  });

  it('refuses it in the CLI too', async () => {
    const specPath = join(dir, 'moi.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(specPath, JSON.stringify(moi({ remote: 'llamalike' })));
    await s.close();
    const out = await runCliCaptured(['run', specPath, '--workspace', 'w.fairground'], { cwd: dir });
    s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
    router = createApiRouter(s);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('generator: MoI scores every passage ordering with the agent, which needs prompt log-probabilities');
  });
});

describe('trying a remote model', () => {
  it('fails in seconds on an unreachable server (no retries), and model try accepts remote models', async () => {
    const id = s.models.listRemotes().find((r) => r.name === 'offline')!.id;
    const t0 = performance.now();
    const out = await router.call('remotes.try', { id, request: { prompt: 'hello' } });
    expect(performance.now() - t0).toBeLessThan(6_000);
    expect(out).toMatchObject({ ok: false, error: { code: 'engine', message: expect.stringContaining("'offline' cannot be reached") } });

    await s.close();
    const tried = await runCliCaptured(['model', 'try', 'vllm', '--prompt', 'hello there', '--max-tokens', '3', '--workspace', 'w.fairground'], { cwd: dir });
    const down = await runCliCaptured(['model', 'try', 'offline', '--prompt', 'hello', '--workspace', 'w.fairground'], { cwd: dir });
    s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
    router = createApiRouter(s);
    // The stand-in's toy model: "You said: <prompt>", cut at 3 word tokens.
    expect(tried).toMatchObject({ code: 0, stdout: 'You said: hello\n' });
    expect(down).toMatchObject({ code: 1, stderr: expect.stringContaining("'offline' cannot be reached") });
  });
});
