import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { expectedExposure } from '../../../src-main/core/exposure/expectedExposure';
import { systemExposure } from '../../../src-main/core/exposure/systemExposure';
import { relevanceUpperBound, targetExposure } from '../../../src-main/core/exposure/targetExposure';
import { createRng } from '../../../src-main/core/random/rng';
import { samplePlackettLuce } from '../../../src-main/core/sampling/plackettLuce';

const labelled = (useful: string[], rest: string[]) => [...useful.map((id) => ({ id, useful: true })), ...rest.map((id) => ({ id, useful: false }))];

/**
 * Worked example E1 (reference/fair-rag.md §2): n = 6, m = 2, k = 3. The notes give only its
 * results (EE-R̄ paper 0.75 vs code 0.5556); n = 6, m = 2, k = 3 with Σ_useful ε = 5/4 is the
 * smallest setting that yields exactly 3/4 and 5/9, and these N = 4 rankings realise it.
 *   useful a, b; non-useful c, d, e, f
 *   rankings [a b c] [a c d] [b d e] [a e f]
 *   ε = a 3/4, b 2/4, c 2/4, d 2/4, e 2/4, f 1/4            (Σ = 3 = k)
 *   EE-D = (9 + 4 + 4 + 4 + 4 + 1)/16 = 26/16 = 1.625;  EE-D̄ = 1.625/3 = 13/24
 *   Eq. 6 (m ≤ k): useful 1, non-useful (k − m)/(n − m) = 1/4;  bound Eq. 26 = 2 + 1/4 = 9/4
 *   paper EE-R = 3/4 + 2/4 + (1/4)(2/4 + 2/4 + 2/4 + 1/4) = 5/4 + 7/16 = 27/16;  EE-R̄ = 27/36 = 0.75
 *   code  EE-R = 3/4 + 2/4 = 5/4;                                                EE-R̄ = 5/9 ≈ 0.5556
 *   paper EE-L = 26/16 − 2·27/16 + 9/4 = 8/16 = 1/2;   EE-L̄ = (1/2)/(9/4 + 3) = 2/21
 *   code  EE-L = 26/16 − 2·5/4 + 2 = 18/16 = 9/8;       EE-L̄ = (9/8)/(21/4) = 3/14
 */
const E1 = {
  items: labelled(['a', 'b'], ['c', 'd', 'e', 'f']),
  rankings: [
    ['a', 'b', 'c'],
    ['a', 'c', 'd'],
    ['b', 'd', 'e'],
    ['a', 'e', 'f'],
  ],
  k: 3,
};

describe('expectedExposure: worked example E1 (both targets)', () => {
  it('paper target', () => {
    const r = expectedExposure({ ...E1, target: 'paper' });
    expect(r.n).toBe(6);
    expect(r.m).toBe(2);
    expect(r.exposure).toEqual([0.75, 0.5, 0.5, 0.5, 0.5, 0.25]);
    expect(r.target).toEqual([1, 1, 0.25, 0.25, 0.25, 0.25]);
    expect(r.eeD).toBeCloseTo(1.625, 12);
    expect(r.eeDNorm).toBeCloseTo(13 / 24, 12);
    expect(r.eeR).toBeCloseTo(27 / 16, 12);
    expect(r.relevanceBound).toBeCloseTo(9 / 4, 12);
    expect(r.eeRNorm).toBeCloseTo(0.75, 12);
    expect(r.eeL).toBeCloseTo(0.5, 12);
    expect(r.eeLNorm).toBeCloseTo(2 / 21, 12);
  });

  it('code target (non-useful target 0, bound unchanged)', () => {
    const r = expectedExposure({ ...E1, target: 'code' });
    expect(r.target).toEqual([1, 1, 0, 0, 0, 0]);
    expect(r.eeD).toBeCloseTo(1.625, 12);
    expect(r.eeR).toBeCloseTo(1.25, 12);
    expect(r.relevanceBound).toBeCloseTo(9 / 4, 12);
    expect(r.eeRNorm).toBeCloseTo(5 / 9, 12);
    expect(r.eeRNorm.toFixed(4)).toBe('0.5556');
    expect(r.eeL).toBeCloseTo(9 / 8, 12);
    expect(r.eeLNorm).toBeCloseTo(3 / 14, 12);
  });

  it('defaults to the paper target', () => {
    expect(expectedExposure(E1).eeRNorm).toBeCloseTo(0.75, 12);
  });
});

describe('expectedExposure: degenerate and boundary cases', () => {
  it('m > k: useful target k/m, non-useful 0, bound k²/m (both variants agree)', () => {
    // n = 5, useful a b c (m = 3), k = 2; rankings [a b] [c d] → ε = (½, ½, ½, ½, 0).
    // EE-D = 1, EE-D̄ = ½; ε* = (⅔, ⅔, ⅔, 0, 0); EE-R = ⅔·3/2 = 1; bound 4/3 → EE-R̄ = ¾.
    // EE-L = 1 − 2 + 4/3 = 1/3; EE-L̄ = (1/3)/(4/3 + 2) = 1/10.
    for (const target of ['paper', 'code'] as const) {
      const r = expectedExposure({ items: labelled(['a', 'b', 'c'], ['d', 'e']), rankings: [['a', 'b'], ['c', 'd']], k: 2, target });
      expect(r.target.map((x) => x.toFixed(6))).toEqual(['0.666667', '0.666667', '0.666667', '0.000000', '0.000000']);
      expect(r.eeD).toBeCloseTo(1, 12);
      expect(r.eeDNorm).toBeCloseTo(0.5, 12);
      expect(r.eeR).toBeCloseTo(1, 12);
      expect(r.eeRNorm).toBeCloseTo(0.75, 12);
      expect(r.eeL).toBeCloseTo(1 / 3, 12);
      expect(r.eeLNorm).toBeCloseTo(0.1, 12);
    }
  });

  it('m = k with all samples identical (useful on top): EE-D̄ = 1, EE-R̄ = 1, EE-L = 0', () => {
    // n = 4, useful a b, k = 2: ε = (1, 1, 0, 0) = ε* (non-useful target (2 − 2)/2 = 0); bound 2 + 0 = 2.
    const r = expectedExposure({ items: labelled(['a', 'b'], ['c', 'd']), rankings: [['a', 'b'], ['a', 'b'], ['b', 'a']], k: 2, target: 'paper' });
    expect(r.eeD).toBe(2);
    expect(r.eeDNorm).toBe(1);
    expect(r.eeRNorm).toBe(1);
    expect(r.eeL).toBe(0);
  });

  it('all samples identical and useless: EE-D̄ = 1, EE-R = 0', () => {
    const r = expectedExposure({ items: labelled(['a'], ['b', 'c', 'd']), rankings: [['c', 'd'], ['c', 'd']], k: 2, target: 'code' });
    expect(r.eeDNorm).toBe(1);
    expect(r.eeR).toBe(0);
    expect(r.eeRNorm).toBe(0);
  });

  it('m = 0: the paper target is uniform k/n (EE-R̄ = 1 for any full ranking), the code target is 0', () => {
    // n = 4, k = 2, rankings [a b] [c d]: ε = ½ each; EE-D = 1. Paper ε* = k/n = ½ each, EE-R = 1,
    // bound k²/n = 1 → EE-R̄ = 1, EE-L = 0. Code: EE-R = 0, EE-L = ‖ε‖² = 1, EE-L̄ = 1/(1 + 2) = 1/3.
    const base = { items: labelled([], ['a', 'b', 'c', 'd']), rankings: [['a', 'b'], ['c', 'd']], k: 2 };
    const paper = expectedExposure({ ...base, target: 'paper' });
    expect(paper.target).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(paper.eeRNorm).toBe(1);
    expect(paper.eeL).toBe(0);
    const code = expectedExposure({ ...base, target: 'code' });
    expect(code.eeRNorm).toBe(0);
    expect(code.eeL).toBe(1);
    expect(code.eeLNorm).toBeCloseTo(1 / 3, 12);
  });

  it('n < k: rankings of length n, EE-D̄ = n/k; paper uses min(n, k), code Eq. 26 with k', () => {
    // n = 3 (useful a), k = 5: every ranking holds all 3 items, ε = (1, 1, 1), EE-D = 3, EE-D̄ = 3/5.
    // Paper: ε* = (1, (3 − 1)/2 = 1, 1), bound 1 + 2²/2 = 3, EE-R = 3, EE-R̄ = 1, EE-L = 0.
    // Code: ε* = (1, 0, 0), bound 1 + (5 − 1)²/2 = 9, EE-R = 1, EE-R̄ = 1/9, EE-L = 2, EE-L̄ = 2/14.
    const base = { items: labelled(['a'], ['b', 'c']), rankings: [['b', 'a', 'c'], ['c', 'b', 'a']], k: 5 };
    const paper = expectedExposure({ ...base, target: 'paper' });
    expect(paper.eeDNorm).toBeCloseTo(0.6, 12);
    expect(paper.target).toEqual([1, 1, 1]);
    expect(paper.relevanceBound).toBe(3);
    expect(paper.eeRNorm).toBe(1);
    expect(paper.eeL).toBe(0);
    const code = expectedExposure({ ...base, target: 'code' });
    expect(code.relevanceBound).toBe(9);
    expect(code.eeRNorm).toBeCloseTo(1 / 9, 12);
    expect(code.eeLNorm).toBeCloseTo(1 / 7, 12);
  });

  it('n = m ≤ k: the empty non-useful sum makes the bound m (the code divides by zero)', () => {
    // n = m = 2, k = 3: ε = (1, 1) = ε*, bound 2, EE-R̄ = 1, EE-D̄ = 2/3.
    for (const target of ['paper', 'code'] as const) {
      const r = expectedExposure({ items: labelled(['a', 'b'], []), rankings: [['a', 'b']], k: 3, target });
      expect(r.relevanceBound).toBe(2);
      expect(r.eeRNorm).toBe(1);
      expect(r.eeDNorm).toBeCloseTo(2 / 3, 12);
    }
  });

  it('n = m > k: a round-robin policy reaches the target exactly', () => {
    // n = m = 3, k = 2: ε* = ⅔ each; rankings [a b] [b c] [c a] → ε = ⅔ each; EE-R = 3·4/9 = 4/3 = bound.
    const r = expectedExposure({ items: labelled(['a', 'b', 'c'], []), rankings: [['a', 'b'], ['b', 'c'], ['c', 'a']], k: 2 });
    expect(r.eeRNorm).toBeCloseTo(1, 12);
    expect(r.eeD).toBeCloseTo(4 / 3, 12);
    expect(r.eeL).toBeCloseTo(0, 12);
  });

  it('rejects n = 0, N = 0, unknown items and repeated items', () => {
    expect(() => expectedExposure({ items: [], rankings: [[]], k: 2 })).toThrow(/n = 0/);
    expect(() => expectedExposure({ items: labelled(['a'], []), rankings: [], k: 2 })).toThrow(/N = 0/);
    expect(() => expectedExposure({ items: labelled(['a'], ['b']), rankings: [['a', 'z']], k: 2 })).toThrow(DataError);
    expect(() => expectedExposure({ items: labelled(['a'], ['b']), rankings: [['a', 'a']], k: 2 })).toThrow(/twice/);
  });
});

describe('systemExposure (Eq. 5, step model)', () => {
  it('counts duplicate rankings as often as they were sampled', () => {
    // [a b] twice and [c d] once: ε = (2/3, 2/3, 1/3, 1/3), not (1, 1, ½, ½) over distinct rankings.
    const e = systemExposure(['a', 'b', 'c', 'd'], [['a', 'b'], ['a', 'b'], ['c', 'd']], 2);
    expect(e.map((x) => x * 3)).toEqual([2, 2, 1, 1]);
  });

  it('ignores positions after k (the truncation is the user model)', () => {
    expect(systemExposure(['a', 'b', 'c', 'd'], [['a', 'b', 'c', 'd']], 2)).toEqual([1, 1, 0, 0]);
  });

  it('rejects duplicate candidate ids', () => {
    expect(() => systemExposure(['a', 'a'], [['a']], 1)).toThrow(/listed twice/);
  });
});

describe('targetExposure and relevanceUpperBound (Eq. 6, 26, 27)', () => {
  it('reproduces the Eq. 6 table', () => {
    // m ≤ k: useful 1, non-useful (k − m)/(n − m): n = 10, m = 2, k = 5 → 3/8.
    expect(targetExposure([true, true, ...new Array<boolean>(8).fill(false)], 5)).toEqual([1, 1, ...new Array<number>(8).fill(3 / 8)]);
    // m > k: useful k/m = 2/4, non-useful 0.
    expect(targetExposure([true, true, true, true, false], 2)).toEqual([0.5, 0.5, 0.5, 0.5, 0]);
    expect(targetExposure([true, false, false], 2, 'code')).toEqual([1, 0, 0]);
  });

  it('computes the bounds of Eq. 26/27', () => {
    // Eq. 26: n = 10, m = 2, k = 5 → 2 + 9/8 = 3.125.  Eq. 27: m = 4 > k = 2 → 4/4 = 1.
    expect(relevanceUpperBound(10, 2, 5)).toBe(3.125);
    expect(relevanceUpperBound(10, 2, 5, 'code')).toBe(3.125);
    expect(relevanceUpperBound(5, 4, 2)).toBe(1);
    // The bound equals ‖ε*_paper‖² in the paper variant.
    const t = targetExposure([true, true, ...new Array<boolean>(8).fill(false)], 5);
    expect(t.reduce((s, x) => s + x * x, 0)).toBeCloseTo(3.125, 12);
  });
});

describe('sanity (paper Sec. 5): uniform policy', () => {
  it('α = 0 gives EE-D̄ ≈ k/n (+ finite-N bias) and EE-R̄ ≈ m/n when m ≥ k', () => {
    // n = 20, m = 8, k = 5, N = 2000. E[EE-D] = k²/n + Σ ε(1 − ε)/N ≈ 1.25 + 20·0.25·0.75/2000
    // → EE-D̄ ≈ 0.2504. ε_d ≈ k/n = ¼; EE-R = ¼ · (5/8) · 8 = 1.25 over bound k²/m = 25/8 → 0.4 = m/n.
    const ids = Array.from({ length: 20 }, (_, i) => `d${String(i).padStart(2, '0')}`);
    const items = ids.map((id, i) => ({ id, useful: i < 8 }));
    const rankings = samplePlackettLuce({ items: ids.map((id, i) => ({ id, score: i })), alpha: 0, k: 5, samples: 2000, rng: createRng(99) });
    const r = expectedExposure({ items, rankings, k: 5 });
    expect(Math.abs(r.eeDNorm - 0.2504)).toBeLessThan(0.01);
    expect(Math.abs(r.eeRNorm - 0.4)).toBeLessThan(0.02);
  });
});
