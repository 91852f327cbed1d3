/**
 * The default prompt budget of a remote model comes from the server's context (issue 24 item 2):
 * `remote add` asks the servers for the context one request may use (contextProbe.ts), stores it, and
 * the remote engine's `tokenize` answers it, so a RichRAG budget defaults to context − maxTokens as on
 * the local engine. Against a real llama-server (-c 384 -np 2: its per-slot context, padded to 256,
 * is what it enforces), a pool taking the smallest context, and a vLLM-shaped stand-in
 * (`max_model_len`). A server that reports nothing says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeContextSize } from '../../src-main/engine/remote/contextProbe';
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { RichRagBudget } from '../../src-main/experiments/richrag/promptBudget';
import { generationPromptWithin } from '../../src-main/experiments/richrag/generation';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { engineConfigOf, type RemoteRow } from '../../src-main/services/remoteModels';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { llamaServerSkip, startLlamaServer, type LlamaServer } from '../support/llamaServer';
import { tinyModels, type TinyModels } from './support/tinyModels';

let dir: string;
let s: AppServices;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-remote-context-'));
  s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
});
afterAll(() => {
  s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const rowOf = (id: number) => s.workspace.db.prepare('SELECT * FROM remote_endpoints WHERE id=?').get(id) as RemoteRow;

describe('a vLLM-shaped server', () => {
  it('reports max_model_len: stored at remote add, answered by tokenize, the default budget', async () => {
    const server = await FakeOpenAiServer.start({ models: ['m'], tokenizer: 'vllm' });
    try {
      expect(await probeContextSize({ baseUrl: server.baseUrl, apiKey: undefined, timeoutMs: 5000 }, 'm')).toEqual({ size: 4096, source: 'GET /models max_model_len' });
      const added = await s.models.addRemote({ name: 'vllm-like', baseUrl: server.baseUrl, model: 'm', serverKind: 'vllm', maxConcurrency: 1 });
      expect(added.settings.context).toEqual({ size: 4096, source: 'GET /models max_model_len' });
      const engine = new RemoteEngine(engineConfigOf(rowOf(added.id)));
      try {
        const budget = await RichRagBudget.create((r) => engine.tokenize(r), { chat: false, requested: undefined, reserve: 500, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
        expect([budget.total, budget.origin]).toEqual([3596, 'the context size 4096 − generation.maxTokens 500']);
      } finally {
        await engine.close();
      }
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a server that reports no context size is added with a warning saying so, and no default budget', async () => {
    const server = await FakeOpenAiServer.start({ models: ['m'], modelsEndpoint: false });
    try {
      const probe = await probeContextSize({ baseUrl: server.baseUrl, apiKey: undefined, timeoutMs: 5000 }, 'm');
      expect(probe.size).toBeUndefined();
      expect((probe as { reason: string }).reason).toMatch(/^the server reports no context size \(GET \/props: HTTP 404; GET \/slots: HTTP 404; GET \/models: HTTP 404\)$/);
      const added = await s.models.addRemote({ name: 'bare', baseUrl: server.baseUrl, model: 'm', serverKind: 'openai', maxConcurrency: 1 });
      expect(added.settings.context).toMatchObject({ size: null });
      expect(added.warnings.filter((w) => w.startsWith(`no context size: ${server.baseUrl}: the server reports no context size (GET /props: HTTP 404;`))).toHaveLength(1);
      const engine = new RemoteEngine(engineConfigOf(rowOf(added.id)));
      try {
        const budget = await RichRagBudget.create((r) => engine.tokenize(r), { chat: false, requested: undefined, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
        expect(budget.total).toBeUndefined();
        expect(budget.report()).toMatchObject({ unit: 'none', origin: 'none (the engine did not report its context size and the spec sets no total)' });
      } finally {
        await engine.close();
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe.skipIf(llamaServerSkip !== undefined)('a real llama-server', () => {
  let models: TinyModels;
  let one: LlamaServer;
  let two: LlamaServer;
  beforeAll(async () => {
    models = tinyModels();
    const path = await models.model(1);
    [one, two] = await Promise.all([startLlamaServer(path, { alias: 'tiny', contextSize: 384, parallel: 2 }), startLlamaServer(path, { alias: 'tiny', contextSize: 512, parallel: 1 })]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    models?.cleanup();
  });

  it("reports one slot's context (-c 384 -np 2 → 256, what it enforces); the budget defaults to it and the prompt is accepted", async () => {
    expect(await probeContextSize({ baseUrl: one.baseUrl, apiKey: undefined, timeoutMs: 5000 }, 'tiny')).toEqual({ size: 256, source: 'GET /props default_generation_settings.n_ctx (one slot)' });
    const added = await s.models.addRemote({ name: 'llama', baseUrl: one.baseUrl, model: 'tiny', serverKind: 'llama.cpp', maxConcurrency: 1 });
    expect(added.settings.context).toEqual({ size: 256, source: 'GET /props default_generation_settings.n_ctx (one slot)' });
    const engine = new RemoteEngine(engineConfigOf(rowOf(added.id)));
    try {
      // A prompt over the slot's context is refused by the server (what the budget prevents).
      const long = Array.from({ length: 40 }, (_, i) => `line ${i} of the keeper's log.`).join(' ');
      await expect(engine.generate({ prompt: long.repeat(3), maxTokens: 4, sampling: { temperature: 0 } })).rejects.toThrow(/context/);
      const budget = await RichRagBudget.create((r) => engine.tokenize(r), { chat: false, requested: undefined, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
      expect([budget.total, budget.origin]).toEqual([240, 'the context size 256 − generation.maxTokens 16']);
      const generation = { template: '{{sources}}\nQuestion: {{query}}\nAnswer:', closedBookTemplate: '{{query}}', docWords: null };
      const fit = await generationPromptWithin(generation, budget, 'What did the keeper log?', [{ title: 'Log', text: long }, { title: 'Log 2', text: long }], [], 'the answer prompt');
      expect(fit.documentsCut).toBe(2);
      const gen = await engine.generate({ prompt: fit.prompt, maxTokens: 16, sampling: { temperature: 0 } });
      expect(gen.promptTokens).toBe(fit.tokens);
      expect(gen.promptTokens).toBeLessThanOrEqual(240);
      expect(gen.promptTokens).toBeGreaterThan(220);
    } finally {
      await engine.close();
    }
  }, 180_000);

  it('a pool takes the smallest context of its endpoints, and says they differ', async () => {
    const added = await s.models.addRemote({ name: 'pool', endpoints: [{ baseUrl: two.baseUrl }, { baseUrl: one.baseUrl }], model: 'tiny', serverKind: 'llama.cpp', maxConcurrency: 1 });
    expect(added.settings.context).toEqual({
      size: 256,
      source: `GET /props default_generation_settings.n_ctx (one slot) (the endpoints differ: ${two.baseUrl} 512, ${one.baseUrl} 256; the smallest is used)`,
    });
  }, 180_000);
});
