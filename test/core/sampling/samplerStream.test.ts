/**
 * Issue 18 item 2: the partial-selection sampler must return exactly the rankings of the previous
 * full-sort implementation (test/bench/baselines/samplerV0.ts) for every generator state, and leave
 * the generator in the same state, so the sample stream of every seed is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../../src-main/core/random/rng';
import { sampleTopKByLogits, topKSampler } from '../../../src-main/core/sampling/plackettLuce';
import { sampleTopKByLogitsV0 } from '../../bench/baselines/samplerV0';

interface Case {
  ids: string[];
  logits: number[];
  k: number;
  samples: number;
}

/** Random cases with the shapes that matter: k below, at and above n, k > 64 (full-sort path), ties. */
function randomCase(rng: Rng): Case {
  const n = rng.nextInt(10) === 0 ? rng.nextInt(200) : rng.nextInt(30);
  // Ids in an order unrelated to their code-unit order, some sharing prefixes, some non-ASCII.
  const ids = rng.shuffled(Array.from({ length: n }, (_, i) => [`d${i}`, `D${i * 7}`, `d${i}x`, `é${i}`, `${i}`][i % 5] as string));
  const kind = rng.nextInt(6);
  const logits = ids.map(() => {
    switch (kind) {
      case 0:
        return rng.nextFloat() * 4; // α-powered scores
      case 1:
        return rng.nextInt(3); // many equal logits
      case 2:
        return rng.nextInt(2) === 0 ? 1e8 : 0; // the oracle's logits
      case 3:
        return rng.nextInt(2) === 0 ? 1e17 : 0; // G rounds to multiples of 16: exact key ties
      case 4:
        return rng.nextInt(2) === 0 ? 1e300 : 0; // −1e300 + G = −1e300: the low group ties entirely
      default:
        return 0; // uniform
    }
  });
  const k = rng.nextInt(8) === 0 ? 1 + rng.nextInt(n + 100) : 1 + rng.nextInt(Math.max(1, Math.min(n + 2, 12)));
  return { ids, logits, k, samples: rng.nextInt(12) };
}

describe('sampleTopKByLogits: the same stream as the full-sort implementation', () => {
  it('returns identical rankings and leaves the generator in the same state (3,000 seeds)', () => {
    const cases = createRng('sampler-stream-cases');
    let compared = 0;
    let withTies = 0;
    for (let seed = 0; seed < 3000; seed++) {
      const c = randomCase(cases);
      const a = createRng(seed);
      const b = createRng(seed);
      const expected = sampleTopKByLogitsV0({ ...c, rng: a });
      const got = sampleTopKByLogits({ ...c, rng: b });
      expect(got, `seed ${seed}, n ${c.ids.length}, k ${c.k}`).toEqual(expected);
      expect(b.nextUint32(), `generator state after seed ${seed}`).toBe(a.nextUint32());
      compared += got.length;
      if (c.logits.some((w) => w >= 1e17)) withTies++;
    }
    expect(compared).toBeGreaterThan(10_000);
    expect(withTies).toBeGreaterThan(500);
  });

  it('agrees on the paper workload shape (100 candidates, k = 5, N = 100) for 200 seeds', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `doc${(i * 37) % 100}`);
    const logits = ids.map((_, i) => (1 + i / 99) ** 2);
    for (let seed = 1000; seed < 1200; seed++) {
      expect(sampleTopKByLogits({ ids, logits, k: 5, samples: 100, rng: createRng(seed) })).toEqual(
        sampleTopKByLogitsV0({ ids, logits, k: 5, samples: 100, rng: createRng(seed) }),
      );
    }
  });

  it('orders exact key ties by id: logits 1e300 and 0 leave the low group in code-unit order', () => {
    // −1e300 + G == −1e300 for every G, so 'b', 'c', 'a' (logit 0) always follow the two high items by id.
    const got = sampleTopKByLogits({ ids: ['c', 'hi2', 'b', 'hi1', 'a'], logits: [0, 1e300, 0, 1e300, 0], k: 5, samples: 50, rng: createRng(4) });
    for (const r of got) expect(r.slice(2)).toEqual(['a', 'b', 'c']);
    expect(new Set(got.map((r) => r.slice(0, 2).join()))).toEqual(new Set(['hi1,hi2', 'hi2,hi1']));
  });

  it('topKSampler writes indices and refuses a too-short output array', () => {
    const s = topKSampler({ ids: ['x', 'y', 'z'], logits: [0, 1e300, 0], k: 2, samples: 1 });
    const top = new Int32Array(2);
    s.draw(createRng(1), top);
    expect(Array.from(top)).toEqual([1, 0]);
    expect(() => s.draw(createRng(1), new Int32Array(1))).toThrow(/holds 1 slots, the depth is 2/);
  });
});

describe('Rng.fillGumbel', () => {
  it('gives exactly the values of repeated nextGumbel and the same final state', () => {
    for (const seed of [0, 1, 42, 0xffffffff, 'text seed']) {
      const a = createRng(seed);
      const b = createRng(seed);
      const batch = new Float64Array(1000);
      b.fillGumbel(batch, 999);
      const one = Array.from({ length: 999 }, () => a.nextGumbel());
      expect(Array.from(batch.subarray(0, 999))).toEqual(one);
      expect(batch[999]).toBe(0);
      expect(b.nextUint32()).toBe(a.nextUint32());
      expect(b.nextFloat()).toBe(a.nextFloat());
    }
  });

  it('refuses a count outside the array', () => {
    expect(() => createRng(1).fillGumbel(new Float64Array(2), 3)).toThrow(/count must be an integer in 0..2/);
    expect(() => createRng(1).fillGumbel(new Float64Array(2), -1)).toThrow(RangeError);
  });
});
