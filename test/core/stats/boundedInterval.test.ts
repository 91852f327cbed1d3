/**
 * Intervals of bounded measures (issue 17 item 7), every number worked by hand:
 *   t_{0.975,3} = 3.182446305284263, t_{0.975,2} = 4.302652729749464, z_{0.975} = 1.959963984540054.
 */
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { boundedMeanInterval, describeCiMethods, formatInterval, measureBounds, measureMeanInterval, measureScale, wilsonInterval } from '../../../src-main/core/stats/boundedInterval';
import { normalCdf, normalQuantile } from '../../../src-main/core/stats/normal';

describe('normal distribution', () => {
  it('quantiles and CDF agree with the tables to ~1e-15', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(normalQuantile(0.995)).toBeCloseTo(2.5758293035489004, 14);
    expect(normalQuantile(0.9)).toBeCloseTo(1.2815515655446004, 14);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959963984540054, 14);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 12);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316300946, 15);
    expect(normalCdf(-8) / 6.22096057427178e-16).toBeCloseTo(1, 12);
    expect(() => normalQuantile(1.5)).toThrow(RangeError);
  });
});

describe('Wilson score interval', () => {
  it('9 of 10: centre (0.9 + z²/20)/(1 + z²/10) ± z/(1 + z²/10)·√(0.09/10 + z²/400) = [0.59585, 0.98212]', () => {
    const w = wilsonInterval(9, 10);
    expect(w.lower).toBeCloseTo(0.5958499732047615, 13);
    expect(w.upper).toBeCloseTo(0.9821237869049271, 13);
    expect(w.center).toBeCloseTo(0.7889868800548443, 13);
  });

  it('0 of 5 and 10 of 10 end exactly at the bound', () => {
    expect(wilsonInterval(0, 5)).toMatchObject({ lower: 0 });
    expect(wilsonInterval(0, 5).upper).toBeCloseTo(0.43448246478317476, 13);
    expect(wilsonInterval(10, 10)).toMatchObject({ upper: 1 });
    expect(wilsonInterval(10, 10).lower).toBeCloseTo(0.7224672001371107, 13);
    expect(() => wilsonInterval(11, 10)).toThrow(/successes must be an integer in \[0, 10\], got 11/);
  });
});

describe('bounded means', () => {
  it('clips a t-interval that passes 0: mean 0.2, s = 0.4, n = 4 → 0.2 ± 3.1824·0.2 = [−0.4365, 0.8365] → [0, 0.8365]', () => {
    const ci = boundedMeanInterval([0, 0, 0, 0.8]);
    expect(ci.mean).toBeCloseTo(0.2, 15);
    expect(ci.lower).toBe(0);
    expect(ci.upper).toBeCloseTo(0.8364892610568526, 12);
    expect(ci.method).toBe('t, clipped to [0, 1]');
    expect(ci.clipped).toBe(true);
    expect(ci.unclipped!.lower).toBeCloseTo(-0.43648926105685265, 12);
  });

  it('clips a t-interval that passes 1: [0.5, 0.9, 1] → 0.8 ± 4.3027·0.26458/√3 = [0.1428, 1.4572] → [0.1428, 1]', () => {
    const ci = boundedMeanInterval([0.5, 0.9, 1]);
    expect(ci.lower).toBeCloseTo(0.14275893922715677, 13);
    expect(ci.upper).toBe(1);
    expect(ci.clipped).toBe(true);
    expect(ci.unclipped!.upper).toBeCloseTo(1.457241060772843, 13);
  });

  it('leaves an interval inside the range as it is, and says it was not clipped', () => {
    const ci = boundedMeanInterval([0.4, 0.5, 0.6]);
    expect(ci.lower).toBeCloseTo(0.25158622882496695, 13);
    expect(ci.upper).toBeCloseTo(0.748413771175033, 13);
    expect(ci).toMatchObject({ method: 't, clipped to [0, 1]', clipped: false });
    expect(ci.unclipped).toBeUndefined();
  });

  it('uses Wilson for a binary measure (9 correct of 10), where the t-interval would be [0.674, 1.126]', () => {
    const ci = boundedMeanInterval([1, 1, 1, 1, 1, 1, 1, 1, 1, 0], undefined, 0.95, 'value', 'binary');
    expect(ci).toMatchObject({ method: 'Wilson score (binary measure)', clipped: false });
    expect(ci.mean).toBeCloseTo(0.9, 15);
    expect(ci.lower).toBeCloseTo(0.5958499732047615, 13);
    expect(ci.upper).toBeCloseTo(0.9821237869049271, 13);
  });

  it('maps Wilson onto other bounds: values in {−1, 1} with 9 at 1 → −1 + 2·[0.59585, 0.98212]', () => {
    const ci = boundedMeanInterval([1, 1, 1, 1, 1, 1, 1, 1, 1, -1], { lower: -1, upper: 1 }, 0.95, 'value', 'binary');
    expect(ci.lower).toBeCloseTo(-1 + 2 * 0.5958499732047615, 13);
    expect(ci.upper).toBeCloseTo(-1 + 2 * 0.9821237869049271, 13);
    expect(ci.mean).toBeCloseTo(0.8, 15);
  });

  it('rejects values outside the range (naming the value), but not a rounding hair past a bound', () => {
    expect(() => boundedMeanInterval([0.5, 1.2], undefined, 0.95, 'nDCG@10 value')).toThrow(DataError);
    expect(() => boundedMeanInterval([0.5, 1.2], undefined, 0.95, 'nDCG@10 value')).toThrow(/nDCG@10 value 2 is 1.2, outside the measure's range \[0, 1\]/);
    expect(boundedMeanInterval([1.0000000000000002, 0.5]).upper).toBe(1);
    expect(() => boundedMeanInterval([0.5])).toThrow(/needs at least 2 values/);
  });
});

describe('measures by name', () => {
  it('knows which measures are bounded', () => {
    for (const m of ['nDCG@10', 'AP', 'RR', 'P@5', 'R@100', 'Success@1', 'Judged@10', 'eeDNorm', 'euNorm', 'ear', 'eaeDNorm', 'accuracy', 'coverage', 'NCOM', 'rougeL']) expect(measureBounds(m), m).toEqual({ lower: 0, upper: 1 });
    for (const m of ['NumRet', 'NumRel', 'eeD', 'eeL', 'euRaw', 'latency']) expect(measureBounds(m), m).toBeUndefined();
  });

  it('bounded measures are clipped or Wilson by their declared scale, others plain t', () => {
    expect(measureMeanInterval('P@1', [1, 0, 1, 1]).method).toBe('Wilson score (binary measure)');
    expect(measureMeanInterval('nDCG@10', [0, 0, 0, 0.8])).toMatchObject({ lower: 0, clipped: true, method: 't, clipped to [0, 1]' });
    const t = measureMeanInterval('NumRet', [0, 0, 0, 0.8]);
    expect(t).toMatchObject({ method: 't', clipped: false });
    expect(t.lower).toBeCloseTo(-0.43648926105685265, 12);
  });

  it('describes the methods in one legend line', () => {
    const a = measureMeanInterval('nDCG@10', [0, 0, 0, 0.8]);
    const b = measureMeanInterval('AP', [0.4, 0.5, 0.6]);
    const c = measureMeanInterval('P@1', [1, 0, 1, 1]);
    expect(describeCiMethods([a, b, c])).toBe("95% CIs: Student t clipped to the measure's range [0, 1]; Wilson score for binary measures (1 of 3 clipped).");
    expect(describeCiMethods([measureMeanInterval('NumRet', [1, 2])])).toBe('95% CIs: Student t.');
  });
});

describe('intervals by the declared scale, never by the values that occur (issue 23 item 4)', () => {
  it('a continuous measure whose values happen to be 0/1 gets the clipped t-interval, not Wilson', () => {
    // AP (continuous) with values 1, 0, 1, 1: mean .75, s = .5, se = .25, t_{.975,3}·.25 = .79561 → [−.0456, 1.5456] → [0, 1].
    const ap = measureMeanInterval('AP', [1, 0, 1, 1]);
    expect(ap).toMatchObject({ method: 't, clipped to [0, 1]', clipped: true, lower: 0, upper: 1 });
    expect(ap.unclipped!.lower).toBeCloseTo(0.75 - 3.182446305284263 * 0.25, 12);
    // The same values as Success@1 (binary): Wilson 3 of 4.
    const s = measureMeanInterval('Success@1', [1, 0, 1, 1]);
    expect(s.method).toBe('Wilson score (binary measure)');
    expect(s.lower).toBeCloseTo(wilsonInterval(3, 4).lower, 15);
    for (const m of ['eeRNorm', 'eeLNorm', 'RR', 'AP', 'euNorm', 'nDCG@10', 'rougeL']) expect(measureScale(m), m).toBe('continuous');
    for (const m of ['accuracy', 'EM', 'exact_match', 'Success@10', 'P@1', 'hit-rate']) expect(measureScale(m), m).toBe('binary');
  });

  it('mean 1.0 from 0.9999999999999999 or from exact 1 gives the same answer: no variance (n = …)', () => {
    for (const v of [1, 0.9999999999999999]) {
      const ci = measureMeanInterval('eeRNorm', [v, v, v, v, v]);
      // Within 1e-9 of the bound counts as the bound (issue 34 item 5): both are 1.
      expect(ci).toMatchObject({ noVariance: true, method: 'no variance (n = 5)', lower: 1, upper: 1 });
      expect(formatInterval(ci)).toBe('no variance (n = 5)');
    }
    // A binary column of all 1s and an all-0 AP column: no variance as well, not a Wilson interval.
    expect(measureMeanInterval('accuracy', [1, 1, 1, 1, 1, 1, 1, 1]).method).toBe('no variance (n = 8)');
    expect(measureMeanInterval('AP', [0, 0, 0]).method).toBe('no variance (n = 3)');
    expect(measureMeanInterval('NumRet', [5, 5]).method).toBe('no variance (n = 2)');
    expect(formatInterval(measureMeanInterval('AP', [0.4, 0.5, 0.6]))).toBe('[0.252, 0.748]');
    expect(describeCiMethods([measureMeanInterval('AP', [0, 0, 0]), measureMeanInterval('AP', [0.4, 0.5, 0.6])])).toBe(
      "95% CIs: none where a column has no variance; Student t clipped to the measure's range [0, 1].",
    );
  });

  it('a binary measure with a value between 0 and 1 is a DataError naming it', () => {
    expect(() => measureMeanInterval('accuracy', [1, 0.5, 0])).toThrow(/accuracy value 2 is 0.5, but the measure is declared binary/);
    // Rounding hairs count as at the bound.
    expect(measureMeanInterval('accuracy', [0.9999999999999999, 0, 1]).method).toBe('Wilson score (binary measure)');
  });
});
