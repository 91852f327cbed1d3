import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { compareScores } from '../../../src-main/core/stats/compare';
import { exactPairedRandomizationTest } from '../../../src-main/core/stats/randomization';

const a = [0.42, 0.31, 0.55, 0.12, 0.67, 0.38];
const b = [0.48, 0.35, 0.52, 0.2, 0.71, 0.45];

describe('compareScores', () => {
  it('paired t: means, difference b − a, p against scipy, win/tie/loss and d_z', () => {
    const c = compareScores(a, b, { paired: true });
    expect(c.test).toBe('paired-t');
    expect(c.meanA).toBeCloseTo(2.45 / 6, 14);
    expect(c.meanB).toBeCloseTo(2.71 / 6, 14);
    expect(c.meanDifference).toBeCloseTo(0.26 / 6, 14);
    // scipy.stats.ttest_rel(b, a)
    expect(Math.abs(c.pValue - 0.042836341507146984)).toBeLessThan(1e-10);
    expect(c.significant).toBe(true);
    expect(c.df).toBe(5);
    expect(c.winTieLoss).toEqual({ wins: 5, ties: 0, losses: 1 });
    expect(c.effectSize * Math.sqrt(6)).toBeCloseTo(c.statistic, 12);
    expect(c.ci.lower).toBeGreaterThan(0);
    expect(c.permutations).toBeNull();
    expect(compareScores(a, b, { paired: true, alpha: 0.01 }).significant).toBe(false);
  });

  it('paired randomization: statistic is the mean difference, CI from the paired t-test', () => {
    const c = compareScores(a, b, { paired: true, test: 'randomization', seed: 42, permutations: 10_000 });
    expect(c.test).toBe('paired-randomization');
    expect(c.statistic).toBeCloseTo(0.26 / 6, 14);
    expect(c.df).toBeNull();
    expect(c.seed).toBe(42);
    expect(c.ciMethod).toBe('paired-t');
    const exact = exactPairedRandomizationTest(a, b).pValue; // 2^6 = 64 sign vectors
    expect(Math.abs(c.pValue - exact)).toBeLessThan(5 * Math.sqrt((exact * (1 - exact)) / 10_000) + 1e-4);
    expect(() => compareScores(a, b, { paired: true, test: 'randomization' })).toThrow(/seed/);
  });

  it('unpaired: Student by default, Welch on request; no win/tie/loss; pooled d', () => {
    const s = compareScores(a, b, { paired: false });
    expect(s.test).toBe('student-t');
    expect(s.winTieLoss).toBeNull();
    expect(s.effectSizeName).toBe('cohens_d');
    expect(compareScores(a, b, { paired: false, welch: true }).test).toBe('welch-t');
    expect(compareScores(a, [0.5, 0.6], { paired: false, test: 'randomization', seed: 1, permutations: 100 }).test).toBe('unpaired-randomization');
  });

  it('degenerate and invalid inputs', () => {
    const same = compareScores(a, a, { paired: true });
    expect(same).toMatchObject({ pValue: 1, statistic: 0, effectSize: 0, degenerate: 'no-difference', significant: false });
    expect(() => compareScores([0.1], [0.2], { paired: true })).toThrow(DataError);
    expect(() => compareScores(a, b, { paired: true, alpha: 0 })).toThrow(RangeError);
  });
});
