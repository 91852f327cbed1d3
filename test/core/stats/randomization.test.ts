import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import {
  exactPairedRandomizationTest,
  pairedRandomizationTest,
  unpairedRandomizationTest,
} from '../../../src-main/core/stats/randomization';

// Monte Carlo p-values estimate the exact one with standard error √(p(1−p)/R); 5 SE is a
// tolerance a correct implementation misses with probability < 1e-6 (and the seed is fixed anyway).
const within = (estimate: number, exact: number, r: number) =>
  expect(Math.abs(estimate - exact)).toBeLessThan(5 * Math.sqrt((exact * (1 - exact)) / r) + 1 / r);

describe('exact paired randomization test (all 2^n sign flips, counted by hand)', () => {
  it('d = [1, 2, 3, 4]: only the identity and its mirror reach |Σ| = 10 → p = 2/16', () => {
    const r = exactPairedRandomizationTest([0, 0, 0, 0], [1, 2, 3, 4]);
    expect(r).toMatchObject({ count: 2, permutations: 16, pValue: 0.125, statistic: 2.5, method: 'exact' });
    // one-sided: only the identity is ≥ 10 (p = 1/16); every flip is ≤ 10 (p = 1)
    expect(exactPairedRandomizationTest([0, 0, 0, 0], [1, 2, 3, 4], 'greater').pValue).toBe(1 / 16);
    expect(exactPairedRandomizationTest([0, 0, 0, 0], [1, 2, 3, 4], 'less').pValue).toBe(1);
  });

  it('d = [1, 1, 2]: signed sums 4, 2, 2, 0, 0, −2, −2, −4 → p = 2/8, with exact ties counted', () => {
    expect(exactPairedRandomizationTest([1, 1, 1], [2, 2, 3]).pValue).toBe(0.25);
  });

  it('counts flips tied with the observed sum despite rounding (d = [0.1, 0.2, −0.3, 0.5])', () => {
    // 0.1 + 0.2 − 0.3 = 0 exactly in ℝ but not in floating point, so flipping those three gives the
    // observed sum again. Signed sums of the first three ∈ {±0.6, ±0.4, ±0.2, 0, 0}; |S| ≥ 0.5 for 5 of
    // the 8 with +0.5 and 5 of the 8 with −0.5 → p = 10/16.
    expect(exactPairedRandomizationTest([0, 0, 0, 0], [0.1, 0.2, -0.3, 0.5]).pValue).toBe(10 / 16);
  });

  it('refuses n beyond the enumeration limit', () => {
    const big = Array.from({ length: 25 }, (_, i) => i);
    expect(() => exactPairedRandomizationTest(big, big)).toThrow(DataError);
  });
});

describe('paired randomization test (Monte Carlo)', () => {
  it('estimates the exact p-value of a tiny sample', () => {
    const a = [0.2, 0.5, 0.1, 0.4, 0.3, 0.6, 0.2];
    const b = [0.3, 0.45, 0.3, 0.5, 0.3, 0.7, 0.35];
    const exact = exactPairedRandomizationTest(a, b);
    expect(exact.permutations).toBe(128);
    const mc = pairedRandomizationTest(a, b, { seed: 42, permutations: 10_000 });
    within(mc.pValue, exact.pValue, 10_000);
    expect(mc.statistic).toBeCloseTo(exact.statistic, 15);
    expect(mc.permutations).toBe(10_000);
  });

  it('uses (count + 1)/(R + 1): never 0 even when no permutation is as extreme', () => {
    // 20 positive differences: exact p = 2/2^20 ≈ 1.9e-6, so 999 random flips almost surely find none
    const a = new Array(20).fill(0);
    const b = Array.from({ length: 20 }, (_, i) => 1 + i);
    const r = pairedRandomizationTest(a, b, { seed: 7, permutations: 999 });
    expect(r.count).toBe(0);
    expect(r.pValue).toBe(1 / 1000);
    expect(r.pValueFormula).toBe('(count+1)/(permutations+1)');
  });

  it('gives p = 1 for identical systems and for n = 1', () => {
    expect(pairedRandomizationTest([0.3, 0.2, 0.9], [0.3, 0.2, 0.9], { seed: 1, permutations: 500 }).pValue).toBe(1);
    expect(pairedRandomizationTest([0.3], [0.8], { seed: 1, permutations: 500 }).pValue).toBe(1);
  });

  it('is reproducible for a seed and varies across seeds', () => {
    const a = [0.1, 0.4, 0.35, 0.8, 0.2, 0.5, 0.6, 0.3, 0.25, 0.45, 0.7, 0.15];
    const b = [0.2, 0.35, 0.5, 0.75, 0.3, 0.55, 0.6, 0.4, 0.2, 0.5, 0.8, 0.2];
    const one = pairedRandomizationTest(a, b, { seed: 42, permutations: 2000 });
    expect(pairedRandomizationTest(a, b, { seed: 42, permutations: 2000 })).toEqual(one);
    const counts = new Set([1, 2, 3, 4, 5].map((s) => pairedRandomizationTest(a, b, { seed: s, permutations: 2000 }).count));
    expect(counts.size).toBeGreaterThan(1);
  });

  it('one-sided alternatives follow the sign of b − a', () => {
    const a = [0, 0, 0, 0, 0, 0];
    const b = [1, 2, 3, 4, 5, -1];
    const greater = pairedRandomizationTest(a, b, { seed: 3, permutations: 10_000, alternative: 'greater' });
    const less = pairedRandomizationTest(a, b, { seed: 3, permutations: 10_000, alternative: 'less' });
    within(greater.pValue, exactPairedRandomizationTest(a, b, 'greater').pValue, 10_000);
    within(less.pValue, exactPairedRandomizationTest(a, b, 'less').pValue, 10_000);
    expect(greater.pValue).toBeLessThan(less.pValue);
  });

  it('rejects bad permutation counts and empty input', () => {
    expect(() => pairedRandomizationTest([1, 2], [2, 3], { seed: 1, permutations: 0 })).toThrow(RangeError);
    expect(() => pairedRandomizationTest([1, 2], [2, 3], { seed: 1, permutations: 2.5 })).toThrow(RangeError);
    expect(() => pairedRandomizationTest([], [], { seed: 1 })).toThrow(DataError);
  });
});

describe('unpaired randomization test (random relabelling)', () => {
  it('estimates the exact p of a = [1, 2], b = [3, 4]: 2 of the 6 splits reach |Δ| = 2 → 1/3', () => {
    // splits of {1,2,3,4} into b-groups: {3,4} Δ=2, {1,2} Δ=−2, {1,3} −1, {2,4} 1, {1,4} 0, {2,3} 0
    const r = unpairedRandomizationTest([1, 2], [3, 4], { seed: 11, permutations: 10_000 });
    expect(r.statistic).toBe(2);
    within(r.pValue, 1 / 3, 10_000);
    // one-sided: only {3,4} is ≥ 2 → 1/6
    within(unpairedRandomizationTest([1, 2], [3, 4], { seed: 11, permutations: 10_000, alternative: 'greater' }).pValue, 1 / 6, 10_000);
  });

  it('handles unequal group sizes (a = [1], b = [2, 3]: b-groups {2,3} Δ=1.5, {1,3} 0, {1,2} −1.5 → 2/3)', () => {
    within(unpairedRandomizationTest([1], [2, 3], { seed: 5, permutations: 10_000 }).pValue, 2 / 3, 10_000);
  });

  it('counts relabellings tied with the observed statistic despite rounding (identical groups → p = 1)', () => {
    const r = unpairedRandomizationTest([0.1, 0.2, 0.3], [0.3, 0.2, 0.1], { seed: 9, permutations: 1000 });
    expect(r.count).toBe(1000);
    expect(r.pValue).toBe(1);
  });
});

describe('unpaired two-sided p: |diff| ≥ |observed| or scipy\'s 2·min(one-sided) (#16.6)', () => {
  // a = [1], b = [0, 0, 0]: observed mean(b) − mean(a) = −1. Of the 4 equally likely labellings,
  // 1 gives −1 and 3 give +1/3. |stat| ≥ 1: p = 1/4; scipy: 2·min(P(≤ −1) = 1/4, P(≥ −1) = 1) = 1/2.
  it('differ by 2× with unequal group sizes, on the same permutation stream', () => {
    const absolute = unpairedRandomizationTest([1], [0, 0, 0], { seed: 3, permutations: 20_000 });
    const doubled = unpairedRandomizationTest([1], [0, 0, 0], { seed: 3, permutations: 20_000, twoSided: 'doubled' });
    within(absolute.pValue, 1 / 4, 20_000);
    within(doubled.pValue, 1 / 2, 20_000);
    expect(doubled.pValueFormula).toBe('min(1, 2*(min(count_less, count_greater)+1)/(permutations+1))');
    expect(absolute.pValueFormula).toBe('(count+1)/(permutations+1)');
  });

  it('agree for one-sided alternatives and cap at 1', () => {
    const o = { seed: 4, permutations: 2000, alternative: 'less' as const };
    expect(unpairedRandomizationTest([1], [0, 0, 0], { ...o, twoSided: 'doubled' })).toEqual(unpairedRandomizationTest([1], [0, 0, 0], o));
    expect(unpairedRandomizationTest([0.1, 0.2, 0.3], [0.3, 0.2, 0.1], { seed: 9, permutations: 1000, twoSided: 'doubled' }).pValue).toBe(1);
  });
});
