import { describe, expect, it } from 'vitest';
import { parsePromptTemplate, PromptTemplateError, renderPrompt, type PromptDocument } from '../../../src-main/core/prompts/index';
import { DataError } from '../../../src-main/core/errors';

const DOCS: PromptDocument[] = [
  { id: 'd1', title: 'Rain', text: 'It rained all day.', attrs: { tag: 'weather', score: 4 } },
  { id: 'd2', title: '', text: 'Fog lifted by <noon> & "later".', attrs: { tag: 'fog' } },
];

function errorOf(fn: () => unknown): PromptTemplateError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PromptTemplateError) return err;
    throw err;
  }
  throw new Error('expected a PromptTemplateError');
}

describe('renderPrompt', () => {
  it('fills query, answer and the rendered document list', () => {
    const out = renderPrompt('Docs:\n{{documents}}\nQ: {{ query }}\nA: {{answer}}', { query: 'Was it wet?', documents: DOCS, answer: 'yes' });
    expect(out).toBe('Docs:\n[1] Rain: It rained all day.\n[2] Fog lifted by <noon> & "later".\nQ: Was it wet?\nA: yes');
  });

  it('repeats a documents block with index, id, title, text and attrs, and does not escape HTML', () => {
    const out = renderPrompt('{{#documents}}({{index}}|{{id}}|{{title}}|{{text}}|{{attrs.tag}}){{/documents}}', { query: 'q', documents: DOCS });
    expect(out).toBe('(1|d1|Rain|It rained all day.|weather)(2|d2||Fog lifted by <noon> & "later".|fog)');
  });

  it('joins block items with a separator and renders the no-documents block only without documents', () => {
    const t = '{{#documents separator=", and "}}{{text}}{{/documents}}{{^documents}}nothing{{/documents}}. {{query}}';
    expect(renderPrompt(t, { query: 'Q?', documents: DOCS })).toBe('It rained all day., and Fog lifted by <noon> & "later".. Q?');
    expect(renderPrompt(t, { query: 'Q?', documents: [] })).toBe('nothing. Q?');
    expect(renderPrompt('{{#documents separator="\\n---\\n"}}{{index}}{{/documents}}', { query: '', documents: DOCS })).toBe('1\n---\n2');
  });

  it('renders numbers in attrs as text and query/answer inside a block', () => {
    expect(renderPrompt('{{#documents}}{{attrs.score}} for {{query}}{{/documents}}', { query: 'x', documents: DOCS.slice(0, 1) })).toBe('4 for x');
  });

  it('splits a value with before/after filters (absent marker: all / nothing)', () => {
    const t = '{{query|before:"which one?"}}[T]{{query|after:"which one?"}}';
    expect(renderPrompt(t, { query: 'Paper X, which one? Answer [1].', documents: [] })).toBe('Paper X, [T] Answer [1].');
    expect(renderPrompt(t, { query: 'no marker', documents: [] })).toBe('no marker[T]');
    expect(renderPrompt('{{query|after:"a"|before:"c"}}', { query: 'xaybc', documents: [] })).toBe('yb');
  });

  it('applies a budget: query first, then an equal share per item, then the whole prompt', () => {
    const counter = { unit: 'words', count: (t: string) => t.split(/\s+/).filter(Boolean).length, truncate: (t: string, n: number) => t.split(/\s+/).filter(Boolean).slice(0, n).join(' ') };
    const docs = [
      { id: 'a', title: '', text: 'one two three four five six' },
      { id: 'b', title: '', text: 'alpha beta' },
    ];
    // query cut to 3 words; items get floor((10 - 3) / 2) = 3 words; total cut to 10 words.
    const out = renderPrompt('{{#documents separator=", and "}}{{text}}{{/documents}}. {{query}} end', { query: 'q1 q2 q3 q4', documents: docs }, { counter, queryMax: 3, total: 10 });
    expect(out).toBe('one two three, and alpha beta. q1 q2 q3 end');
    const cut = renderPrompt('{{#documents separator=" "}}{{text}}{{/documents}} {{query}}', { query: 'q1 q2 q3 q4', documents: docs }, { counter, total: 6 });
    // items: floor((6 - 4) / 2) = 1 word each → 'one alpha q1 q2 q3 q4' (6 words)
    expect(cut).toBe('one alpha q1 q2 q3 q4');
  });
});

describe('parsePromptTemplate', () => {
  it('reports what the template uses', () => {
    expect(parsePromptTemplate('{{query}}')).toMatchObject({ usesDocuments: false, attrs: [] });
    expect(parsePromptTemplate('{{#documents}}{{attrs.tag}}{{attrs.score}}{{/documents}}')).toMatchObject({ usesDocuments: true, attrs: ['tag', 'score'] });
    expect(parsePromptTemplate('{{documents}}').usesDocuments).toBe(true);
  });

  it('names an unknown placeholder and where it is', () => {
    const e = errorOf(() => parsePromptTemplate('Q: {{query}}\nDocs: {{docs}}'));
    expect(e).toBeInstanceOf(DataError);
    expect(e.placeholder).toBe('docs');
    expect(e.position).toEqual({ line: 2, column: 7 });
    expect(e.message).toBe('template: unknown placeholder {{docs}}; known here: query, answer, documents (line 2, column 7)');
  });

  it('rejects item placeholders outside a block and {{documents}} inside one', () => {
    expect(errorOf(() => parsePromptTemplate('{{title}}')).message).toContain('unknown placeholder {{title}} (it exists only inside {{#documents}}…{{/documents}})');
    expect(errorOf(() => parsePromptTemplate('{{attrs.tag}}')).message).toContain('{{attrs.tag}} can only be used inside {{#documents}}');
    expect(errorOf(() => parsePromptTemplate('{{#documents}}{{documents}}{{/documents}}')).message).toContain('{{documents}} cannot be used inside its own block');
  });

  it('rejects malformed blocks, tags and filters', () => {
    expect(errorOf(() => parsePromptTemplate('{{#docs}}x{{/docs}}')).placeholder).toBe('docs');
    expect(errorOf(() => parsePromptTemplate('{{#documents}}x')).message).toContain('never closed');
    expect(errorOf(() => parsePromptTemplate('x{{/documents}}')).message).toContain('never opened');
    expect(errorOf(() => parsePromptTemplate('{{#documents}}{{#documents}}{{/documents}}{{/documents}}')).message).toContain('cannot be nested');
    expect(errorOf(() => parsePromptTemplate('{{query')).message).toContain("unclosed tag '{{query…'");
    expect(errorOf(() => parsePromptTemplate('{{query|upper}}')).message).toContain("unknown filter 'upper'");
    expect(errorOf(() => parsePromptTemplate('{{query|before:x}}')).message).toContain('write the filter as before:"marker"');
    expect(errorOf(() => parsePromptTemplate('{{#documents sep=","}}{{/documents}}')).message).toContain('the only option is separator');
    expect(errorOf(() => parsePromptTemplate('{{query name}}')).message).toContain('not a placeholder');
  });

  it('fails at render time on a missing answer or document attribute, naming it', () => {
    expect(errorOf(() => renderPrompt('{{answer}}', { query: 'q', documents: [] })).message).toContain('{{answer}} needs a reference answer');
    const e = errorOf(() => renderPrompt('{{#documents}}{{attrs.score}}{{/documents}}', { query: 'q', documents: DOCS }));
    expect(e.message).toContain("document 'd2' has no attribute 'score' for {{attrs.score}}");
  });
});
