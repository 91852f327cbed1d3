import { describe, expect, it } from 'vitest';
import { distrSim, divergence, meanDistribution } from '../../../src-main/core/fairness/distrSim';
import { jsd } from '../../../src-main/core/fairness/jsd';
import { nmd } from '../../../src-main/core/fairness/nmd';
import { rnod } from '../../../src-main/core/fairness/rnod';

const U3 = [1 / 3, 1 / 3, 1 / 3];
const U4 = [0.25, 0.25, 0.25, 0.25];

describe('jsd (log base 2, not square-rooted)', () => {
  it('gives the paper\'s 0.459148 for (1,0,0) against the uniform target (Sec. 4)', () => {
    expect(jsd([1, 0, 0], U3)).toBeCloseTo(0.459148, 6);
    // Natural log would give 1 − 0.681743 and √JSD 1 − 0.322395 as DistrSim (reference note, pitfall 1).
    expect(1 - jsd([1, 0, 0], U3)).not.toBeCloseTo(0.681743, 3);
    expect(1 - jsd([1, 0, 0], U3)).not.toBeCloseTo(0.322395, 3);
  });

  it('is 0 for equal distributions, 1 bit for disjoint ones, and symmetric', () => {
    expect(jsd(U3, U3)).toBe(0);
    expect(jsd([1, 0], [0, 1])).toBeCloseTo(1, 12);
    expect(jsd([0.7, 0.2, 0.1], [0.1, 0.3, 0.6])).toBeCloseTo(jsd([0.1, 0.3, 0.6], [0.7, 0.2, 0.1]), 14);
  });

  it('handles zeros in the target: (½,½,0) vs (1,0,0) by hand', () => {
    // m = (¾,¼,0); KL(p‖m) = ½log2(2/3) + ½log2(2) = 0.2075187; KL(q‖m) = log2(4/3) = 0.4150375.
    expect(jsd([0.5, 0.5, 0], [1, 0, 0])).toBeCloseTo((0.5 * Math.log2(2 / 3) + 0.5 + Math.log2(4 / 3)) / 2, 14);
    expect(jsd([0.5, 0.5, 0], [1, 0, 0])).toBeCloseTo(0.311278, 6);
    expect(Number.isFinite(jsd([0, 0, 1], [1, 0, 0]))).toBe(true);
  });

  it('rejects distributions of different lengths', () => {
    expect(() => jsd([1, 0], U3)).toThrow(RangeError);
  });
});

describe('nmd', () => {
  it('is the cumulative absolute difference over |C|−1, hand-computed', () => {
    // CP = (0,0,0,1) vs (¼,½,¾,1): (0.25 + 0.5 + 0.75)/3 = 0.5
    expect(nmd([0, 0, 0, 1], U4)).toBeCloseTo(0.5, 14);
    expect(nmd([1, 0, 0], [0, 0, 1])).toBeCloseTo(1, 14);
    expect(nmd([0.2, 0.3, 0.5], [0.2, 0.3, 0.5])).toBe(0);
  });

  it('is order-aware: mass moved further costs more', () => {
    expect(nmd([0, 1, 0], [1, 0, 0])).toBeCloseTo(0.5, 14);
    expect(nmd([0, 0, 1], [1, 0, 0])).toBeCloseTo(1, 14);
  });

  it('handles a target with zeros and is symmetric', () => {
    // CP = (0,0,1) vs (½,1,1): (0.5 + 1)/2
    expect(nmd([0, 0, 1], [0.5, 0.5, 0])).toBeCloseTo(0.75, 14);
    expect(nmd([0.5, 0.5, 0], [0, 0, 1])).toBeCloseTo(0.75, 14);
  });

  it('needs two groups of equal length', () => {
    expect(() => nmd([1], [1])).toThrow(RangeError);
    expect(() => nmd([1, 0], U3)).toThrow(RangeError);
  });
});

describe('rnod (classes C* from the target)', () => {
  it('gives the paper\'s 0.595119 for (0,0,0,1) against the uniform target', () => {
    // DW = (30, 20, 12, 6)/16, OD = 4.25/4, NOD = OD/3.
    expect(rnod([0, 0, 0, 1], U4)).toBeCloseTo(Math.sqrt(4.25 / 4 / 3), 14);
    expect(rnod([0, 0, 0, 1], U4)).toBeCloseTo(0.595119, 6);
    // C* taken from the system distribution would give DistrSim 0.646447 (pitfall 2).
    expect(1 - rnod([0, 0, 0, 1], U4)).not.toBeCloseTo(0.646447, 3);
  });

  it('averages DW only over the target\'s positive classes (target with a zero)', () => {
    // p = (½,0,½), p* = (½,½,0): (p−p*)² = (0,¼,¼); DW_1 = ¼ + 2·¼ = ¾, DW_2 = ¼; OD = ½; NOD = ¼.
    expect(rnod([0.5, 0, 0.5], [0.5, 0.5, 0])).toBeCloseTo(0.5, 14);
  });

  it('is asymmetric', () => {
    // (0,0,1) ‖ (½,½,0): C* = {1,2}, DW = (9/4, 5/4), NOD = 1.75/2 → 0.935414
    expect(rnod([0, 0, 1], [0.5, 0.5, 0])).toBeCloseTo(Math.sqrt(0.875), 14);
    // (½,½,0) ‖ (0,0,1): C* = {3}, DW_3 = 2·¼ + ¼ = ¾, NOD = 3/8 → 0.612372
    expect(rnod([0.5, 0.5, 0], [0, 0, 1])).toBeCloseTo(Math.sqrt(0.375), 14);
  });

  it('is 0 at the target and rejects one-group or all-zero targets', () => {
    expect(rnod(U4, U4)).toBe(0);
    expect(() => rnod([1], [1])).toThrow(RangeError);
    expect(() => rnod([1, 0], [0, 0])).toThrow(RangeError);
  });
});

describe('distrSim', () => {
  it('is one minus the chosen divergence', () => {
    expect(distrSim('jsd', [1, 0, 0], U3)).toBeCloseTo(0.540852, 6);
    expect(distrSim('rnod', [0, 0, 0, 1], U4)).toBeCloseTo(0.404881, 6);
    expect(distrSim('nmd', [0, 0, 0, 1], U4)).toBeCloseTo(0.5, 14);
    expect(divergence('nmd', [0, 0, 0, 1], U4)).toBeCloseTo(0.5, 14);
  });

  it('reaches 1 exactly when the achieved distribution is the target', () => {
    for (const m of ['jsd', 'nmd', 'rnod'] as const) expect(distrSim(m, U4, U4)).toBe(1);
  });
});

describe('meanDistribution', () => {
  it('averages membership vectors element-wise, soft ones included', () => {
    expect(meanDistribution([[1, 0, 0], [0, 1, 0], [0.5, 0.5, 0]], 3)).toEqual([0.5, 0.5, 0]);
    expect(meanDistribution([], 2)).toEqual([0, 0]);
  });
});
