/**
 * Prompt budgets against a real llama-server (issue 24 item 2), when the binary built by
 * scripts/build-llama-server.sh is cached (skipped otherwise): the remote engine's whole-prompt
 * count (`tokenize` with asPrompt: /tokenize with the special tokens, /apply-template for a chat
 * message) equals the prompt tokens the server reports for the same generation, and a Fair RAG
 * prompt over long documents rendered with the server's counts fits its budget as the server counts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { ModelTokenCounter } from '../../src-main/core/prompts/index';
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { promptRenderer } from '../../src-main/experiments/fair-rag/prompt';
import { tinyModels, type TinyModels } from '../engine/support/tinyModels';
import { llamaServerSkip, startLlamaServer, type LlamaServer } from '../support/llamaServer';

describe.skipIf(llamaServerSkip !== undefined)('prompt budgets on llama-server', () => {
  let models: TinyModels;
  let server: LlamaServer | undefined;
  let engine: RemoteEngine;
  beforeAll(async () => {
    models = tinyModels();
    server = await startLlamaServer(await models.model(1), { alias: 'tiny', contextSize: 512 });
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'tiny', serverKind: 'llama.cpp' });
  }, 120_000);
  afterAll(async () => {
    await engine?.close();
    await server?.stop();
    models?.cleanup();
  });

  it("counts a whole prompt as the server evaluates it (text: with BOS; chat: the server's template)", async () => {
    const prompt = 'The lighthouse keeper said';
    const asText = await engine.tokenize({ texts: [prompt], asPrompt: 'text' });
    expect(asText.source).toBe('server');
    const gen = await engine.generate({ prompt, maxTokens: 1, sampling: { temperature: 0 } });
    expect(asText.counts[0]).toBe(gen.promptTokens);
    const asChat = await engine.tokenize({ texts: [prompt], asPrompt: 'chat' });
    const chat = await engine.generate({ messages: [{ role: 'user', content: prompt }], maxTokens: 1, sampling: { temperature: 0 } });
    expect(asChat.counts[0]).toBe(chat.promptTokens);
  }, 120_000);

  it('a Fair RAG prompt over long documents fits its budget as the server counts it', async () => {
    const tokens = new ModelTokenCounter((texts, maxTokens, asPrompt) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }));
    const spec = {
      promptTemplate: '{{#documents separator=" | "}}{{text}}{{/documents}} Question: {{query}}',
      promptBudget: { unit: 'tokens', total: 496 },
      attribution: { judge: 'citation' },
      decoding: { maxTokens: 16, temperature: 0, chat: false },
    } as FairRagSpec;
    const long = (id: string) => ({ docId: id, title: '', text: Array.from({ length: 80 }, (_, i) => `${id} line ${i} of a long story.`).join(' '), attrs: {} });
    const render = promptRenderer(spec, tokens);
    const prompt = await tokens.settle(() => render({ text: 'Which one is it?', task: null, candidates: [long('a'), long('b')] }, ['a', 'b']));
    expect(prompt).toContain('Question: Which one is it?');
    const gen = await engine.generate({ prompt, maxTokens: 16, sampling: { temperature: 0 } });
    expect(gen.promptTokens).toBeLessThanOrEqual(496);
    expect(render.report()).toMatchObject({ unit: 'tokens', total: 496 });
  }, 120_000);
});
