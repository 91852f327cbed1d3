/**
 * Prompt budgets counted as the engine counts (issue 24 item 2), on the real tiny GGUF through
 * node-llama-cpp: `tokenize` with `asPrompt` gives exactly the prompt tokens generate() evaluates
 * (beginning-of-sequence token, chat template); the Fair RAG renderer keeps every prompt within
 * context − maxTokens by default (so a prompt over long documents runs instead of failing), counts
 * the citation instruction inside an explicit total, never cuts the question, and fails naming the
 * sizes when the question alone does not fit. The remote estimate never undercounts the demo texts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { ModelTokenCounter } from '../../src-main/core/prompts/index';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { ESTIMATE_PROMPT_MARGIN, estimateTokenCount } from '../../src-main/engine/tokenBudget';
import { promptRenderer, type PromptQuery } from '../../src-main/experiments/fair-rag/prompt';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../engine/support/tinyModels';

let models: TinyModels;
let engine: LocalEngine;
beforeAll(async () => {
  models = tinyModels();
  engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
}, 120_000);
afterAll(async () => {
  await engine?.close();
  models?.cleanup();
});

const counter = (chat = false) =>
  new ModelTokenCounter((texts, maxTokens, asPrompt) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }), undefined, chat ? 'chat' : 'text');

const LONG = (seed: string) => Array.from({ length: 60 }, (_, i) => `${seed} sentence ${i} tells of a lighthouse keeper, a parrot and a storm.`).join(' ');
const QUESTION = 'Which tag does this movie relate to? Answer with the tag name only.';
const query: PromptQuery = {
  text: QUESTION,
  task: null,
  candidates: ['a', 'b', 'c'].map((id) => ({ docId: id, title: '', text: LONG(id), attrs: {} })),
};
const specOf = (over: Partial<FairRagSpec>) =>
  ({
    promptTemplate: '{{#documents separator="\\n"}}[{{index}}] {{text}}{{/documents}}\nQuestion: {{query}}',
    attribution: { judge: 'none' },
    decoding: { maxTokens: 16, temperature: 0, chat: false },
    ...over,
  }) as FairRagSpec;

describe('prompt tokens as the engine counts them', () => {
  it("asPrompt: 'text' adds the beginning-of-sequence token and equals generate's promptTokens; 'chat' the chat template", async () => {
    const prompt = 'The lighthouse keeper said';
    const plain = (await engine.tokenize({ texts: [prompt] })).counts[0]!;
    const asText = await engine.tokenize({ texts: [prompt], asPrompt: 'text' });
    expect(asText.contextSize).toBe(512);
    expect(asText.counts[0]).toBe(plain + 1);
    const gen = await engine.generate({ prompt, maxTokens: 1, sampling: { temperature: 0 } });
    expect(gen.promptTokens).toBe(asText.counts[0]);
    const asChat = (await engine.tokenize({ texts: [prompt], asPrompt: 'chat' })).counts[0]!;
    const chat = await engine.generate({ messages: [{ role: 'user', content: prompt }], maxTokens: 1, sampling: { temperature: 0 } });
    expect(chat.promptTokens).toBe(asChat);
    expect(asChat).toBeGreaterThan(plain + 1);
  }, 120_000);

  it('no budget in the spec: the prompt fits context − maxTokens (496), the question whole, and the generation runs', async () => {
    const tokens = counter();
    await tokens.probe();
    const render = promptRenderer(specOf({}), tokens);
    const prompt = await tokens.settle(() => render(query, ['a', 'b', 'c']));
    const full = (await engine.tokenize({ texts: [LONG('a')] })).counts[0]!;
    expect(full * 3).toBeGreaterThan(1500); // the documents alone are three times the context
    const seen = (await engine.tokenize({ texts: [prompt], asPrompt: 'text' })).counts[0]!;
    expect(seen).toBeLessThanOrEqual(496);
    expect(seen).toBeGreaterThan(480); // documents are cut only as far as needed
    expect(prompt.endsWith(`\nQuestion: ${QUESTION}`)).toBe(true);
    expect(prompt.startsWith(`[1] ${LONG('a').slice(0, 200)}`)).toBe(true); // the top-ranked document first and whole
    const report = render.report()!;
    expect(report).toMatchObject({ unit: 'tokens', total: 496, origin: 'the context size 512 − maxTokens 16', truncate: 'documents', prompts: 1, promptsCut: 1, queriesCut: 0 });
    expect(report.documentsDropped + report.documentsCut).toBeGreaterThan(0);
    const gen = await engine.generate({ prompt, maxTokens: 16, sampling: { temperature: 0 } });
    expect(gen.promptTokens).toBe(seen);
  }, 180_000);

  it('chat: the template is counted too, and the chat generation fits', async () => {
    const tokens = counter(true);
    await tokens.probe();
    const spec = specOf({ decoding: { maxTokens: 16, temperature: 0, chat: true } });
    const prompt = await tokens.settle(() => promptRenderer(spec, tokens)(query, ['a', 'b', 'c']));
    const gen = await engine.generate({ messages: [{ role: 'user', content: prompt }], maxTokens: 16, sampling: { temperature: 0 } });
    expect(gen.promptTokens).toBeLessThanOrEqual(496);
    expect(gen.promptTokens).toBeGreaterThan(470);
  }, 180_000);

  it('the citation instruction is counted inside an explicit total (480 gave 522 when it was added after the cut)', async () => {
    const tokens = counter();
    await tokens.probe();
    const spec = specOf({ promptBudget: { unit: 'tokens', total: 480 }, attribution: { judge: 'citation' } as FairRagSpec['attribution'] });
    const prompt = await tokens.settle(() => promptRenderer(spec, tokens)(query, ['a', 'b', 'c']));
    expect(prompt.endsWith('\n\nCite every document you use by its number in square brackets, for example [1].')).toBe(true);
    expect(prompt).toContain(`Question: ${QUESTION}`);
    const seen = (await engine.tokenize({ texts: [prompt], asPrompt: 'text' })).counts[0]!;
    expect(seen).toBeLessThanOrEqual(480);
    // A total above what the context leaves is lowered to it, and the report says so.
    const big = promptRenderer(specOf({ promptBudget: { unit: 'tokens', total: 5000 } }), tokens);
    const p2 = await tokens.settle(() => big(query, ['a', 'b', 'c']));
    expect((await engine.tokenize({ texts: [p2], asPrompt: 'text' })).counts[0]).toBeLessThanOrEqual(496);
    expect(big.report()).toMatchObject({ total: 496, origin: 'the context size 512 − maxTokens 16 (promptBudget.total 5000 lowered to fit the context)' });
  }, 180_000);

  it('a question that does not fit on its own fails naming the sizes; paper-end cuts it, by name', async () => {
    const tokens = counter();
    await tokens.probe();
    const long = { ...query, text: LONG('q') };
    const qTokens = (await engine.tokenize({ texts: [`\nQuestion: ${LONG('q')}`], asPrompt: 'text' })).counts[0]!;
    expect(qTokens).toBeGreaterThan(496);
    await expect(tokens.settle(() => promptRenderer(specOf({}), tokens)(long, ['a']))).rejects.toThrow(
      /the prompt without its documents takes \d+ tokens, more than the budget of 496 tokens \(the context size 512 − maxTokens 16\)/,
    );
    const paper = promptRenderer(specOf({ promptBudget: { unit: 'tokens', truncate: 'paper-end' } }), tokens);
    const cut = await tokens.settle(() => paper(long, ['a']));
    expect(cut).not.toContain('Question:');
    expect((await engine.tokenize({ texts: [cut], asPrompt: 'text' })).counts[0]).toBeLessThanOrEqual(496);
    expect(paper.report()).toMatchObject({ truncate: 'paper-end', queriesCut: 1 });
  }, 180_000);

  it("the remote estimate (UTF-8 bytes + 1) never undercounts the demo texts in the tiny model's tokens", async () => {
    const dir = join(__dirname, '../../resources/demo');
    const texts: string[] = [];
    for (const file of ['documents.jsonl', 'queries.jsonl']) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) if (line.trim()) texts.push((JSON.parse(line) as { text: string }).text);
    }
    const demo = texts.length;
    texts.push(LONG('x'), 'Ünïcödé — “quotes” 1234567890 ½ 日本語のテキスト');
    const counts = (await engine.tokenize({ texts })).counts;
    const asPrompt = (await engine.tokenize({ texts, asPrompt: 'text' })).counts;
    let worst = 0;
    let worstDemo = 0;
    texts.forEach((t, i) => {
      expect(estimateTokenCount(t)).toBeGreaterThanOrEqual(counts[i]!);
      expect(estimateTokenCount(t) + ESTIMATE_PROMPT_MARGIN.text).toBeGreaterThanOrEqual(asPrompt[i]!);
      worst = Math.max(worst, counts[i]! / Buffer.byteLength(t, 'utf8'));
      if (i < demo) worstDemo = Math.max(worstDemo, counts[i]! / Buffer.byteLength(t, 'utf8'));
    });
    console.log(`estimate check: ${texts.length} texts, most tokens per UTF-8 byte ${worst.toFixed(3)} (demo texts: ${worstDemo.toFixed(3)}; bytes / 4 assumes 0.25)`);
    expect(worstDemo).toBeGreaterThan(0.25); // why bytes / 4 undercounted
  }, 120_000);
});
