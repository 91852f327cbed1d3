/**
 * Prompt budgets in a model's own tokens (#16.8): ModelTokenCounter answers the synchronous renderer
 * from counts and cuts fetched through an engine's tokenize, and `settle` re-renders until every
 * answer was fetched. With a tokenizer whose tokens are code points the result must equal the
 * charCounter rendering exactly; with the real tiny model the prompt and its query fit their budgets
 * as the model counts them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { charCounter, lampTemplates, ModelTokenCounter, renderPrompt, type TokenizeTexts } from '../../../src-main/core/prompts/index';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { promptRenderer } from '../../../src-main/experiments/fair-rag/prompt';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../../engine/support/tinyModels';

const codePoints: TokenizeTexts = async (texts, max) => ({
  counts: texts.map((t) => [...t].length),
  ...(max !== undefined ? { truncated: texts.map((t) => [...t].slice(0, max).join('')) } : {}),
});

const DOCS = [
  { id: 'a', title: '', text: 'A heist goes wrong when the crew discovers the vault is empty and the alarm never rang.', attrs: { tag: 'crime' } },
  { id: 'b', title: '', text: 'Two friends travel across the country to scatter ashes, arguing about music all the way.', attrs: { tag: 'comedy' } },
];
const QUERY = 'Which tag does this movie relate to among the following tags? Just answer with the tag name without further explanation.';

describe('ModelTokenCounter', () => {
  it('renders exactly what a counter with the same units renders, fetching in a few batched requests', async () => {
    const template = lampTemplates(2).augmented;
    const budget = { queryMax: 40, total: 150 };
    const counter = new ModelTokenCounter(codePoints);
    const settled = await counter.settle(() => renderPrompt(template, { query: QUERY, documents: DOCS }, { counter, ...budget }));
    expect(settled).toBe(renderPrompt(template, { query: QUERY, documents: DOCS }, { counter: charCounter, ...budget }));
    expect([...settled].length).toBeLessThanOrEqual(150);
    expect(counter.pending).toBe(false);
    expect(counter.requests).toBeLessThanOrEqual(12);
    // A second render needs nothing new.
    const before = counter.requests;
    expect(await counter.settle(() => renderPrompt(template, { query: QUERY, documents: DOCS }, { counter, ...budget }))).toBe(settled);
    expect(counter.requests).toBe(before);
  });

  it('answers provisionally (in words) until fetched, and refuses to loop forever', async () => {
    const counter = new ModelTokenCounter(codePoints);
    expect(counter.count('two words')).toBe(2);
    expect(counter.pending).toBe(true);
    await counter.fetch();
    expect(counter.count('two words')).toBe(9);
    expect(counter.truncate('two words', 0)).toBe('');
    let n = 0;
    await expect(counter.settle(() => counter.count(`fresh ${n++}`), 3)).rejects.toThrow(/did not settle after 3 passes/);
  });
});

describe('Fair RAG prompt budget in the generator’s tokens', () => {
  let models: TinyModels;
  let engine: LocalEngine;
  beforeAll(async () => {
    models = tinyModels();
    engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
  });
  afterAll(async () => {
    await engine?.close();
    models?.cleanup();
  });

  it('cuts the query and the whole prompt to their budgets as the model counts tokens', async () => {
    const tokens = new ModelTokenCounter(async (texts, maxTokens) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}) }));
    const specOf = (budget: { queryMax?: number; total: number; truncate?: 'paper-end' | 'documents' }) =>
      ({ promptBudget: { unit: 'tokens' as const, ...budget }, attribution: { judge: 'none' as const } }) as Parameters<typeof promptRenderer>[0];
    const query = { text: QUERY, task: 'LaMP-2', candidates: DOCS.map((d) => ({ docId: d.id, title: d.title, text: d.text, attrs: d.attrs })) };
    // The query (last in the LaMP-2 template) cut to 8 of the model's tokens; room for everything else.
    const roomy = await tokens.settle(() => promptRenderer(specOf({ queryMax: 8, total: 400 }), tokens)(query, ['a', 'b']));
    const cutQuery = (await engine.tokenize({ texts: [QUERY], maxTokens: 8 })).truncated![0]!;
    expect(cutQuery.length).toBeLessThan(QUERY.length);
    expect(roomy.endsWith(cutQuery)).toBe(true);
    expect(roomy).toContain(DOCS[1]!.text.slice(0, 30));
    // The whole prompt cut to 60 tokens at its end, as Fair-RAG's released code cuts (by name only).
    const spec = specOf({ total: 60, truncate: 'paper-end' });
    const tight = await tokens.settle(() => promptRenderer(spec, tokens)(query, ['a', 'b']));
    const count = (await engine.tokenize({ texts: [tight] })).counts[0]!;
    expect(count).toBeLessThanOrEqual(60);
    expect(count).toBeGreaterThan(40);
    // The query alone is 67 tiny-model tokens (with the SentencePiece space prefix the model adds to a prompt), more than the total: every document's share
    // ⌊(60 − 67) / 2⌋ is 0 tokens, and the cut keeps the template text and the start of the query.
    expect((await engine.tokenize({ texts: [QUERY] })).counts[0]).toBe(67);
    expect(tight).not.toContain('heist');
    expect(QUERY.startsWith(tight.slice(tight.indexOf('Which tag')))).toBe(true);
    expect(() => promptRenderer(spec)).toThrow(/needs the generator's tokenizer/);
    // By default the question is never cut: documents go first, and when the question and the
    // template alone (69 tokens: the 67 of the query and the template's own) exceed 60, rendering fails naming both sizes.
    await expect(tokens.settle(() => promptRenderer(specOf({ total: 60 }), tokens)(query, ['a', 'b']))).rejects.toThrow(
      /the prompt without its documents takes 69 tokens, more than the budget of 60 tokens \(promptBudget.total\)/,
    );
  });
});
