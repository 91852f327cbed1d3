import { describe, expect, it } from 'vitest';
import { createRng, hash32 } from '../../src-main/core/random/rng';

describe('createRng', () => {
  it('repeats the same stream for the same seed and differs across seeds', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(xs);
  });

  it('draws floats in [0,1) with the right mean and integers without bias', () => {
    const r = createRng(7);
    let sum = 0;
    const counts = [0, 0, 0];
    for (let i = 0; i < 30000; i++) {
      const u = r.nextFloat();
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      sum += u;
      counts[r.nextInt(3)]!++;
    }
    expect(sum / 30000).toBeCloseTo(0.5, 2);
    // chi-square with 2 df, 0.999 quantile is 13.8
    const chi = counts.reduce((s, c) => s + (c - 10000) ** 2 / 10000, 0);
    expect(chi).toBeLessThan(13.8);
  });

  it('gives Gumbel variates with mean equal to the Euler–Mascheroni constant', () => {
    const r = createRng(1);
    let s = 0;
    for (let i = 0; i < 50000; i++) s += r.nextGumbel();
    expect(s / 50000).toBeCloseTo(0.5772, 1);
  });

  it('shuffles into a permutation and forks into independent reproducible streams', () => {
    const r = createRng('seed');
    const p = r.shuffled([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...p].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(createRng(5).fork('q1').nextUint32()).toBe(createRng(5).fork('q1').nextUint32());
    expect(createRng(5).fork('q1').nextUint32()).not.toBe(createRng(5).fork('q2').nextUint32());
  });

  it('hashes strings with FNV-1a', () => {
    // FNV-1a 32-bit of "a" is 0xe40c292c (published test vector).
    expect(hash32('a')).toBe(0xe40c292c);
    expect(hash32('')).toBe(0x811c9dc5);
  });
});
