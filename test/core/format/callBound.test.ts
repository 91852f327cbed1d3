import { describe, expect, it } from 'vitest';
import { CallBound } from '../../../src-main/api/contract/plans';
import { describeCallBound } from '../../../src-main/core/format/callBound';

describe('a run’s call bound in words (issue 34 item 8e)', () => {
  it('names the total, each part as the kind names it, the expected count and the basis', () => {
    const bound = CallBound.parse({ total: 433, parts: { explorer: 12, ranker: 301, answers: 96, judge: 24 }, basis: 'every output at its maximum' });
    expect(describeCallBound(bound, 106)).toEqual([
      'bound: at most 433 LLM call(s) in all, computed or from the cache (explorer 12, ranker 301, answers 96, judge 24); the estimate (106) is the expected count',
      'bound taken with every output at its maximum',
    ]);
  });
  it('a bound without parts prints no empty parentheses; the contract refuses a negative or fractional count', () => {
    expect(describeCallBound({ total: 5, parts: {}, basis: 'x' }, 5)[0]).toBe('bound: at most 5 LLM call(s) in all, computed or from the cache; the estimate (5) is the expected count');
    expect(CallBound.safeParse({ total: 5, parts: { a: -1 }, basis: 'x' }).success).toBe(false);
    expect(CallBound.safeParse({ total: 2.5, parts: {}, basis: 'x' }).success).toBe(false);
  });
});
