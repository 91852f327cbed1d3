import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { oracleLogits, sampleOracle } from '../../../src-main/core/sampling/oracleRetriever';
import { topKInclusionProbabilities } from '../../../src-main/core/sampling/plackettLuceProbabilities';

const items = [
  { id: 'u1', useful: true },
  { id: 'n1', useful: false },
  { id: 'u2', useful: true },
  { id: 'u3', useful: true },
  { id: 'n2', useful: false },
];

describe('sampleOracle (useful items first, uniform within each group)', () => {
  it('puts the useful items on top, each first about 1/3 of the time', () => {
    const N = 3000;
    const r = sampleOracle({ items, k: 4, samples: N, rng: createRng(11) });
    const misplaced = r.filter((x) => x.slice(0, 3).sort().join() !== 'u1,u2,u3' || !['n1', 'n2'].includes(x[3] as string));
    expect(misplaced).toEqual([]);
    // χ² of the first position against 1/3 each: df 2, 0.999 quantile 13.816.
    const counts = ['u1', 'u2', 'u3'].map((id) => r.filter((x) => x[0] === id).length);
    const chi = counts.reduce((s, c) => s + (c - N / 3) ** 2 / (N / 3), 0);
    expect(chi).toBeLessThan(13.816);
  });

  it('m > k keeps only useful items; m = 0 is a uniform shuffle; n < k gives length n', () => {
    for (const x of sampleOracle({ items, k: 2, samples: 50, rng: createRng(1) })) {
      expect(x).toHaveLength(2);
      for (const id of x) expect(id.startsWith('u')).toBe(true);
    }
    const none = items.map((it) => ({ ...it, useful: false }));
    const seen = new Set(sampleOracle({ items: none, k: 1, samples: 200, rng: createRng(2) }).map((x) => x[0]));
    expect(seen.size).toBe(5);
    for (const x of sampleOracle({ items, k: 9, samples: 5, rng: createRng(3) })) expect(x.slice().sort()).toEqual(['n1', 'n2', 'u1', 'u2', 'u3']);
  });

  it('is the PL policy with the code logits 1e8 / 0 (exact inclusion 1 for useful, 1/2 for the rest at k = 4)', () => {
    expect(oracleLogits(items)).toEqual([1e8, 0, 1e8, 1e8, 0]);
    expect(topKInclusionProbabilities(oracleLogits(items), 4)).toEqual([1, 0.5, 1, 1, 0.5]);
  });

  it('is reproducible for a seed', () => {
    expect(sampleOracle({ items, k: 3, samples: 20, rng: createRng(5) })).toEqual(sampleOracle({ items, k: 3, samples: 20, rng: createRng(5) }));
  });
});
