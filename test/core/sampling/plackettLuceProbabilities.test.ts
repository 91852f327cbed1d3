import { describe, expect, it } from 'vitest';
import {
  firstPositionProbabilities,
  prefixProbability,
  topKInclusionProbabilities,
} from '../../../src-main/core/sampling/plackettLuceProbabilities';

// Logits ln 1, ln 2, ln 3 give PL weights exp(w) = 1, 2, 3.
const W123 = [0, Math.log(2), Math.log(3)];

/** Inclusion probabilities by brute force: sum of prefix probabilities over all ordered k-prefixes. */
function bruteInclusion(logits: number[], k: number): number[] {
  const n = logits.length;
  const incl = new Array<number>(n).fill(0);
  const walk = (prefix: number[]): void => {
    if (prefix.length === Math.min(n, k)) {
      const p = prefixProbability(logits, prefix);
      for (const d of prefix) incl[d] = (incl[d] as number) + p;
      return;
    }
    for (let i = 0; i < n; i++) if (!prefix.includes(i)) walk([...prefix, i]);
  };
  walk([]);
  return incl;
}

describe('exact Plackett–Luce probabilities', () => {
  it('first position is the softmax of the logits', () => {
    // weights 1, 2, 3 → 1/6, 2/6, 3/6.
    const p = firstPositionProbabilities(W123);
    expect(p[0]).toBeCloseTo(1 / 6, 14);
    expect(p[1]).toBeCloseTo(2 / 6, 14);
    expect(p[2]).toBeCloseTo(3 / 6, 14);
  });

  it('prefix probability multiplies the renormalised factors', () => {
    // p(2, 1) = 3/6 · 2/(1 + 2) = 1/3;  p(0, 2) = 1/6 · 3/(2 + 3) = 1/10; empty prefix = 1.
    expect(prefixProbability(W123, [2, 1])).toBeCloseTo(1 / 3, 14);
    expect(prefixProbability(W123, [0, 2])).toBeCloseTo(1 / 10, 14);
    expect(prefixProbability(W123, [0, 2, 1])).toBeCloseTo(1 / 10, 14);
    expect(prefixProbability(W123, [])).toBe(1);
  });

  it('top-2 inclusion of weights 1, 2, 3 matches the hand computation', () => {
    // P(d last) over the 2 orders ending in d:
    //  0 last: (1,2,0) 2/6·3/4 = 1/4, (2,1,0) 3/6·2/3 = 1/3 → 7/12  → incl 5/12
    //  1 last: (0,2,1) 1/6·3/5 = 1/10, (2,0,1) 3/6·1/3 = 1/6 → 4/15 → incl 11/15
    //  2 last: (0,1,2) 1/6·2/5 = 1/15, (1,0,2) 2/6·1/4 = 1/12 → 3/20 → incl 17/20
    // (sum 5/12 + 11/15 + 17/20 = 2 = k).
    const incl = topKInclusionProbabilities(W123, 2);
    expect(incl[0]).toBeCloseTo(5 / 12, 14);
    expect(incl[1]).toBeCloseTo(11 / 15, 14);
    expect(incl[2]).toBeCloseTo(17 / 20, 14);
  });

  it('subset recursion agrees with brute-force enumeration of ordered prefixes', () => {
    const logits = [0.3, 1.7, 1.1, 2.9, 0.0, 1.4];
    for (const k of [1, 2, 3, 5]) {
      const fast = topKInclusionProbabilities(logits, k);
      const slow = bruteInclusion(logits, k);
      fast.forEach((v, i) => expect(v).toBeCloseTo(slow[i] as number, 12));
      expect(fast.reduce((a, b) => a + b, 0)).toBeCloseTo(k, 12);
    }
  });

  it('n ≤ k includes everything', () => {
    expect(topKInclusionProbabilities(W123, 3)).toEqual([1, 1, 1]);
    expect(topKInclusionProbabilities(W123, 10)).toEqual([1, 1, 1]);
    expect(topKInclusionProbabilities([], 2)).toEqual([]);
  });

  it('huge logits (oracle 1e8 vs 0) give exact 0/1 factors and no NaN', () => {
    const oracle = [1e8, 0, 1e8, 0];
    expect(firstPositionProbabilities(oracle)).toEqual([0.5, 0, 0.5, 0]);
    expect(topKInclusionProbabilities(oracle, 2)).toEqual([1, 0, 1, 0]);
    // After both useful items, the two non-useful ones are equally likely: 1/2 each for k = 3.
    expect(topKInclusionProbabilities(oracle, 3)).toEqual([1, 0.5, 1, 0.5]);
    expect(prefixProbability(oracle, [0, 2, 3])).toBe(0.25);
    expect(prefixProbability(oracle, [1])).toBe(0);
    expect(topKInclusionProbabilities([1e300, -1e300, 0], 2).some(Number.isNaN)).toBe(false);
  });

  it('rejects bad arguments', () => {
    expect(() => prefixProbability(W123, [0, 0])).toThrow(/repeats/);
    expect(() => prefixProbability(W123, [3])).toThrow(/out of range/);
    expect(() => firstPositionProbabilities([Number.NaN])).toThrow(RangeError);
    expect(() => topKInclusionProbabilities(W123, 0)).toThrow(RangeError);
    expect(() => topKInclusionProbabilities(new Array<number>(25).fill(0), 2)).toThrow(/n ≤ 24/);
  });
});
