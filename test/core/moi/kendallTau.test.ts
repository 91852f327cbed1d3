import { describe, expect, it } from 'vitest';
import { kendallTau, kendallTauOfRankings } from '../../../src-main/core/moi/kendallTau';

describe('kendallTau', () => {
  it('matches scipy.stats.kendalltau (tau-b) on the scipy documentation example with ties', () => {
    // scipy: kendalltau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]).statistic = -0.47140452079103173
    expect(kendallTau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0])).toBeCloseTo(-0.47140452079103173, 14);
  });

  it('corrects for ties in tau-b but not in tau-a', () => {
    // 4 concordant pairs, 0 discordant, 2 pairs tied in y: tau-a = 4/6, tau-b = 4/sqrt(6*4)
    expect(kendallTau([1, 2, 3, 4], [1, 1, 2, 2], 'a')).toBeCloseTo(4 / 6, 14);
    expect(kendallTau([1, 2, 3, 4], [1, 1, 2, 2])).toBeCloseTo(0.8164965809277261, 14);
  });

  it('is 1 for the same order, -1 for the reverse, invariant to monotone maps, NaN for a constant vector', () => {
    const x = [0.3, -1, 2, 5, 4.5];
    expect(kendallTau(x, x.map((v) => Math.exp(v)))).toBe(1);
    expect(kendallTau(x, x.map((v) => -3 * v + 1))).toBe(-1);
    expect(kendallTau(x, [1, 1, 1, 1, 1])).toBeNaN();
    expect(() => kendallTau([1, 2], [1])).toThrow(RangeError);
  });

  it('compares rankings given as item lists', () => {
    expect(kendallTauOfRankings([0, 1, 2], [2, 1, 0])).toBe(-1);
    // one swapped adjacent pair out of 6: (5 - 1)/6
    expect(kendallTauOfRankings([0, 1, 2, 3], [1, 0, 2, 3])).toBeCloseTo(2 / 3, 14);
    expect(() => kendallTauOfRankings([0, 1, 2], [0, 1, 5])).toThrow(/not in the first ranking/);
  });
});
