/**
 * Audit of issue 23 item 4 ("EU̅'s confidence intervals are not kept in [0, 1] while the exposure measures' are: 19
 * of 174 aggregate upper bounds lie between 1.0004 and 1.136 on the demo"): no test failed when Fair RAG's
 * aggregates stopped bounding EU̅ (test/experiments/metrics.test.ts checks EU, which has no bounds, and a
 * no-variance EE-D̄). Hand-computed: values (1, 1, 0.8): mean 0.933333, s = √(0.026667/2) = 0.115470,
 * se = 0.066667, t_{.975,2} = 4.302653, t-interval [0.646490, 1.220177] (half-width 0.286844); every measure bounded to [0, 1] (EU̅,
 * EE-D̄, EE-R̄, EE-L̄, EAR, EAE-D̄) gets [0.646490, 1] and says it was clipped; EU (the utility metric's own
 * scale) keeps the plain t-interval. Values outside the range (utilities stored before LaMP-3 clamping) keep the
 * clipped interval and say how many left it.
 */
import { describe, expect, it } from 'vitest';
import { meanWithCi } from '../../src-main/experiments/fair-rag/aggregates';

const HALF = 4.302652729749464 * Math.sqrt(0.08 / 3 / 2) / Math.sqrt(3);

describe('Fair RAG aggregates keep the intervals of bounded measures inside [0, 1]', () => {
  it('hand value of the half-width', () => expect(HALF).toBeCloseTo(0.286844, 6));

  for (const m of ['euNorm', 'eeDNorm', 'eeRNorm', 'eeLNorm', 'ear', 'eaeDNorm']) {
    it(`${m} (1, 1, 0.8): [0.646490, 1], clipped, method "t, clipped to [0, 1]"`, () => {
      const ci = meanWithCi([1, 1, 0.8], m)!;
      expect(ci.mean).toBeCloseTo(0.933333, 6);
      expect(ci.lower).toBeCloseTo(0.64649, 5);
      expect(ci.upper).toBe(1);
      expect(ci.clipped).toBe(true);
      expect(ci.method).toBe('t, clipped to [0, 1]');
      expect(ci.n).toBe(3);
    });
  }

  it('EU without a scale keeps the plain t-interval [0.646490, 1.220177]; with its scale [0, 1] (issue 34 item 5) it is clipped to it', () => {
    const ci = meanWithCi([1, 1, 0.8], 'eu')!;
    expect(ci.upper).toBeCloseTo(1.220177, 5);
    expect(ci.method).toBe('t');
    expect(ci.clipped).toBe(false);
    const bounded = meanWithCi([1, 1, 0.8], 'eu', { lower: 0, upper: 1 })!;
    expect(bounded.lower).toBeCloseTo(0.64649, 5);
    expect(bounded.upper).toBe(1);
    expect(bounded.method).toBe('t, clipped to [0, 1]');
  });

  it('an EU̅ above 1 (stored before clamping) is clipped and counted: (1.2, 1, 0.8) → [0.503, 1], 1 of 3 outside', () => {
    // mean 1, s = 0.2, se = 0.11547, half = 4.302653 · 0.11547 = 0.496828.
    const ci = meanWithCi([1.2, 1, 0.8], 'euNorm')!;
    expect(ci.mean).toBeCloseTo(1, 12);
    expect(ci.lower).toBeCloseTo(1 - 0.496828, 5);
    expect(ci.upper).toBe(1);
    expect(ci.method).toBe("t, clipped to [0, 1]; 1 of 3 values outside the measure's range");
  });
});
