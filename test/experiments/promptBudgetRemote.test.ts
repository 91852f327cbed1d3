/**
 * A remote model without a tokenizer (issue 24 item 2): the Fair RAG budget is counted by the
 * stated upper-bound estimate, and the run says so — the renderer's report (stats, manifest) has
 * unit 'estimated tokens' with the method, margin and reason, and the results' warnings name the
 * estimate and the cuts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { ModelTokenCounter } from '../../src-main/core/prompts/index';
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { ESTIMATE_PROMPT_MARGIN, estimateTokenCount } from '../../src-main/engine/tokenBudget';
import type { GenerationPayload } from '../../src-main/experiments/fair-rag/items';
import { promptBudgetWarnings } from '../../src-main/experiments/fair-rag/metrics';
import { promptRenderer } from '../../src-main/experiments/fair-rag/prompt';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { fastRetries } from '../engine/remote/remoteTestSetup';

let server: FakeOpenAiServer | undefined;
let engine: RemoteEngine | undefined;
afterEach(async () => {
  await engine?.close();
  await server?.close();
});

describe('prompt budget on a remote model without a tokenizer', () => {
  it("is counted by the estimate (an upper bound) and reported as 'estimated tokens'", async () => {
    server = await FakeOpenAiServer.start({ tokenizer: 'llama.cpp' });
    server.options.failAll = { status: 501, message: 'tokenizer not supported' };
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', ...fastRetries });
    const tokens = new ModelTokenCounter((texts, maxTokens, asPrompt) => engine!.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }));
    await tokens.probe();
    server.options.failAll = undefined;
    const spec = {
      promptTemplate: '{{#documents separator=" | "}}{{text}}{{/documents}} Q: {{query}}',
      promptBudget: { unit: 'tokens', total: 120 },
      attribution: { judge: 'none' },
      decoding: { maxTokens: 16, temperature: 0, chat: false },
    } as FairRagSpec;
    const render = promptRenderer(spec, tokens);
    const doc = (id: string) => ({ docId: id, title: '', text: `${id} `.repeat(40).trim(), attrs: {} });
    const prompt = await tokens.settle(() => render({ text: 'which one?', task: null, candidates: [doc('aa'), doc('bb')] }, ['aa', 'bb']));
    expect(prompt.endsWith(' Q: which one?')).toBe(true);
    expect(estimateTokenCount(prompt) + ESTIMATE_PROMPT_MARGIN.text).toBeLessThanOrEqual(120);
    expect(render.report()).toMatchObject({
      unit: 'estimated tokens',
      total: 120,
      origin: 'promptBudget.total',
      estimate: { method: expect.stringMatching(/UTF-8 bytes \+ 1/), margin: expect.stringMatching(/\+2 tokens per text prompt/), reason: expect.stringMatching(/tokenizer failed.*501/) },
      prompts: 1,
      promptsCut: 1,
    });
  });

  it('the results warn about estimated budgets and what was cut', () => {
    const g = (over: Partial<GenerationPayload>) => ({ type: 'generation', prompt: 'p', ...over }) as GenerationPayload;
    const generations = new Map([
      ['a', g({ budgetEstimated: true, budgetCuts: { documentsCut: 1, documentsDropped: 2, queryCut: false } })],
      ['b', g({ budgetEstimated: true })],
      ['c', g({ budgetEstimated: true, budgetCuts: { documentsCut: 0, documentsDropped: 1, queryCut: true } })],
    ]);
    expect(promptBudgetWarnings({ queries: new Map(), samples: new Map(), generations, judgments: new Map() })).toEqual([
      'the prompt budget cut 2 of 3 prompts: 1 documents shortened, 3 left out (from the end of the ranking), the question cut in 1',
      "3 of 3 prompts were budgeted by an estimate of their tokens (no tokenizer answered): see the manifest's promptBudget",
    ]);
    expect(promptBudgetWarnings({ queries: new Map(), samples: new Map(), generations: new Map([['b', g({})]]), judgments: new Map() })).toEqual([]);
  });
});
