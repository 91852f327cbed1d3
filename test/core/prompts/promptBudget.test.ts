/**
 * Budgets that count the whole prompt (issue 24 item 2): the suffix (an instruction added after
 * rendering) and what the engine adds (`measure`, here a beginning-of-sequence token: +1) are
 * inside the total; 'documents' cuts documents from the end of the ranking and never the question;
 * 'paper-end' is Fair-RAG's released code (the end of the prompt, the question too). Hand-counted
 * in words.
 */
import { describe, expect, it } from 'vitest';
import { PromptBudgetError, renderPrompt, renderPromptWithin } from '../../../src-main/core/prompts/promptTemplate';
import { wordCounter, type PromptBudget } from '../../../src-main/core/prompts/tokenBudget';

const TEMPLATE = '{{#documents separator=" | "}}{{text}}{{/documents}} Q: {{query}}';
const DOCS = ['a1 a2 a3 a4', 'b1 b2 b3 b4', 'c1 c2 c3 c4'].map((text, i) => ({ id: `d${i + 1}`, title: '', text }));
const CTX = { query: 'q1 q2 q3', documents: DOCS };
const withBos = (p: string) => wordCounter.count(p) + 1;

describe('a budget over the whole prompt', () => {
  it('documents: the last document is dropped, then the one before is shortened; the question and the instruction stay', () => {
    // Whole: 18 words + 'Cite.' + BOS = 20 > 13. Excess 7 > the 4 words of c: c is dropped (15, excess 2);
    // b is cut to 4 − 2 = 2 words: 4 + 1 + 2 + 1 + 3 + 1 = 12 words + BOS = 13.
    const budget: PromptBudget = { counter: wordCounter, total: 13, share: false, truncate: 'documents', suffix: ' Cite.', measure: withBos };
    const { prompt, cuts } = renderPromptWithin(TEMPLATE, CTX, budget);
    expect(prompt).toBe('a1 a2 a3 a4 | b1 b2 Q: q1 q2 q3 Cite.');
    expect(cuts).toEqual({ queryCut: false, documentsCut: 1, documentsDropped: 1, endCut: false, size: 13 });
  });

  it("documents with Fair-RAG's equal share: each item gets ⌊(13 − 3) / 3⌋ = 3 words, then the last is dropped", () => {
    // 3 + 1 + 3 + 1 + 3 + 1 + 3 + 1 = 16 words + BOS = 17 > 13: c (3 words, excess 4) is dropped → 13.
    const { prompt, cuts } = renderPromptWithin(TEMPLATE, CTX, { counter: wordCounter, total: 13, truncate: 'documents', suffix: ' Cite.', measure: withBos });
    expect(prompt).toBe('a1 a2 a3 | b1 b2 b3 Q: q1 q2 q3 Cite.');
    expect(cuts).toMatchObject({ documentsCut: 2, documentsDropped: 1, queryCut: false, size: 13 });
  });

  it('documents: a prompt that fits is left as it is', () => {
    const { prompt, cuts } = renderPromptWithin(TEMPLATE, CTX, { counter: wordCounter, total: 20, share: false, truncate: 'documents', suffix: ' Cite.', measure: withBos });
    expect(prompt).toBe(`${renderPrompt(TEMPLATE, CTX)} Cite.`);
    expect(cuts).toEqual({ queryCut: false, documentsCut: 0, documentsDropped: 0, endCut: false, size: 20 });
  });

  it('documents: a counter whose cuts never shorten what it counts makes it give up naming that, not the question', () => {
    // truncate() hands the text back whole: the last document (4 words, excess 7) is dropped, then cutting b never shrinks the prompt.
    const stuck = { unit: 'words', count: wordCounter.count, truncate: (text: string) => text };
    const budget: PromptBudget = { counter: stuck, total: 13, share: false, truncate: 'documents', suffix: ' Cite.', measure: withBos };
    expect(() => renderPromptWithin(TEMPLATE, CTX, budget)).toThrow(PromptBudgetError);
    expect(() => renderPromptWithin(TEMPLATE, CTX, budget)).toThrow(
      /^promptBudget: the prompt could not be fitted to its budget of 13 words: after \d+ passes it still takes 15 words with 2 of its 3 documents, because cutting a document and counting the whole prompt disagree/,
    );
  });

  it('documents: when the question and the instructions alone do not fit, it fails naming both sizes', () => {
    // ' Q: q1 q2 q3 Cite.' = 5 words + BOS = 6 > 5.
    const budget: PromptBudget = { counter: wordCounter, total: 5, share: false, truncate: 'documents', suffix: ' Cite.', measure: withBos, origin: 'the context size 21 − maxTokens 16' };
    expect(() => renderPromptWithin(TEMPLATE, CTX, budget)).toThrow(PromptBudgetError);
    expect(() => renderPromptWithin(TEMPLATE, CTX, budget)).toThrow(
      'the prompt without its documents takes 6 words (instructions included), more than the budget of 5 words (the context size 21 − maxTokens 16)',
    );
  });

  it("paper-end: the end is cut (the question with it) until the prompt, instruction and BOS included, fits", () => {
    // 13 words kept + 'Cite.' + BOS = 15 > 13 → 11 words kept: 11 + 1 + 1 = 13.
    const { prompt, cuts } = renderPromptWithin(TEMPLATE, CTX, { counter: wordCounter, total: 13, share: false, truncate: 'paper-end', suffix: ' Cite.', measure: withBos });
    expect(prompt).toBe('a1 a2 a3 a4 | b1 b2 b3 b4 | c1 Cite.');
    expect(cuts).toMatchObject({ endCut: true, queryCut: true, size: 13 });
  });

  it('documents: on random prompts (seeded) every result fits, keeps the question whole and keeps a prefix of the ranking', () => {
    const seed = Number(process.env.FG_TEST_SEED ?? Date.now() % 1_000_000);
    console.log(`promptBudget random prompts: seed ${seed} (FG_TEST_SEED=${seed} repeats it)`);
    let state = seed >>> 0 || 1;
    const rand = (n: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state % n;
    };
    const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
    for (let trial = 0; trial < 200; trial++) {
      const docs = Array.from({ length: 1 + rand(5) }, (_, i) => ({ id: `d${i}`, title: '', text: words(`x${i}_`, 1 + rand(30)) }));
      const query = words('q', 1 + rand(10));
      const total = 3 + rand(80);
      const budget: PromptBudget = { counter: wordCounter, total, share: rand(2) === 0, truncate: 'documents', suffix: ' Cite them.', measure: withBos };
      let out: ReturnType<typeof renderPromptWithin>;
      try {
        out = renderPromptWithin(TEMPLATE, { query, documents: docs }, budget);
      } catch (err) {
        // Only when the question, the template and the instruction alone exceed the total.
        expect(err).toBeInstanceOf(PromptBudgetError);
        expect(withBos(` Q: ${query} Cite them.`)).toBeGreaterThan(total);
        continue;
      }
      expect(out.cuts.size).toBe(withBos(out.prompt));
      expect(out.cuts.size!).toBeLessThanOrEqual(total);
      expect(out.prompt.endsWith(` Q: ${query} Cite them.`)).toBe(true);
      const kept = out.prompt.slice(0, out.prompt.length - ` Q: ${query} Cite them.`.length);
      const items = kept === '' ? [] : kept.split(' | ');
      expect(items.length).toBe(docs.length - out.cuts.documentsDropped);
      items.forEach((item, i) => expect(docs[i]!.text.startsWith(item)).toBe(true));
    }
  });
});
