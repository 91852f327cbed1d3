import { describe, expect, it } from 'vitest';
import { withinUnitExchangeTest } from '../../../src-main/core/stats/exchangeTest';

describe('withinUnitExchangeTest (one deterministic outcome exchanged with the unit’s samples)', () => {
  it('one unit, deterministic 1 against samples 0,0,0: |T| = 1 is reached only when the 1 is the baseline (1 in 4)', () => {
    // Pooled [1, 0, 0, 0]. Baseline 1: mean(0,0,0) − 1 = −1. Baseline 0: mean(1,0,0) − 0 = 1/3.
    const units = [{ baseline: [1], samples: [0, 0, 0] }];
    const exact = withinUnitExchangeTest(units, { seed: 3, permutations: 40_000, ties: 'exact' });
    expect(exact.statistic).toBe(-1);
    expect(exact.pValue).toBeGreaterThan(0.24);
    expect(exact.pValue).toBeLessThan(0.26);
    // mid-p: the tied exchanges (and the observed one) count half: ≈ 1/8.
    const mid = withinUnitExchangeTest(units, { seed: 3, permutations: 40_000 });
    expect(mid.pValue).toBeGreaterThan(0.115);
    expect(mid.pValue).toBeLessThan(0.135);
  });

  it('two units: the statistic is the mean over units of (mean of samples − mean of baseline)', () => {
    const r = withinUnitExchangeTest(
      [
        { baseline: [0.5], samples: [0.2, 0.4] },
        { baseline: [1, 0], samples: [1, 1, 1, 0] },
      ],
      { seed: 1, permutations: 99 },
    );
    // (0.3 − 0.5 + 0.75 − 0.5) / 2 = 0.025
    expect(r.statistic).toBeCloseTo(0.025, 12);
    expect(r.units).toBe(2);
    expect(r.pValue).toBeGreaterThan(0);
    expect(r.pValue).toBeLessThanOrEqual(1);
  });

  it('every outcome equal: no exchange differs, p = 1 with exact ties', () => {
    const r = withinUnitExchangeTest([{ baseline: [0], samples: [0, 0] }, { baseline: [1], samples: [1] }], { seed: 2, permutations: 50, ties: 'exact' });
    expect(r.statistic).toBe(0);
    expect(r.pValue).toBe(1);
  });

  it('mid-p counts ties half, the observed labelling included: every exchange tied gives (0 + ½(R + 1))/(R + 1) = 0.5 exactly', () => {
    // Pooled [1, 1] and [0, 0, 0]: every exchange reproduces the observed |T| = 0, so above = 0 and tied = R.
    const units = [
      { baseline: [1], samples: [1] },
      { baseline: [0], samples: [0, 0] },
    ];
    for (const R of [1, 3, 99]) {
      expect(withinUnitExchangeTest(units, { seed: 5, permutations: R }).pValue).toBe(0.5);
      expect(withinUnitExchangeTest(units, { seed: 5, permutations: R, ties: 'exact' }).pValue).toBe(1);
    }
  });

  it('names the unit that has no samples or a non-finite outcome', () => {
    expect(() => withinUnitExchangeTest([{ baseline: [1], samples: [] }], { seed: 1 })).toThrow(/unit 0 has no sampled outcome/);
    expect(() => withinUnitExchangeTest([{ baseline: [1], samples: [0] }, { baseline: [Number.NaN], samples: [1] }], { seed: 1 })).toThrow(/unit 1 has a non-finite/);
  });
});
