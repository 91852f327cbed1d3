import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { meanConfidenceInterval, pairedDeltaConfidenceInterval } from '../../../src-main/core/stats/confidenceInterval';
import { mean, sampleSd, sampleVariance, standardError } from '../../../src-main/core/stats/descriptive';
import { cohensDPaired, cohensDUnpaired } from '../../../src-main/core/stats/effectSize';
import { pairedTTest } from '../../../src-main/core/stats/tTest';
import { winTieLoss } from '../../../src-main/core/stats/winTieLoss';

describe('descriptive statistics', () => {
  it('mean, n − 1 variance, sd and standard error of a hand example', () => {
    // [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, Σ(x − 5)² = 32, s² = 32/7
    const x = [2, 4, 4, 4, 5, 5, 7, 9];
    expect(mean(x)).toBe(5);
    expect(sampleVariance(x)).toBeCloseTo(32 / 7, 14);
    expect(sampleSd(x)).toBeCloseTo(Math.sqrt(32 / 7), 14);
    expect(standardError(x)).toBeCloseTo(Math.sqrt(32 / 7 / 8), 14);
  });

  it('rejects empty samples, n = 1 variance and non-finite values', () => {
    expect(() => mean([])).toThrow(DataError);
    expect(() => sampleVariance([3])).toThrow(/at least 2/);
    expect(() => mean([1, Number.NaN])).toThrow(/not a finite number/);
  });
});

describe('confidence intervals', () => {
  it('95% CI of a mean: x̄ ± t_{.975,n−1}·s/√n with the df = 4 closed-form quantile', () => {
    // [1, 2, 0, 3, 1]: mean 1.4, s² = 1.3; t_{.975,4} from α = 4p(1−p), q = cos(acos(√α)/3)/√α, t = 2√(q−1)
    const alpha = 4 * 0.975 * 0.025;
    const q = Math.cos(Math.acos(Math.sqrt(alpha)) / 3) / Math.sqrt(alpha);
    const t = 2 * Math.sqrt(q - 1);
    const h = t * Math.sqrt(1.3 / 5);
    const ci = meanConfidenceInterval([1, 2, 0, 3, 1]);
    expect(ci.mean).toBeCloseTo(1.4, 14);
    expect(ci.lower).toBeCloseTo(1.4 - h, 10);
    expect(ci.upper).toBeCloseTo(1.4 + h, 10);
    expect(t).toBeCloseTo(2.7764451051977987, 12); // the familiar table value 2.776
  });

  it('paired delta CI is the CI of b − a and agrees with the paired t-test; other levels work', () => {
    const a = [1, 2, 3, 4, 5];
    const b = [2, 4, 3, 7, 6];
    const ci = pairedDeltaConfidenceInterval(a, b);
    const t = pairedTTest(a, b);
    expect(ci.lower).toBeCloseTo(t.ci.lower, 14);
    expect(ci.upper).toBeCloseTo(t.ci.upper, 14);
    // 0 lies inside the 95% CI exactly when the two-sided p > 0.05 (p = 0.0516 here)
    expect(ci.lower).toBeLessThan(0);
    const ci90 = pairedDeltaConfidenceInterval(a, b, 0.9);
    expect(ci90.lower).toBeGreaterThan(0);
    expect(ci90.level).toBe(0.9);
  });

  it('zero variance gives a zero-width interval; n = 1 and bad levels are errors', () => {
    expect(meanConfidenceInterval([0.25, 0.25, 0.25])).toEqual({ mean: 0.25, lower: 0.25, upper: 0.25, level: 0.95 });
    expect(() => meanConfidenceInterval([1])).toThrow(DataError);
    expect(() => meanConfidenceInterval([1, 2], 1)).toThrow(RangeError);
  });
});

describe('win/tie/loss', () => {
  it('counts b against a with a tie tolerance', () => {
    const a = [1, 2, 3, 4];
    const b = [2, 2, 2.5, 4.0000001];
    expect(winTieLoss(a, b)).toEqual({ wins: 2, ties: 1, losses: 1 });
    expect(winTieLoss(a, b, 1e-6)).toEqual({ wins: 1, ties: 2, losses: 1 });
    expect(winTieLoss(b, a)).toEqual({ wins: 1, ties: 1, losses: 2 });
    expect(() => winTieLoss(a, b, -1)).toThrow(RangeError);
    expect(() => winTieLoss([], [])).toThrow(DataError);
  });
});

describe("Cohen's d", () => {
  it('paired d_z = mean(d)/sd(d), and t = d_z·√n', () => {
    const a = [1, 2, 3, 4, 5];
    const b = [2, 4, 3, 7, 6];
    const dz = cohensDPaired(a, b);
    expect(dz).toBeCloseTo(1.4 / Math.sqrt(1.3), 14);
    expect(dz * Math.sqrt(5)).toBeCloseTo(pairedTTest(a, b).statistic, 12);
  });

  it('unpaired d with pooled sd: [1,2,3] vs [4,5,6] → (5 − 2)/1 = 3', () => {
    expect(cohensDUnpaired([1, 2, 3], [4, 5, 6])).toBeCloseTo(3, 14);
    expect(cohensDUnpaired([4, 5, 6], [1, 2, 3])).toBeCloseTo(-3, 14);
  });

  it('zero variance: 0 without a difference, ±Infinity with one, never NaN', () => {
    expect(cohensDPaired([1, 2], [1, 2])).toBe(0);
    expect(cohensDPaired([1, 2], [2, 3])).toBe(Infinity);
    expect(cohensDPaired([1, 2], [0, 1])).toBe(-Infinity);
    expect(cohensDUnpaired([1, 1], [1, 1])).toBe(0);
    expect(() => cohensDPaired([1], [2])).toThrow(DataError);
    expect(() => cohensDUnpaired([1], [2])).toThrow(DataError);
  });
});
