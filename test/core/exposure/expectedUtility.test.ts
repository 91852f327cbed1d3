import { describe, expect, it } from 'vitest';
import { expectedUtility, normalizedExpectedUtility, toHigherIsBetter, utilityUpperBound } from '../../../src-main/core/exposure/expectedUtility';

describe('expected utility and its normalisation (Eq. 7, 29, 30)', () => {
  it('EU is the mean over samples, duplicates counted', () => {
    // ROUGE-L of 4 samples, the first two from the same ranking: (0.2 + 0.2 + 0.5 + 0.1)/4 = 0.25.
    expect(expectedUtility([0.2, 0.2, 0.5, 0.1])).toBeCloseTo(0.25, 12);
  });

  it('u_max is the max over all runs incl. the oracle run; EU̅ = EU / u_max', () => {
    const runs = [[0.2, 0.4], [0.3], [0.8, 0.1]]; // α = 1, α = 8, oracle
    expect(utilityUpperBound(runs)).toBe(0.8);
    expect(normalizedExpectedUtility(0.3, 0.8)).toBeCloseTo(0.375, 12);
  });

  it('u_max = 0 gives EU̅ = 0 by default, 1.0 with the code variant (which catches the division by zero)', () => {
    expect(normalizedExpectedUtility(0, 0)).toBe(0);
    expect(normalizedExpectedUtility(0, 0, 'code')).toBe(1);
  });

  it('MAE is flipped to 4 − MAE before normalising', () => {
    // per-sample MAE [0, 1, 2] → utilities [4, 3, 2], EU = 3; oracle run MAE [0.5, 0] → u_max = 4 − 0 = 4.
    const run = [0, 1, 2].map((e) => toHigherIsBetter(e, 4));
    const oracle = [0.5, 0].map((e) => toHigherIsBetter(e, 4));
    expect(run).toEqual([4, 3, 2]);
    const eu = expectedUtility(run);
    expect(eu).toBe(3);
    expect(normalizedExpectedUtility(eu, utilityUpperBound([run, oracle]))).toBe(0.75);
  });

  it('rejects empty inputs and non-finite utilities', () => {
    expect(() => expectedUtility([])).toThrow(/N = 0/);
    expect(() => expectedUtility([Number.NaN])).toThrow(/finite/);
    expect(() => utilityUpperBound([[], []])).toThrow(/u_max/);
  });
});
