import { describe, expect, it } from 'vitest';
import { fewestPairsToReject, samplesToSeparate, smallestAttainableP, smallestRejectableP } from '../../../src-main/core/stats/designLimits';

describe('design limits (issue 23 item 5)', () => {
  it('a paired sign-flip test on n queries cannot go below 2 / 2^n', () => {
    expect(smallestAttainableP({ test: 'randomization', paired: true, nA: 4 })).toBe(0.125);
    expect(smallestAttainableP({ test: 'randomization', paired: true, nA: 5 })).toBe(0.0625);
    expect(smallestAttainableP({ test: 'randomization', paired: true, nA: 6 })).toBe(0.03125);
    // Monte-Carlo with 99 permutations: the observed statistic counts, p ≥ 1/100.
    expect(smallestAttainableP({ test: 'randomization', paired: true, nA: 20, permutations: 99 })).toBe(0.01);
    // unpaired permutation test of 3 vs 3: 2 / C(6, 3) = 0.1
    expect(smallestAttainableP({ test: 'randomization', paired: false, nA: 3, nB: 3 })).toBeCloseTo(0.1, 12);
  });
  it('t-tests reach 0 once they have a variance', () => {
    expect(smallestAttainableP({ test: 't', paired: true, nA: 2 })).toBe(0);
    expect(smallestAttainableP({ test: 't', paired: true, nA: 1 })).toBe(1);
    expect(smallestAttainableP({ test: 't', paired: false, nA: 1, nB: 2 })).toBe(0);
    expect(smallestAttainableP({ test: 't', paired: false, nA: 1, nB: 1 })).toBe(1);
  });
  it('corrections: Holm/Bonferroni need α/m, BH and none α; the fewest queries that can reject', () => {
    expect(smallestRejectableP(0.05, 'holm', 5)).toBeCloseTo(0.01, 15);
    expect(smallestRejectableP(0.05, 'bh', 5)).toBe(0.05);
    // 2/2^n ≤ 0.05 ⇔ n ≥ 6 (2/64 = 0.031; 2/32 = 0.0625); ≤ 0.01 ⇔ n ≥ 8 (2/256 = 0.0078; 2/128 = 0.0156).
    expect(fewestPairsToReject('randomization', 0.05)).toBe(6);
    expect(fewestPairsToReject('randomization', 0.01)).toBe(8);
    expect(fewestPairsToReject('t', 0.01)).toBe(2);
  });
  it('samples to separate two arms: 2·¼·(1.95996 + 0.84162)² / (q·gap²)', () => {
    // 0.5 · 7.8489 / (8 · 0.0025) = 196.2 → 197
    expect(samplesToSeparate(0.05, 8)).toBe(197);
    expect(samplesToSeparate(0, 8)).toBe(Infinity);
  });
});
