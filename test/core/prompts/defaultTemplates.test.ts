/** The default templates against hand-written Fair-RAG prompts (lamp_handler.py, fair-rag.md §6), and the budgets. */
import { describe, expect, it } from 'vitest';
import { charCounter, fairRagBudgets, GENERIC_QA_TEMPLATES, lampTemplates, parsePromptTemplate, renderPrompt, wordCounter } from '../../../src-main/core/prompts/index';

const Q1 = 'For an author who has written the paper with the title "Deep Nets", which reference is related? Just answer with [1] or [2] without explanation. [1]: "A" [2]: "B"';
const Q2 = 'Which tag does this movie relate to among the following tags? Just answer with the tag name without further explanation. tags: [comedy, drama] description: A clown cries.';

describe('LaMP templates (Fair-RAG AIP)', () => {
  it('LaMP-1 puts the titles before "which reference is related?"', () => {
    const docs = [
      { id: 'p1', title: 'Graph Kernels', text: 'abstract 1' },
      { id: 'p2', title: 'Sparse Coding', text: 'abstract 2' },
    ];
    expect(renderPrompt(lampTemplates(1).augmented, { query: Q1, documents: docs })).toBe(
      'For an author who has written the paper with the title "Deep Nets", Graph Kernels, and Sparse Coding, which reference is related? Just answer with [1] or [2] without explanation. [1]: "A" [2]: "B"',
    );
  });

  it('LaMP-2..7 put the joined items before the question with the task wording', () => {
    const movie = [{ id: 'p1', title: '', text: 'A heist goes wrong', attrs: { tag: 'crime' } }];
    expect(renderPrompt(lampTemplates(2).augmented, { query: Q2, documents: movie })).toBe(`the tag for the movie: A heist goes wrong is crime. ${Q2}`);
    const reviews = [
      { id: 'r1', title: '', text: 'Great kettle', attrs: { score: '5' } },
      { id: 'r2', title: '', text: 'Broke in a week', attrs: { score: 1 } },
    ];
    expect(renderPrompt(lampTemplates(3).augmented, { query: 'What is the score?', documents: reviews })).toBe(
      '5 is the score for Great kettle, and 1 is the score for Broke in a week. What is the score?',
    );
    const news = [{ id: 'n1', title: 'Rain Returns', text: 'It rained.' }];
    expect(renderPrompt(lampTemplates(4).augmented, { query: 'Generate a headline', documents: news })).toBe('Rain Returns is the title for It rained.. Generate a headline');
    expect(renderPrompt(lampTemplates(5).augmented, { query: 'Generate a title', documents: news })).toBe(
      'Rain Returns is the title for It rained.. Following the given patterns Generate a title',
    );
    expect(renderPrompt(lampTemplates(6).augmented, { query: 'Generate a subject', documents: news })).toBe('Rain Returns is the title for It rained.. Generate a subject');
    const tweets = [
      { id: 't1', title: '', text: 'sun out' },
      { id: 't2', title: '', text: 'rain again' },
    ];
    expect(renderPrompt(lampTemplates(7).augmented, { query: 'Paraphrase: hi', documents: tweets })).toBe(
      'sun out, and rain again are written by a person. Following the given patterns Paraphrase: hi',
    );
  });

  it('has the bare question as the baseline, names itself, and refuses task 8', () => {
    for (let n = 1; n <= 7; n++) {
      const t = lampTemplates(n);
      expect(t.name).toBe(`fair-rag/LaMP-${n}`);
      expect(renderPrompt(t.baseline, { query: Q2, documents: [] })).toBe(Q2);
      expect(parsePromptTemplate(t.augmented).usesDocuments).toBe(true);
    }
    expect(() => lampTemplates(8)).toThrow(RangeError);
  });
});

describe('generic QA template', () => {
  it('lists the documents, then the question; the baseline has no documents', () => {
    const docs = [{ id: 'd1', title: 'Rain', text: 'It rained.' }];
    expect(renderPrompt(GENERIC_QA_TEMPLATES.augmented, { query: 'Wet?', documents: docs })).toBe(
      'Answer the question using the documents.\n\nDocuments:\n[1] Rain: It rained.\n\nQuestion: Wet?\nAnswer:',
    );
    expect(renderPrompt(GENERIC_QA_TEMPLATES.baseline, { query: 'Wet?', documents: [] })).toBe('Answer the question.\n\nQuestion: Wet?\nAnswer:');
  });
});

describe('token budgets', () => {
  it('counts and cuts whitespace words, keeping the original spacing of what is kept', () => {
    expect(wordCounter.count('  a  b\n c ')).toBe(3);
    expect(wordCounter.truncate('a  b\n c d', 3)).toBe('a  b\n c');
    expect(wordCounter.truncate('a b ', 2)).toBe('a b ');
    expect(wordCounter.truncate('a b', 0)).toBe('');
    expect(wordCounter.truncate('a b', 5)).toBe('a b');
  });

  it('counts and cuts code points, never splitting a surrogate pair', () => {
    expect(charCounter.count('a😀b')).toBe(3);
    expect(charCounter.truncate('a😀b', 2)).toBe('a😀');
    expect(charCounter.truncate('abc', 3)).toBe('abc');
  });

  it("trims like Fair-RAG: question to 256, each item to ⌊(512 − |q|)/k⌋, the prompt to 512", () => {
    const b = fairRagBudgets(wordCounter);
    expect(b.augmented).toMatchObject({ queryMax: 256, total: 512 });
    expect(b.baseline).toEqual({ counter: wordCounter, total: 512 });
    const query = Array.from({ length: 300 }, (_, i) => `q${i}`).join(' ');
    const doc = { id: 'p', title: 'T', text: Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ') };
    const out = renderPrompt(lampTemplates(4).augmented, { query, documents: [doc] }, b.augmented);
    // The item is "T is the title for w0 … " cut to 512 − 256 = 256 words; the question to 256 words.
    const words = out.split(' ');
    expect(words).toHaveLength(512);
    expect(words.slice(0, 5)).toEqual(['T', 'is', 'the', 'title', 'for']);
    expect(words[255]).toBe('w250.');
    expect(words[256]).toBe('q0');
    expect(words[511]).toBe('q255');
  });
});
