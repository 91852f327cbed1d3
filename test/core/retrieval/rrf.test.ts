import { describe, expect, it } from 'vitest';
import { reciprocalRankFusion } from '../../../src-main/core/retrieval/rrf';
import { compareScoredDesc, topK } from '../../../src-main/core/retrieval/ranking';

describe('reciprocal rank fusion', () => {
  /*
   * A = [a, b, c], B = [b, d, a], k = 60, 1-based ranks:
   *   a: 1/61 + 1/63 = 0.0322661, b: 1/62 + 1/61 = 0.0325225, c: 1/63 = 0.0158730, d: 1/62 = 0.0161290
   *   → b, a, d, c
   * 0-based (RAG-Fusion): a: 1/60 + 1/62, b: 1/61 + 1/60, c: 1/62, d: 1/61 → b, a, d, c
   */
  const A = ['a', 'b', 'c'];
  const B = ['b', 'd', 'a'];

  it('equals the hand-computed fused scores (k = 60, 1-based)', () => {
    const fused = reciprocalRankFusion([A, B]);
    expect(fused.map((f) => f.id)).toEqual(['b', 'a', 'd', 'c']);
    const byId = Object.fromEntries(fused.map((f) => [f.id, f.score]));
    expect(byId.a).toBeCloseTo(1 / 61 + 1 / 63, 15);
    expect(byId.b).toBeCloseTo(1 / 62 + 1 / 61, 15);
    expect(byId.c).toBeCloseTo(1 / 63, 15);
    expect(byId.d).toBeCloseTo(1 / 62, 15);
    expect(byId.b).toBeCloseTo(0.0325225, 7);
  });

  it('0-based ranks (RAG-Fusion reference code) and another k', () => {
    const byId = Object.fromEntries(reciprocalRankFusion([A, B], { rankBase: 0 }).map((f) => [f.id, f.score]));
    expect(byId.a).toBeCloseTo(1 / 60 + 1 / 62, 15);
    expect(byId.d).toBeCloseTo(1 / 61, 15);
    const k1 = Object.fromEntries(reciprocalRankFusion([A, B], { k: 1 }).map((f) => [f.id, f.score]));
    expect(k1.a).toBeCloseTo(1 / 2 + 1 / 4, 15);
  });

  it("ties: trec_eval's docno-descending order by default; 'first-seen' keeps RAG-Fusion's order (lists in order, each from its top)", () => {
    const first = { ties: 'first-seen' as const };
    expect(reciprocalRankFusion([['x', 'y'], ['y', 'x']], first).map((f) => f.id)).toEqual(['x', 'y']);
    expect(reciprocalRankFusion([['y', 'x'], ['x', 'y']], first).map((f) => f.id)).toEqual(['y', 'x']);
    // c and d tie at 1/62 + 0: c first seen (list 1) before d (list 2)
    expect(reciprocalRankFusion([['a', 'c'], ['b', 'd']], first).map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
    // default: x and y tie at 1/61 + 1/62 whichever list comes first: y (docno descending) first
    expect(reciprocalRankFusion([['x', 'y'], ['y', 'x']]).map((f) => f.id)).toEqual(['y', 'x']);
    expect(reciprocalRankFusion([['y', 'x'], ['x', 'y']]).map((f) => f.id)).toEqual(['y', 'x']);
    expect(reciprocalRankFusion([['a', 'c'], ['b', 'd']]).map((f) => f.id)).toEqual(['b', 'a', 'd', 'c']);
  });

  it('RRF of a ranking with itself is that ranking', () => {
    const run = ['d9', 'd10', 'b', 'a', 'z'];
    expect(reciprocalRankFusion([run, run]).map((f) => f.id)).toEqual(run);
    expect(reciprocalRankFusion([run, run], { ties: 'first-seen', rankBase: 0 }).map((f) => f.id)).toEqual(run);
  });

  it('depth truncates every list; empty input fuses to nothing; repeated ids are refused', () => {
    expect(reciprocalRankFusion([A, B], { depth: 1, ties: 'first-seen' }).map((f) => f.id)).toEqual(['a', 'b']); // both 1/61: first seen
    expect(reciprocalRankFusion([A, B], { depth: 1 }).map((f) => f.id)).toEqual(['b', 'a']); // both 1/61: docno descending
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
    expect(() => reciprocalRankFusion([['a', 'a']])).toThrow(/twice/);
    expect(() => reciprocalRankFusion([A], { k: -1 })).toThrow(/k/);
  });
});

describe('ranking order', () => {
  it("score descending, ties by id descending (trec_eval's order, byte-wise: d9 before d10), NaN last", () => {
    const items = [
      { id: 'b', score: 1 },
      { id: 'a', score: 1 },
      { id: 'n', score: Number.NaN },
      { id: 'c', score: 2 },
    ];
    expect([...items].sort(compareScoredDesc).map((i) => i.id)).toEqual(['c', 'b', 'a', 'n']);
    expect(topK(items, 2).map((i) => i.id)).toEqual(['c', 'b']);
    expect(topK([{ id: 'd10', score: 0 }, { id: 'd9', score: 0 }]).map((i) => i.id)).toEqual(['d9', 'd10']);
    expect(() => topK(items, -1)).toThrow();
  });
});

describe("RRF 'first-seen' as a stored run (retrieval/runs/fusionRun.ts)", () => {
  it('lowers tied scores by the least amount so that trec_eval reads the first-seen order', async () => {
    const { fuseRunsCounted, strictlyInRankOrder } = await import('../../../src-main/retrieval/runs/fusionRun');
    // x, y tie at 1/61 + 1/62; first-seen keeps x first, trec_eval would put y first: y is lowered to the next double below.
    const ranking = reciprocalRankFusion([['x', 'y'], ['y', 'x']], { ties: 'first-seen' });
    expect(ranking.map((h) => h.id)).toEqual(['x', 'y']);
    const tied = ranking[0]!.score;
    expect(strictlyInRankOrder(ranking)).toBe(1);
    expect(ranking[1]!.score).toBeLessThan(tied);
    expect(ranking[1]!.score).toBe(tied - 2 ** -57); // one ulp: 0.0325… lies in [2^-5, 2^-4), where doubles are 2^-5 · 2^-52 apart
    // Already in trec_eval's order: nothing changes.
    const run = new Map([['q', [{ id: 'b', score: 1 }, { id: 'a', score: 1 }]]]);
    const same = fuseRunsCounted([run, run], 10, { ties: 'first-seen' });
    expect(same.nudged).toBe(0);
    expect(same.rankings.get('q')!.map((h) => h.id)).toEqual(['b', 'a']);
  });
});
