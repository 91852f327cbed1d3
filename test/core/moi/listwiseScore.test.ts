import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { listwiseScore } from '../../../src-main/core/moi/listwiseScore';

const input = { questionLogprobs: [-1, -2, -3], passageLogprobs: [[-3], [-1, -1, -1]] };

describe('listwiseScore (Eq. 3 in log space)', () => {
  it('defaults to mean per segment with mixing weight 1, pooling all passage tokens', () => {
    const s = listwiseScore(input);
    // question mean -2; passage tokens pooled: -6/4 = -1.5 (not the mean of per-passage means, -2)
    expect(s).toEqual({ score: -3.5, question: -2, passages: -1.5, questionTokens: 3, passageTokens: 4 });
  });

  it('supports sums and a mixing weight', () => {
    expect(listwiseScore(input, { reduction: 'sum' }).score).toBe(-6 + -6);
    expect(listwiseScore(input, { passageWeight: 0.5 }).score).toBe(-2 + 0.5 * -1.5);
    expect(listwiseScore(input, { passageWeight: 0 }).score).toBe(-2);
  });

  it('stays finite where the product of probabilities underflows', () => {
    const long = { questionLogprobs: [-2, -2], passageLogprobs: [new Array<number>(1000).fill(-0.8)] };
    const sum = listwiseScore(long, { reduction: 'sum' });
    expect(Math.exp(sum.score)).toBe(0);
    expect(sum.score).toBeCloseTo(-804, 9);
    expect(listwiseScore(long).score).toBeCloseTo(-2.8, 12);
  });

  it('rejects non-log-probabilities and empty segments naming the field', () => {
    const bad = (f: () => unknown, field: string) => {
      try {
        f();
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(DataError);
        expect((err as DataError).field).toBe(field);
      }
    };
    bad(() => listwiseScore({ questionLogprobs: [-1, 0.5], passageLogprobs: [[-1]] }), 'questionLogprobs[1]');
    bad(() => listwiseScore({ questionLogprobs: [-1], passageLogprobs: [[-1], [Number.NaN]] }), 'passageLogprobs[1][0]');
    bad(() => listwiseScore({ questionLogprobs: [], passageLogprobs: [[-1]] }), 'questionLogprobs');
    bad(() => listwiseScore({ questionLogprobs: [-1], passageLogprobs: [[]] }), 'passageLogprobs');
    bad(() => listwiseScore(input, { reduction: 'max' as 'mean' }), 'reduction');
  });
});
