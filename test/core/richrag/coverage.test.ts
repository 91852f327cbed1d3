import { describe, expect, it } from 'vitest';
import { coverageMatrix, phi, PHI_PRESETS } from '../../../src-main/core/richrag/coverage';
import { richRagDocString } from '../../../src-main/core/richrag/docString';
import { DOCS, SUB_ANSWERS } from './handPool';

describe('phi (coverage of a sub-answer by a document)', () => {
  it('code = max(R1, R2, RL) recall; paper = mean(R2, RL) recall', () => {
    // d0 "delta gamma beta alpha" vs a1: every word (R1 = 1), no bigram in order (R2 = 0), LCS 1 word (RL = 1/4)
    expect(phi(DOCS[0]!, SUB_ANSWERS[0]!, 'code')).toBe(1);
    expect(phi(DOCS[0]!, SUB_ANSWERS[0]!, 'paper')).toBeCloseTo(1 / 8, 15); // (0 + 1/4)/2
    // d1 "alpha beta gamma one" vs a1: R1 3/4, R2 2/3 (alpha beta, beta gamma), RL 3/4
    expect(phi(DOCS[1]!, SUB_ANSWERS[0]!, 'code')).toBeCloseTo(3 / 4, 15);
    expect(phi(DOCS[1]!, SUB_ANSWERS[0]!, 'paper')).toBeCloseTo(17 / 24, 15); // (2/3 + 3/4)/2
  });

  it('uses recall with the document as hypothesis (a long document is not penalised)', () => {
    // a2 "one two three" fully inside a longer document: recall 1 for R1, R2 and RL
    expect(phi('zero one two three four five six', SUB_ANSWERS[1]!, 'code')).toBe(1);
    expect(phi('zero one two three four five six', SUB_ANSWERS[1]!, 'paper')).toBe(1);
    // …whereas the F of the same pair is lower (P = 3/7 for R1): a custom spec can ask for it
    expect(phi('zero one two three four five six', SUB_ANSWERS[1]!, { rouge: ['rouge-1'], combine: 'max', component: 'f' })).toBeCloseTo(0.6, 7);
  });

  it('builds the sub-answer × document matrix for both presets', () => {
    // code:  a1: d0 1, d1 3/4, d2 0, d3 "gamma delta" max(2/4, 1/3, 2/4) = 1/2
    //        a2: d0 0, d1 "one" max(1/3, 0, 1/3) = 1/3, d2 "one two" max(2/3, 1/2, 2/3) = 2/3, d3 0
    const code = coverageMatrix(SUB_ANSWERS, DOCS, 'code');
    expectMatrix(code, [
      [1, 3 / 4, 0, 1 / 2],
      [0, 1 / 3, 2 / 3, 0],
    ]);
    // paper: a1: 1/8, 17/24, 0, (1/3 + 1/2)/2 = 5/12;  a2: 0, (0 + 1/3)/2 = 1/6, (1/2 + 2/3)/2 = 7/12, 0
    const paper = coverageMatrix(SUB_ANSWERS, DOCS, 'paper');
    expectMatrix(paper, [
      [1 / 8, 17 / 24, 0, 5 / 12],
      [0, 1 / 6, 7 / 12, 0],
    ]);
  });

  it('is case-sensitive and scores an empty document 0 (pltrdy; RichRAG turns its ValueError into 0)', () => {
    expect(phi('Alpha Beta', 'alpha beta', 'code')).toBe(0);
    expect(phi('', 'alpha beta', 'code')).toBe(0);
    expect(phi('...', 'alpha beta', 'paper')).toBe(0);
  });

  it('presets name the ROUGE types of the notes', () => {
    expect(PHI_PRESETS.code.rouge).toEqual(['rouge-1', 'rouge-2', 'rouge-l']);
    expect(PHI_PRESETS.paper.rouge).toEqual(['rouge-2', 'rouge-l']);
    expect(() => phi('a', 'a', { rouge: [], combine: 'max', component: 'recall' })).toThrow(/at least one ROUGE type/);
  });
});

describe('richRagDocString', () => {
  it('is "{title} {text}", the title becoming "{title}: {section}" with a section', () => {
    expect(richRagDocString({ text: 'body' })).toBe('body');
    expect(richRagDocString({ title: 'Paris', text: 'body' })).toBe('Paris body');
    expect(richRagDocString({ title: 'Paris', section: 'History', text: 'body' })).toBe('Paris: History body');
    expect(richRagDocString({ title: 'Paris', section: '', text: 'body' })).toBe('Paris body');
  });
});

function expectMatrix(actual: number[][], expected: number[][]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((row, i) => {
    expect(row.length).toBe(expected[i]!.length);
    row.forEach((x, d) => expect(x, `phi[${i}][${d}]`).toBeCloseTo(expected[i]![d]!, 14));
  });
}
