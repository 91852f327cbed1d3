/**
 * RichRAG's prompt budgets in the model's own tokens (issue 24 item 2), on the real tiny GGUF through
 * node-llama-cpp (context 512): the answer prompt and the list-wise ranker's step prompts are counted
 * as the engine counts them (generate's promptTokens equals the budget's count), fit context −
 * maxTokens by default, cut only the documents' texts (to a common cap; a short document stays
 * whole), never the question or the sub-aspects, and are refused naming the sizes when the rest does
 * not fit. `docWords` keeps its old rendering when set. Without a tokenizer the estimate is marked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { estimateTokenize } from '../../../src-main/engine/tokenBudget';
import { generationPrompt, generationPromptWithin } from '../../../src-main/experiments/richrag/generation';
import { rankListwise, type RankerCandidate } from '../../../src-main/experiments/richrag/listwiseRanker';
import { RichRagBudget, waterLevel, type TokenizeFn } from '../../../src-main/experiments/richrag/promptBudget';
import { budgetWarnings } from '../../../src-main/experiments/richrag/metrics';
import { indexRunItems } from '../../../src-main/experiments/richrag/items';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../../engine/support/tinyModels';

let models: TinyModels;
let engine: LocalEngine;
let tokenize: TokenizeFn;
beforeAll(async () => {
  models = tinyModels();
  engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
  tokenize = (r) => engine.tokenize(r);
}, 120_000);
afterAll(async () => {
  await engine?.close();
  models?.cleanup();
});

const LONG = (seed: string, n = 40) => Array.from({ length: n }, (_, i) => `${seed} line ${i} tells of a keeper, a parrot and a storm.`).join(' ');
const QUESTION = 'What happened to the lighthouse keeper and his parrot during the storm?';
const ASPECTS = ['the keeper', 'the parrot', 'the storm'];
const GENERATION = {
  template: 'Answer from the sources.\n{{sources}}\nQuestion: {{query}}\nAspects:\n{{aspects}}\nAnswer:',
  closedBookTemplate: 'Question: {{query}}\nAnswer in one line:',
  docWords: null,
};
const docs = [
  { title: 'A', text: LONG('alpha') },
  { title: 'B', text: 'A short note about the parrot.' },
  { title: 'C', text: LONG('gamma') },
];

const countPrompt = async (prompt: string, chat = false) => (await engine.tokenize({ texts: [prompt], asPrompt: chat ? 'chat' : 'text' })).counts[0]!;

describe('waterLevel', () => {
  it('is the largest common cap whose capped sum fits (hand-computed)', () => {
    expect(waterLevel([10, 2, 30], 100)).toBe(30); // everything fits
    expect(waterLevel([10, 2, 30], 22)).toBe(10); // 10 + 2 + 10 = 22
    expect(waterLevel([10, 2, 30], 21)).toBe(9); // 9 + 2 + 9 = 20 ≤ 21 < 10 + 2 + 10
    expect(waterLevel([10, 2, 30], 5)).toBe(1); // a cap of 2 would take 2 + 2 + 2 = 6 > 5
    expect(waterLevel([10, 2, 30], 0)).toBe(0);
  });
});

describe('the answer prompt within the generator budget (tiny model, context 512)', () => {
  it('defaults to context − maxTokens, counts as generate does, cuts the long sources only, keeps the question and aspects', async () => {
    const budget = await RichRagBudget.create(tokenize, { chat: false, requested: undefined, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
    expect(budget.total).toBe(496);
    expect(budget.origin).toBe('the context size 512 − generation.maxTokens 16');
    const full = generationPrompt(GENERATION, QUESTION, docs, ASPECTS);
    expect(await countPrompt(full)).toBeGreaterThan(900); // the uncut prompt would not fit the context
    const fit = await generationPromptWithin(GENERATION, budget, QUESTION, docs, ASPECTS, 'the answer prompt');
    const seen = await countPrompt(fit.prompt);
    expect(fit.tokens).toBe(seen);
    expect(seen).toBeLessThanOrEqual(496);
    expect(seen).toBeGreaterThan(480); // cut only as far as needed
    expect(fit.prompt.endsWith(`\nQuestion: ${QUESTION}\nAspects:\n- the keeper\n- the parrot\n- the storm\nAnswer:`)).toBe(true);
    // Every source keeps its place; the short one is whole, the long ones are cut to one cap.
    expect(fit.documentsCut).toBe(2);
    expect(fit.prompt).toContain('\nSource 2: B: A short note about the parrot.\n');
    const lines = fit.prompt.split('\n');
    const a = lines.find((l) => l.startsWith('Source 1: A: '))!.slice('Source 1: A: '.length);
    const c = lines.find((l) => l.startsWith('Source 3: C: '))!.slice('Source 3: C: '.length);
    expect(LONG('alpha').startsWith(a)).toBe(true);
    expect(LONG('gamma').startsWith(c)).toBe(true);
    const [na, nc] = (await engine.tokenize({ texts: [a, c] })).counts;
    expect(na).toBe(fit.cap);
    expect(nc).toBe(fit.cap);
    // The generation runs and the engine evaluates exactly the tokens counted.
    const gen = await engine.generate({ prompt: fit.prompt, maxTokens: 16, sampling: { temperature: 0 } });
    expect(gen.promptTokens).toBe(seen);
    expect(budget.report()).toMatchObject({ unit: 'tokens', total: 496, prompts: 1, promptsCut: 1, documentsCut: 2 });
  }, 180_000);

  it('a prompt that fits is rendered exactly as before; docWords still cuts words first (the old rendering)', async () => {
    const budget = await RichRagBudget.create(tokenize, { chat: false, requested: undefined, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
    const withWords = { ...GENERATION, docWords: 3 };
    const fit = await generationPromptWithin(withWords, budget, QUESTION, docs, ASPECTS, 'the answer prompt');
    expect(fit.prompt).toBe(
      'Answer from the sources.\nSource 1: A: alpha line 0 …\nSource 2: B: A short note …\nSource 3: C: gamma line 0 …\n' +
        `Question: ${QUESTION}\nAspects:\n- the keeper\n- the parrot\n- the storm\nAnswer:`,
    );
    expect(fit.documentsCut).toBe(0);
    expect(fit.tokens).toBe(await countPrompt(fit.prompt));
  }, 120_000);

  it('chat prompts count the chat template, and the chat generation fits', async () => {
    const budget = await RichRagBudget.create(tokenize, { chat: true, requested: undefined, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
    const fit = await generationPromptWithin(GENERATION, budget, QUESTION, docs, ASPECTS, 'the answer prompt');
    expect(fit.tokens).toBe(await countPrompt(fit.prompt, true));
    const gen = await engine.generate({ messages: [{ role: 'user', content: fit.prompt }], maxTokens: 16, sampling: { temperature: 0 } });
    expect(gen.promptTokens).toBe(fit.tokens);
    expect(gen.promptTokens).toBeLessThanOrEqual(496);
    expect(gen.promptTokens).toBeGreaterThan(470);
  }, 180_000);

  it('a spec total is kept when it fits and lowered (said so) when not; a question that cannot fit is refused naming the sizes', async () => {
    const small = await RichRagBudget.create(tokenize, { chat: false, requested: 200, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
    expect([small.total, small.origin]).toEqual([200, 'generation.promptBudget.total']);
    const fit = await generationPromptWithin(GENERATION, small, QUESTION, docs, ASPECTS, 'the answer prompt');
    expect(await countPrompt(fit.prompt)).toBeLessThanOrEqual(200);
    expect(fit.prompt).toContain(`Question: ${QUESTION}\n`);
    const big = await RichRagBudget.create(tokenize, { chat: false, requested: 5000, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
    expect([big.total, big.origin]).toEqual([496, 'the context size 512 − generation.maxTokens 16 (generation.promptBudget.total 5000 lowered to fit the context)']);
    const longQuestion = LONG('why', 30);
    const err = await generationPromptWithin(GENERATION, big, longQuestion, docs, ASPECTS, "the answer prompt (listwise, golden)").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    const bare = await countPrompt(generationPrompt(GENERATION, longQuestion, docs.map((d) => ({ ...d, text: '' })), ASPECTS));
    expect(bare).toBeGreaterThan(496);
    expect((err as DataError).message).toContain(`the answer prompt (listwise, golden) is `);
    expect((err as DataError).message).toContain(`tokens and ${bare} without any document text (the question, sub-aspects, titles and template are never cut); the budget is 496 (the context size 512 − generation.maxTokens 16 (generation.promptBudget.total 5000 lowered to fit the context))`);
    expect((err as DataError).field).toBe('generation.promptBudget');
    // Closed-book: no documents to cut, so the same refusal.
    await expect(generationPromptWithin(GENERATION, big, longQuestion, null, [], 'the answer prompt (closed-book)')).rejects.toThrow(/never cut/);
  }, 180_000);

  it('without a tokenizer the estimate budgets (an upper bound) and is marked as one', async () => {
    const estimated: TokenizeFn = (r) => Promise.resolve(estimateTokenize(r, 'test: a server without /tokenize', 512));
    const budget = await RichRagBudget.create(estimated, { chat: false, requested: undefined, reserve: 16, reserveName: 'generation.maxTokens', field: 'generation.promptBudget' });
    const fit = await generationPromptWithin(GENERATION, budget, QUESTION, docs, ASPECTS, 'the answer prompt');
    expect(budget.estimated).toBe(true);
    expect(await countPrompt(fit.prompt)).toBeLessThanOrEqual(fit.tokens!); // an upper bound of the model's count
    expect(fit.tokens).toBeLessThanOrEqual(496);
    const report = budget.report();
    expect(report.unit).toBe('estimated tokens');
    expect(report.estimate?.reason).toBe('test: a server without /tokenize');
    expect(report.counts).toContain('an upper-bound estimate');
  }, 120_000);
});

describe('the list-wise ranker within its budget (tiny model, context 512)', () => {
  it('every step prompt fits and shows every window candidate, cut alike at every step, with the query and aspects whole', async () => {
    const budget = await RichRagBudget.create(tokenize, { chat: false, requested: undefined, reserve: 5, reserveName: "a step's maxTokens", field: 'ranker.promptBudget' });
    expect(budget.total).toBe(507);
    const candidates: RankerCandidate[] = ['p', 'q', 'r', 's', 't'].map((s, i) => ({ id: `doc-${s}`, label: `D${i + 1}`, title: s.toUpperCase(), text: LONG(s, 15), aspects: [ASPECTS[i % 3]!] }));
    const prompts: string[] = [];
    const counted: number[] = [];
    const recording = {
      async generate(request: Parameters<LocalEngine['generate']>[0]) {
        const r = await engine.generate(request);
        prompts.push(request.prompt!);
        counted.push(r.promptTokens);
        return r;
      },
    };
    const result = await rankListwise(
      recording,
      { query: QUESTION, aspects: ASPECTS, candidates, k: 2 },
      { template: 'Q: {{query}}\nAspects:\n{{aspects}}\n{{candidates}}\nChosen: {{selected}}\nNext: ', window: 4, docWords: null, mode: 'grammar', chat: false, sampling: () => ({ temperature: 0 }), budget },
    );
    expect(result.ranking).toHaveLength(2);
    expect(prompts.length).toBe(4); // 2 windows × k = 2 steps
    for (const n of counted) expect(n).toBeLessThanOrEqual(507);
    expect(Math.max(...counted)).toBeGreaterThan(480);
    expect(result.budget!.maxPromptTokens).toBe(Math.max(...counted));
    expect(result.budget!.windowsCut).toBe(2);
    for (const p of prompts) expect(p.startsWith(`Q: ${QUESTION}\nAspects:\n1. the keeper\n2. the parrot\n3. the storm\n`)).toBe(true);
    // Within a window the candidates' lines are the same at both steps (only "Chosen" differs), all four shown.
    const body = (p: string) => p.slice(0, p.indexOf('\nChosen: '));
    expect(body(prompts[1]!)).toBe(body(prompts[0]!));
    expect(body(prompts[3]!)).toBe(body(prompts[2]!));
    expect(body(prompts[0]!).split('\n').filter((l) => /^\[D\d\] /.test(l))).toHaveLength(4);
  }, 300_000);
});

describe('budget warnings', () => {
  it('name the prompts cut and the estimated ones from the stored payloads', () => {
    const gen = (cut: number, estimated: boolean) => ({ key: '', queryId: 'q', condition: `c${cut}${estimated}`, sample: null, payload: { type: 'generation', budget: { tokens: 10, total: 10, documentsCut: cut, ...(estimated ? { estimated: true } : {}) } } });
    const data = indexRunItems([gen(0, false), gen(2, false), gen(3, true)]);
    expect(budgetWarnings(data)).toEqual([
      "2 of 3 answer prompts had their sources' texts cut to fit the generator's token budget (5 sources in all; the question and sub-aspects were kept): see each generation's budget and the manifest's promptBudget",
      '1 prompts were budgeted by an estimate of their tokens (no tokenizer answered: an upper bound, so documents were cut more than needed)',
    ]);
  });
});
