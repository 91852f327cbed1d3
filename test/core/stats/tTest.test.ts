import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { oneSampleTTest, pairedTTest, studentTTest, tPValue, welchTTest } from '../../../src-main/core/stats/tTest';

// df = 2 and df = 4 two-sided tails from the closed-form CDFs (see studentT.test.ts):
// df 2: P(|T| ≥ t) = 1 − t/√(2 + t²);  df 4: 1 − (3/4)·u·(1 − u²/12)·… with u = t/√(1 + t²/4)
const twoSided2 = (t: number) => 1 - t / Math.sqrt(2 + t * t);
const twoSided4 = (t: number) => {
  const s = (t * t) / (1 + (t * t) / 4);
  return 1 - (3 / 4) * (t / Math.sqrt(1 + (t * t) / 4)) * (1 - s / 12);
};

describe('paired t-test', () => {
  it('reproduces a hand-computed example (n = 5, df = 4)', () => {
    // d = b − a = [1, 2, 0, 3, 1]: mean 1.4, Σ(d − d̄)² = 5.2, s² = 1.3, se = √(1.3/5), t = 1.4/√0.26
    const a = [1, 2, 3, 4, 5];
    const b = [2, 4, 3, 7, 6];
    const r = pairedTTest(a, b);
    const t = 1.4 / Math.sqrt(0.26);
    expect(r.statistic).toBeCloseTo(t, 12);
    expect(r.df).toBe(4);
    expect(r.estimate).toBeCloseTo(1.4, 14);
    expect(r.standardError).toBeCloseTo(Math.sqrt(0.26), 14);
    expect(Math.abs(r.pValue - twoSided4(t))).toBeLessThan(1e-10);
    // scipy.stats.ttest_rel(b, a).pvalue
    expect(Math.abs(r.pValue - 0.05160595781117475)).toBeLessThan(1e-10);
    expect(r.test).toBe('paired-t');
    expect(r.degenerate).toBeUndefined();
  });

  it('reproduces a hand-computed example (n = 3, df = 2) including the 95% CI', () => {
    // d = [1, 2, 6]: mean 3, Σ(d − d̄)² = 14, s² = 7, se = √(7/3); t_{.975,2} = 0.95/√(2·.975·.025)
    const r = pairedTTest([1, 1, 2], [2, 3, 8]);
    const se = Math.sqrt(7 / 3);
    const t = 3 / se;
    expect(r.statistic).toBeCloseTo(t, 12);
    expect(Math.abs(r.pValue - twoSided2(t))).toBeLessThan(1e-12);
    const q = 0.95 / Math.sqrt(2 * 0.975 * 0.025);
    expect(r.ci.lower).toBeCloseTo(3 - q * se, 10);
    expect(r.ci.upper).toBeCloseTo(3 + q * se, 10);
    expect(r.ci.level).toBe(0.95);
  });

  it('handles one-sided alternatives (b − a direction) against scipy values', () => {
    const a = [0.42, 0.31, 0.55, 0.12, 0.67, 0.38];
    const b = [0.48, 0.35, 0.52, 0.2, 0.71, 0.45];
    // scipy.stats.ttest_rel(b, a): t = 2.698978095246547, p = 0.042836341507146984; greater: 0.021418170753573492
    const two = pairedTTest(a, b);
    expect(two.statistic).toBeCloseTo(2.698978095246547, 10);
    expect(Math.abs(two.pValue - 0.042836341507146984)).toBeLessThan(1e-10);
    expect(Math.abs(pairedTTest(a, b, { alternative: 'greater' }).pValue - 0.021418170753573492)).toBeLessThan(1e-10);
    expect(Math.abs(pairedTTest(a, b, { alternative: 'less' }).pValue - (1 - 0.021418170753573492))).toBeLessThan(1e-10);
    // swapping the systems flips the sign, not the two-sided p
    const swapped = pairedTTest(b, a);
    expect(swapped.statistic).toBeCloseTo(-two.statistic, 12);
    expect(swapped.pValue).toBeCloseTo(two.pValue, 14);
  });

  it('gives p = 1 and t = 0 when every difference is zero (scipy would return nan)', () => {
    const r = pairedTTest([0.3, 0.5, 0.9], [0.3, 0.5, 0.9]);
    expect(r).toMatchObject({ statistic: 0, pValue: 1, estimate: 0, degenerate: 'no-difference' });
    expect(r.ci).toEqual({ lower: 0, upper: 0, level: 0.95 });
    expect(pairedTTest([1, 2], [1, 2], { alternative: 'greater' }).pValue).toBe(1);
  });

  it('gives t = ±Infinity and the limiting p when all differences are equal and non-zero (as scipy)', () => {
    const up = pairedTTest([1, 2, 3], [1.5, 2.5, 3.5]);
    expect(up).toMatchObject({ statistic: Infinity, pValue: 0, estimate: 0.5, degenerate: 'zero-variance' });
    expect(up.ci).toEqual({ lower: 0.5, upper: 0.5, level: 0.95 });
    expect(pairedTTest([1, 2, 3], [1.5, 2.5, 3.5], { alternative: 'less' }).pValue).toBe(1);
    const down = pairedTTest([1, 2, 3], [0, 1, 2]);
    expect(down.statistic).toBe(-Infinity);
    expect(down.pValue).toBe(0);
  });

  it('detects constant differences exactly even when the mean has rounding error', () => {
    // 0.1 + 0.1 + 0.1 = 0.30000000000000004, so a naive two-pass variance would be ~1e-34, not 0
    const r = oneSampleTTest([0.1, 0.1, 0.1]);
    expect(r.degenerate).toBe('zero-variance');
    expect(r.statistic).toBe(Infinity);
  });

  it('rejects n < 2, empty input, mismatched lengths and non-finite values', () => {
    expect(() => pairedTTest([1], [2])).toThrow(DataError);
    expect(() => pairedTTest([], [])).toThrow(DataError);
    expect(() => pairedTTest([1, 2], [1, 2, 3])).toThrow(/length/);
    expect(() => pairedTTest([1, Number.NaN], [1, 2])).toThrow(DataError);
    expect(() => pairedTTest([1, 2], [1, Infinity])).toThrow(DataError);
  });
});

describe('unpaired t-tests', () => {
  const x = [3.1, 2.4, 5.6, 4.0, 3.3];
  const y = [4.2, 5.1, 6.3, 5.5, 4.8, 7.0, 5.9];

  it("Student's pooled test: hand example and scipy values", () => {
    // a = [1, 2, 3], b = [4, 5, 6]: s_p² = (2 + 2)/4 = 1, se = √(2/3), t = 3/√(2/3) = 3.6742346141747673
    const r = studentTTest([1, 2, 3], [4, 5, 6]);
    expect(r.statistic).toBeCloseTo(3 / Math.sqrt(2 / 3), 12);
    expect(r.df).toBe(4);
    expect(Math.abs(r.pValue - twoSided4(3 / Math.sqrt(2 / 3)))).toBeLessThan(1e-12);
    // scipy.stats.ttest_ind(y, x): t = 2.994811002338364, p = 0.013462504614952903
    const s = studentTTest(x, y);
    expect(s.statistic).toBeCloseTo(2.994811002338364, 10);
    expect(Math.abs(s.pValue - 0.013462504614952903)).toBeLessThan(1e-10);
    expect(s.df).toBe(10);
  });

  it('allows a group of one value (it contributes no variance)', () => {
    // a = [1], b = [2, 3, 4]: s_p² = 2/2 = 1, se = √(1 + 1/3), t = 2/√(4/3) = √3, df = 2,
    // p = 1 − √3/√5 (df-2 closed form); scipy: 0.22540333075851665
    const r = studentTTest([1], [2, 3, 4]);
    expect(r.statistic).toBeCloseTo(Math.sqrt(3), 12);
    expect(r.pValue).toBeCloseTo(1 - Math.sqrt(3 / 5), 12);
    expect(() => studentTTest([1], [2])).toThrow(DataError);
  });

  it("Welch's test: Welch–Satterthwaite df and p against scipy", () => {
    // scipy.stats.ttest_ind(y, x, equal_var=False): t = 2.8627944689462304, df = 7.303937043328908,
    // p = 0.023165581645994925; alternative='less': 0.9884172091770025
    const w = welchTTest(x, y);
    expect(w.statistic).toBeCloseTo(2.8627944689462304, 10);
    expect(w.df).toBeCloseTo(7.303937043328908, 10);
    expect(Math.abs(w.pValue - 0.023165581645994925)).toBeLessThan(1e-10);
    expect(Math.abs(welchTTest(x, y, { alternative: 'less' }).pValue - 0.9884172091770025)).toBeLessThan(1e-10);
    expect(w.test).toBe('welch-t');
  });

  it('Welch equals Student when group sizes and variances are equal', () => {
    const a = [1, 2, 3, 4];
    const b = [3, 4, 5, 6];
    const w = welchTTest(a, b);
    const s = studentTTest(a, b);
    expect(w.statistic).toBeCloseTo(s.statistic, 12);
    expect(w.df).toBeCloseTo(s.df, 12);
    expect(w.pValue).toBeCloseTo(s.pValue, 12);
  });

  it('degenerate groups never produce NaN', () => {
    const w = welchTTest([1, 1], [2, 2]);
    expect(w).toMatchObject({ statistic: Infinity, pValue: 0, df: 2, degenerate: 'zero-variance' });
    const same = welchTTest([1, 1], [1, 1]);
    expect(same).toMatchObject({ statistic: 0, pValue: 1, degenerate: 'no-difference' });
    expect(() => welchTTest([1], [2, 3])).toThrow(DataError);
  });
});

describe('tPValue', () => {
  it('maps infinite statistics to their limits', () => {
    expect(tPValue(Infinity, 3, 'two-sided')).toBe(0);
    expect(tPValue(-Infinity, 3, 'two-sided')).toBe(0);
    expect(tPValue(Infinity, 3, 'greater')).toBe(0);
    expect(tPValue(-Infinity, 3, 'greater')).toBe(1);
    expect(tPValue(Infinity, 3, 'less')).toBe(1);
    expect(tPValue(0, 3, 'greater')).toBe(0.5);
  });
});
