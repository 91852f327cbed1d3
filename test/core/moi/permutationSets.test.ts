import { describe, expect, it } from 'vitest';
import {
  allPermutationSet,
  cyclicPermutationSet,
  permutationSet,
  prunedCyclicPermutationSet,
  randomPermutationSet,
} from '../../../src-main/core/moi/permutationSets';

const isPermutationPrefix = (p: number[], n: number) => new Set(p).size === p.length && p.every((x) => Number.isInteger(x) && x >= 0 && x < n);

describe('cyclic permutation set (Eq. 7-9)', () => {
  it('holds the N rotations of the retriever order; phi^(3) for N = 5 is the paper\'s Eq. 10', () => {
    const set = cyclicPermutationSet(5);
    expect(set.permutations).toHaveLength(5);
    // Eq. 10: phi^(3) = [p3, p4, p5, p1, p2] -> 0-based [2, 3, 4, 0, 1]
    expect(set.permutations[2]).toEqual([2, 3, 4, 0, 1]);
    expect(set.permutations[0]).toEqual([0, 1, 2, 3, 4]);
    expect(set).toMatchObject({ kind: 'cyclic', n: 5, length: 5, engineCalls: 5, passagesPerCall: 5, exhaustive: false });
    // Criterion (1) of Sec. 3.2.2: every passage once at every position.
    for (let j = 0; j < 5; j++) expect(new Set(set.permutations.map((p) => p[j])).size).toBe(5);
  });
});

describe('pruned cyclic permutation set (Eq. 5-6)', () => {
  it('keeps the first L passages of each rotation, wrapping around as Eq. 6 says', () => {
    const set = prunedCyclicPermutationSet(5, 3);
    expect(set.permutations).toEqual([
      [0, 1, 2],
      [1, 2, 3],
      [2, 3, 4], // Eq. 5 at k = 3 = N - L + 1: [p3, p4, p5]
      [3, 4, 0], // Eq. 6 at k = 4: [p4, p5, p1]
      [4, 0, 1], // Eq. 6 at k = 5: [p5, p1, p2]
    ]);
    expect(set).toMatchObject({ kind: 'pruned-cyclic', length: 3, engineCalls: 5, passagesPerCall: 3 });
    expect(() => prunedCyclicPermutationSet(5, 6)).toThrow(RangeError);
    expect(() => prunedCyclicPermutationSet(5, 0)).toThrow(RangeError);
  });
});

describe('random permutation set (Sec. 3.2.1)', () => {
  it('draws 3N distinct permutations, reproducible by seed', () => {
    for (const n of [4, 5, 10, 20]) {
      const set = randomPermutationSet(n, 11);
      expect(set.engineCalls).toBe(3 * n);
      expect(set.exhaustive).toBe(false);
      expect(set.note).toBeUndefined();
      expect(new Set(set.permutations.map((p) => p.join())).size).toBe(3 * n);
      for (const p of set.permutations) {
        expect(p).toHaveLength(n);
        expect(isPermutationPrefix(p, n)).toBe(true);
      }
      expect(randomPermutationSet(n, 11).permutations).toEqual(set.permutations);
      expect(randomPermutationSet(n, 12).permutations).not.toEqual(set.permutations);
    }
  });

  it('returns all N! permutations and says so when N! < 3N', () => {
    const three = randomPermutationSet(3, 1);
    expect(three.permutations).toEqual([
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ]);
    expect(three.exhaustive).toBe(true);
    expect(three.engineCalls).toBe(6);
    expect(three.note).toMatch(/only 6 distinct permutations of 3 passages exist/);
    expect(randomPermutationSet(2, 1).permutations).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(randomPermutationSet(1, 1).engineCalls).toBe(1);
    // Exactly N! asked: all of them, nothing to say.
    expect(randomPermutationSet(4, 1, 24)).toMatchObject({ engineCalls: 24, exhaustive: true });
    expect(randomPermutationSet(4, 1, 24).note).toBeUndefined();
  });

  it('takes a custom count (self-consistency uses 30) and places passages uniformly at the front', () => {
    expect(randomPermutationSet(10, 3, 30).engineCalls).toBe(30);
    // First-position counts over 200 sets of 15 permutations of 5 passages: chi-square, 4 df.
    const counts = [0, 0, 0, 0, 0];
    for (let seed = 0; seed < 200; seed++) for (const p of randomPermutationSet(5, seed).permutations) counts[p[0]!]!++;
    const expected = 3000 / 5;
    const chi = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    expect(chi).toBeLessThan(18.47); // 0.999 quantile
  });
});

describe('all permutations', () => {
  it('lists N! permutations lexicographically for N <= 7 and refuses larger N', () => {
    const set = allPermutationSet(4);
    expect(set.engineCalls).toBe(24);
    expect(set.permutations[0]).toEqual([0, 1, 2, 3]);
    expect(set.permutations[23]).toEqual([3, 2, 1, 0]);
    expect(new Set(set.permutations.map((p) => p.join())).size).toBe(24);
    expect(allPermutationSet(7).engineCalls).toBe(5040);
    expect(() => allPermutationSet(8)).toThrow(/N ≤ 7/);
  });
});

describe('permutationSet', () => {
  it('dispatches plain-data specs', () => {
    expect(permutationSet({ kind: 'cyclic', n: 3 }).permutations).toEqual(cyclicPermutationSet(3).permutations);
    expect(permutationSet({ kind: 'pruned-cyclic', n: 6, length: 2 }).engineCalls).toBe(6);
    expect(permutationSet({ kind: 'random', n: 6, seed: 'q17' }).permutations).toEqual(randomPermutationSet(6, 'q17').permutations);
    expect(permutationSet({ kind: 'all', n: 3 }).engineCalls).toBe(6);
  });
});
