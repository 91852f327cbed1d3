import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { attributionRate, expectedAttribution } from '../../../src-main/core/exposure/attribution';

describe('attribution (Eq. 8–11)', () => {
  /**
   * The E1 rankings (n = 6, k = 3) with NLI labels:
   *   [a b c] 1 0 1 → AR 2/3;  [a c d] 0 0 0 → 0;  [b d e] 1 1 0 → 2/3;  [a e f] 1 0 0 → 1/3
   *   EAR = (2/3 + 0 + 2/3 + 1/3)/4 = 5/12
   *   ε^a: a (s1, s4) 2/4, b (s3) 1/4, c (s1) 1/4, d (s3) 1/4, e 0, f 0
   *   EAE-D = 4/16 + 3·1/16 = 7/16;  EAE-D̄ = 7/48;  ‖ε^a‖₁ = 5/4 = k·EAR
   */
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  const samples = [
    { ranking: ['a', 'b', 'c'], entails: [true, false, true] },
    { ranking: ['a', 'c', 'd'], entails: [false, false, false] },
    { ranking: ['b', 'd', 'e'], entails: [true, true, false] },
    { ranking: ['a', 'e', 'f'], entails: [true, false, false] },
  ];

  it('computes AR, EAR, ε^a, EAE-D and EAE-D̄', () => {
    const r = expectedAttribution(ids, samples, 3);
    expect(r.rates.map((x) => x * 3)).toEqual([2, 0, 2, 1]);
    expect(r.ear).toBeCloseTo(5 / 12, 12);
    expect(r.attributedExposure).toEqual([0.5, 0.25, 0.25, 0.25, 0, 0]);
    expect(r.eaeD).toBeCloseTo(7 / 16, 12);
    expect(r.eaeDNorm).toBeCloseTo(7 / 48, 12);
    expect(r.attributedExposure.reduce((a, b) => a + b, 0)).toBeCloseTo(3 * r.ear, 12);
  });

  it('AR divides by k even when fewer than k items were retrieved, and ignores positions after k', () => {
    expect(attributionRate({ ranking: ['a', 'b'], entails: [true, true] }, 5)).toBe(0.4);
    expect(attributionRate({ ranking: ['a', 'b', 'c'], entails: [false, true, true] }, 2)).toBe(0.5);
    expect(attributionRate({ ranking: [], entails: [] }, 2)).toBe(0);
  });

  it('no attribution at all gives zeros; identical fully attributed samples give EAE-D̄ = 1', () => {
    const none = expectedAttribution(['a', 'b'], [{ ranking: ['a', 'b'], entails: [false, false] }], 2);
    expect(none.ear).toBe(0);
    expect(none.eaeD).toBe(0);
    const all = expectedAttribution(['a', 'b', 'c'], [1, 2].map(() => ({ ranking: ['a', 'b'], entails: [true, true] })), 2);
    expect(all.ear).toBe(1);
    expect(all.eaeDNorm).toBe(1);
  });

  it('rejects missing labels, unknown items and N = 0', () => {
    expect(() => attributionRate({ ranking: ['a', 'b'], entails: [true] }, 2)).toThrow(DataError);
    expect(() => expectedAttribution(['a'], [{ ranking: ['z'], entails: [true] }], 1)).toThrow(/not a candidate/);
    expect(() => expectedAttribution(['a'], [], 1)).toThrow(/N = 0/);
  });
});
