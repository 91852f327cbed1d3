import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { createRng } from '../../../src-main/core/random/rng';
import { deterministicTopK } from '../../../src-main/core/sampling/deterministicTopK';
import { plackettLuceLogits, samplePlackettLuce, sampleTopKByLogits, type ScoredItem } from '../../../src-main/core/sampling/plackettLuce';
import { firstPositionProbabilities, prefixProbability, topKInclusionProbabilities } from '../../../src-main/core/sampling/plackettLuceProbabilities';

/**
 * Pearson χ² = Σ (observed − N·p)² / (N·p) over the cells with p > 0.
 * Critical values (upper 0.001 quantiles of χ², from standard tables):
 *   df 2: 13.816   df 4: 18.467   df 9: 27.877
 * A correct sampler fails such a test at a given seed with probability 0.001; the seeds are fixed,
 * so the tests are deterministic.
 */
const CHI2_999 = { 2: 13.816, 4: 18.467, 9: 27.877 } as const;

function chiSquare(observed: number[], probs: number[]): number {
  const N = observed.reduce((a, b) => a + b, 0);
  let chi = 0;
  probs.forEach((p, i) => {
    const o = observed[i] as number;
    if (p === 0) {
      if (o > 0) chi = Infinity; // an impossible outcome happened
      return;
    }
    chi += (o - N * p) ** 2 / (N * p);
  });
  return chi;
}

const FIVE: ScoredItem[] = [0, 1, 2, 3, 4].map((s) => ({ id: `d${s}`, score: s }));
const ids = (items: ScoredItem[]): string[] => items.map((it) => it.id);

function firstCounts(rankings: string[][], idList: string[]): number[] {
  const counts = new Array<number>(idList.length).fill(0);
  for (const r of rankings) counts[idList.indexOf(r[0] as string)]++;
  return counts;
}

/** The 10 unordered 3-subsets of 5 items with their exact probability (sum over the 3! orders). */
function topThreeSetCells(logits: number[]): { key: string; p: number }[] {
  const cells: { key: string; p: number }[] = [];
  for (let a = 0; a < 5; a++)
    for (let b = a + 1; b < 5; b++)
      for (let c = b + 1; c < 5; c++) {
        const perms = [[a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]];
        cells.push({ key: `${a}${b}${c}`, p: perms.reduce((s, pr) => s + prefixProbability(logits, pr), 0) });
      }
  return cells;
}

describe('samplePlackettLuce: Gumbel top-k vs exact PL probabilities', () => {
  const N = 20000;
  // s̄ = [1, 1.25, 1.5, 1.75, 2], α = 2 → logits [1, 1.5625, 2.25, 3.0625, 4]: a spread-out PL.
  const logits = plackettLuceLogits(
    FIVE.map((it) => it.score),
    2,
  );
  const rankings = samplePlackettLuce({ items: FIVE, alpha: 2, k: 3, samples: N, rng: createRng(20240918) });

  it('returns N rankings of k distinct items', () => {
    expect(rankings).toHaveLength(N);
    for (const r of rankings.slice(0, 100)) {
      expect(r).toHaveLength(3);
      expect(new Set(r).size).toBe(3);
    }
  });

  it('first-position frequencies pass χ² (df 4, 0.999) against Eq. 2', () => {
    const chi = chiSquare(firstCounts(rankings, ids(FIVE)), firstPositionProbabilities(logits));
    expect(chi).toBeLessThan(CHI2_999[4]);
  });

  it('top-3 set frequencies pass χ² (df 9, 0.999); per-item inclusion within 4 binomial s.d.', () => {
    const cells = topThreeSetCells(logits);
    const observed = new Array<number>(cells.length).fill(0);
    for (const r of rankings) {
      const key = r
        .map((id) => ids(FIVE).indexOf(id))
        .sort((x, y) => x - y)
        .join('');
      observed[cells.findIndex((c) => c.key === key)]++;
    }
    expect(chiSquare(observed, cells.map((c) => c.p))).toBeLessThan(CHI2_999[9]);

    const incl = topKInclusionProbabilities(logits, 3);
    ids(FIVE).forEach((id, i) => {
      const count = rankings.filter((r) => r.includes(id)).length;
      const p = incl[i] as number;
      expect(Math.abs(count - N * p) / Math.sqrt(N * p * (1 - p))).toBeLessThan(4);
    });
  });

  it('the test has power: the same samples reject a different α', () => {
    // α = 1 logits [1, 1.25, 1.5, 1.75, 2] are a visibly flatter PL.
    const wrong = plackettLuceLogits(
      FIVE.map((it) => it.score),
      1,
    );
    expect(chiSquare(firstCounts(rankings, ids(FIVE)), firstPositionProbabilities(wrong))).toBeGreaterThan(100);
  });

  it('code normalisation samples the shifted distribution, and the paper one is rejected', () => {
    // scores [−1, 0, 1]: paper s̄ = [1, 1.5, 2]; code s̄ = 1 + (s + 2)/2 = [1.5, 2, 2.5]. α = 2.
    const items: ScoredItem[] = [
      { id: 'neg', score: -1 },
      { id: 'zero', score: 0 },
      { id: 'pos', score: 1 },
    ];
    const codeLogits = [2.25, 4, 6.25];
    expect(plackettLuceLogits([-1, 0, 1], 2, 'code')).toEqual(codeLogits);
    const sample = samplePlackettLuce({ items, alpha: 2, k: 1, samples: 20000, rng: createRng(7), normalization: 'code' });
    const counts = firstCounts(sample, ['neg', 'zero', 'pos']);
    expect(chiSquare(counts, firstPositionProbabilities(codeLogits))).toBeLessThan(CHI2_999[2]);
    expect(chiSquare(counts, firstPositionProbabilities(plackettLuceLogits([-1, 0, 1], 2, 'paper')))).toBeGreaterThan(100);
  });
});

describe('samplePlackettLuce: the α extremes', () => {
  it('α = 8 on [1, 2]-normalised scores is (almost) the deterministic ranking', () => {
    // logits 1, 1.25^8 ≈ 5.96, 1.5^8 ≈ 25.6, 1.75^8 ≈ 88.0, 256: the smallest gap among the top 3
    // decisions is 25.6 − 5.96 ≈ 19.7, so a deviation has probability < 5e-9 per sample.
    const rankings = samplePlackettLuce({ items: FIVE, alpha: 8, k: 3, samples: 1000, rng: createRng(1) });
    const top = deterministicTopK(FIVE, 3);
    expect(top).toEqual(['d4', 'd3', 'd2']);
    for (const r of rankings) expect(r).toEqual(top);
    const logits = plackettLuceLogits(
      FIVE.map((it) => it.score),
      8,
    );
    expect(prefixProbability(logits, [4, 3, 2])).toBeGreaterThan(1 - 1e-8);
  });

  it('α = 0 is uniform (χ² df 4 against 1/5), whatever the scores', () => {
    const rankings = samplePlackettLuce({ items: FIVE, alpha: 0, k: 2, samples: 10000, rng: createRng(2) });
    expect(chiSquare(firstCounts(rankings, ids(FIVE)), [0.2, 0.2, 0.2, 0.2, 0.2])).toBeLessThan(CHI2_999[4]);
  });

  it('all-equal scores are uniform at any α (the paper intent, not the code freeze)', () => {
    const flat = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, score: 0 }));
    const rankings = samplePlackettLuce({ items: flat, alpha: 8, k: 2, samples: 10000, rng: createRng(3) });
    expect(chiSquare(firstCounts(rankings, ids(flat)), [0.2, 0.2, 0.2, 0.2, 0.2])).toBeLessThan(CHI2_999[4]);
    expect(new Set(rankings.map((r) => r.join(' '))).size).toBe(20); // all 5·4 ordered pairs occur
  });
});

describe('samplePlackettLuce: seeds, shapes and degenerate inputs', () => {
  it('is reproducible for a seed and differs across seeds', () => {
    const a = samplePlackettLuce({ items: FIVE, alpha: 1, k: 3, samples: 50, rng: createRng(42) });
    const b = samplePlackettLuce({ items: FIVE, alpha: 1, k: 3, samples: 50, rng: createRng(42) });
    const c = samplePlackettLuce({ items: FIVE, alpha: 1, k: 3, samples: 50, rng: createRng(43) });
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('n < k gives rankings of length n; samples = 0 gives none; no items gives empty rankings', () => {
    const two = FIVE.slice(0, 2);
    const r = samplePlackettLuce({ items: two, alpha: 1, k: 5, samples: 10, rng: createRng(5) });
    for (const x of r) expect(x.slice().sort()).toEqual(['d0', 'd1']);
    expect(samplePlackettLuce({ items: FIVE, alpha: 1, k: 3, samples: 0, rng: createRng(5) })).toEqual([]);
    expect(samplePlackettLuce({ items: [], alpha: 1, k: 3, samples: 2, rng: createRng(5) })).toEqual([[], []]);
  });

  it('huge logits (oracle 1e8 vs 0) sample without NaN and stay uniform within the top group', () => {
    const N = 4000;
    const rankings = sampleTopKByLogits({ ids: ['u1', 'n1', 'u2', 'n2', 'n3'], logits: [1e8, 0, 1e8, 0, 0], k: 3, samples: N, rng: createRng(9) });
    const misplaced = rankings.filter((r) => r.slice(0, 2).sort().join() !== 'u1,u2' || !['n1', 'n2', 'n3'].includes(r[2] as string));
    expect(misplaced).toEqual([]);
    // u1 first ~ Binomial(N, 1/2): χ² df 1 with 0.999 quantile 10.828.
    const u1First = rankings.filter((r) => r[0] === 'u1').length;
    expect(chiSquare([u1First, N - u1First], [0.5, 0.5])).toBeLessThan(10.828);
    // third position uniform over the 3 non-useful items (df 2).
    const third = ['n1', 'n2', 'n3'].map((id) => rankings.filter((r) => r[2] === id).length);
    expect(chiSquare(third, [1 / 3, 1 / 3, 1 / 3])).toBeLessThan(CHI2_999[2]);
  });

  it('rejects duplicate ids, bad k, bad sample counts and non-finite logits', () => {
    const rng = createRng(0);
    expect(() => samplePlackettLuce({ items: [FIVE[0] as ScoredItem, FIVE[0] as ScoredItem], alpha: 1, k: 1, samples: 1, rng })).toThrow(DataError);
    expect(() => samplePlackettLuce({ items: FIVE, alpha: 1, k: 0, samples: 1, rng })).toThrow(/k must be/);
    expect(() => samplePlackettLuce({ items: FIVE, alpha: 1, k: 1.5, samples: 1, rng })).toThrow(/k must be/);
    expect(() => samplePlackettLuce({ items: FIVE, alpha: 1, k: 1, samples: -1, rng })).toThrow(/samples/);
    expect(() => sampleTopKByLogits({ ids: ['a'], logits: [Infinity], k: 1, samples: 1, rng })).toThrow(/finite/);
    expect(() => sampleTopKByLogits({ ids: ['a', 'b'], logits: [0], k: 1, samples: 1, rng })).toThrow(/2 ids but 1 logits/);
  });
});

describe('deterministicTopK', () => {
  it('sorts by score and breaks ties by id', () => {
    const items = [
      { id: 'b', score: 1 },
      { id: 'a', score: 1 },
      { id: 'c', score: 2 },
      { id: 'd', score: 0 },
    ];
    expect(deterministicTopK(items, 3)).toEqual(['c', 'a', 'b']);
    expect(deterministicTopK(items, 10)).toEqual(['c', 'a', 'b', 'd']);
    expect(deterministicTopK([], 2)).toEqual([]);
    expect(() => deterministicTopK([{ id: 'x', score: Number.NaN }], 1)).toThrow(DataError);
  });
});
