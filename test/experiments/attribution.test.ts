/** Attribution helpers of the Fair RAG kind: judge prompts, answer parsing, citations. */
import { describe, expect, it } from 'vitest';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { entailmentProbability, nliGenerateRequest, nliPrompt, nliScoreRequest, parseCitations, parseNliAnswer, stripCitations } from '../../src-main/experiments/fair-rag/attribution';

const attribution = (over: Record<string, unknown> = {}) =>
  FairRagSpec.parse({ kind: 'fair-rag', name: 'x', collection: 'c', retrievers: [{ name: 'b', method: 'bm25' }], generator: { model: 'm' }, attribution: { judge: 'nli-llm', ...over } }).attribution;

describe('Fair RAG attribution', () => {
  it('renders the judge prompt once, without expanding placeholders inside the texts', () => {
    const a = attribution({ template: 'P={{premise}} H={{ hypothesis }} {{answer_format}}', format: 'yes-no' });
    expect(nliPrompt(a, 'doc says {{hypothesis}}', 'out')).toBe('P=doc says {{hypothesis}} H=out Answer yes or no.');
  });

  it('constrains the answer with the JSON schema or the yes/no grammar', () => {
    expect(nliGenerateRequest(attribution(), 'p')).toMatchObject({
      prompt: 'p',
      maxTokens: 32,
      sampling: { temperature: 0 },
      jsonSchema: { type: 'object', properties: { entails: { type: 'boolean' } }, required: ['entails'] },
    });
    expect(nliGenerateRequest(attribution({ format: 'yes-no' }), 'p')).toMatchObject({ grammar: 'root ::= "yes" | "no"' });
    expect(nliScoreRequest(attribution({ threshold: 0.5 }), 'p').continuations).toEqual([' {"entails": true}', ' {"entails": false}']);
  });

  it('parses answers, leniently for truncated JSON, and null when unreadable', () => {
    expect(parseNliAnswer(' { "entails": true }', 'json')).toEqual({ entails: true });
    expect(parseNliAnswer('{ "entails": false\n', 'json')).toEqual({ entails: false });
    expect(parseNliAnswer('{ "entai', 'json')).toEqual({ entails: null });
    expect(parseNliAnswer('Yes', 'yes-no')).toEqual({ entails: true });
    expect(parseNliAnswer('no', 'yes-no')).toEqual({ entails: false });
    expect(parseNliAnswer('maybe', 'yes-no')).toEqual({ entails: null });
  });

  it('turns two log-probabilities into P(entails)', () => {
    expect(entailmentProbability(Math.log(0.3), Math.log(0.1))).toBeCloseTo(0.75, 12);
    expect(entailmentProbability(-1000, -1)).toBeCloseTo(0, 12);
  });

  it('reads [n] citations within the ranking', () => {
    expect(parseCitations('As [2] says, and [1, 3][3]; not [4] or [0] or [x].', 3)).toEqual([1, 2, 3]);
    expect(parseCitations('no citations', 3)).toEqual([]);
  });

  it('scores the answer without its citation marks: "comedy [1][3]" is the label "comedy"', () => {
    expect(stripCitations('comedy [1][3]')).toBe('comedy');
    expect(stripCitations('Paris [1, 2], as [3] says.')).toBe('Paris, as says.');
    expect(stripCitations('[2] drama')).toBe('drama');
    // Brackets that are not citations stay.
    expect(stripCitations('the [x] mark and [1a]')).toBe('the [x] mark and [1a]');
  });
});
