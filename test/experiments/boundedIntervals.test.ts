/**
 * Issue 34 item 5: every bounded measure's interval stays in its range, and values within 1e-9 of a
 * bound count as the bound (one method per column, no "outside the range" for rounding).
 * Hand-computed:
 *   LaMP-3 EU (4, 4, 3.2) on [0, 4]: mean 3.733333, s² = 0.426667/2 = 0.213333, se = √(0.213333/3) = 0.266667,
 *   t_{.975,2} = 4.302653, half-width 1.147374 → t-interval [2.585959, 4.880707], clipped to [2.585959, 4].
 *   EU̅ (1.0000000000000004, 1, 0.8) = (1, 1, 0.8): [0.646490, 1] (see fairRagBoundedCi.audit.test.ts), clipped, not "outside".
 *   (0.9999999999999977, 1, 1) = (1, 1, 1): no variance, as (1, 1, 1) is.
 */
import { describe, expect, it } from 'vitest';
import { measureMeanInterval } from '../../src-main/core/stats/boundedInterval';
import { meanWithCi } from '../../src-main/experiments/fair-rag/aggregates';
import { euBounds } from '../../src-main/experiments/fair-rag/metrics';
import type { FairRagRunData, QueryPayload } from '../../src-main/experiments/fair-rag/items';

const T2 = 4.302652729749464;

describe('bounded intervals (issue 34 item 5)', () => {
  it("LaMP-3's EU stays in [0, 4]: (4, 4, 3.2) → [2.585959, 4], clipped", () => {
    const ci = meanWithCi([4, 4, 3.2], 'eu', { lower: 0, upper: 4 })!;
    expect(ci.mean).toBeCloseTo(3.733333, 6);
    expect(ci.lower).toBeCloseTo(3.733333333333333 - T2 * Math.sqrt(0.21333333333333332 / 3), 9);
    expect(ci.lower).toBeCloseTo(2.585959, 6);
    expect(ci.upper).toBe(4);
    expect(ci.method).toBe('t, clipped to [0, 4]');
    expect(ci.clipped).toBe(true);
  });

  it("EU's range comes from the run's utility scale: LaMP-3 (mae, worst 4) → [0, 4]; accuracy/ROUGE → [0, 1]", () => {
    const q = (metric: string, lowerIsBetter: boolean, worst: number | null) => ({ metric, lowerIsBetter, worst }) as QueryPayload;
    const data = (qs: QueryPayload[]) => ({ queries: new Map(qs.map((x, i) => [`q${i}`, x])) }) as FairRagRunData;
    expect(euBounds(data([q('mae', true, 4), q('mae', true, 4)]))).toEqual({ lower: 0, upper: 4 });
    expect(euBounds(data([q('accuracy', false, null), q('rougeL', false, null)]))).toEqual({ lower: 0, upper: 1 });
  });

  it('a value within 1e-9 of a bound is the bound: no "outside the range", one method per column', () => {
    const above = meanWithCi([1.0000000000000004, 1, 0.8], 'euNorm')!;
    expect(above.method).toBe('t, clipped to [0, 1]');
    expect(above.lower).toBeCloseTo(0.64649, 5);
    expect(above.upper).toBe(1);
    expect(meanWithCi([0.9999999999999977, 1, 1], 'euNorm')).toEqual(meanWithCi([1, 1, 1], 'euNorm'));
    expect(meanWithCi([0.9999999999999977, 1, 1], 'euNorm')!.method).toBe('no variance (n = 3)');
    // The same in eval compare's intervals (core): AP values 0.9999999999999977 and 1 are one value.
    expect(measureMeanInterval('AP', [0.9999999999999977, 1, 1])).toMatchObject({ method: 'no variance (n = 3)', mean: 1, lower: 1, upper: 1 });
    expect(measureMeanInterval('AP', [1.0000000000000004, 1, 0.8])).toMatchObject({ method: 't, clipped to [0, 1]', upper: 1 });
    // A value really outside the range (beyond 1e-9) is still refused: the measure is not what its name says.
    expect(() => measureMeanInterval('AP', [1.001, 1, 0.8])).toThrow(/outside the measure's range/);
  });
});
