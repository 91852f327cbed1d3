/**
 * The random prefix-pruned permutation set (issue 23 item 1: designs that break the mirror symmetry):
 * 3N distinct L-prefixes of seeded random permutations; and, on planted truth drawn at random (seed
 * from the date or FAIRGROUND_SEED, printed), the default solver recovers a planted *recency* bias
 * with its orientation from such prompts (τ(û, u*) = +1, orientation 'identified'), where full-length
 * random-3N prompts of the same truth return its mirror under the default rule (τ = −1, orientation by the rule).
 */
import { describe, expect, it } from 'vitest';
import { kendallTau } from '../../../src-main/core/moi/kendallTau';
import { permutationSet, randomPermutationSet, randomPrunedPermutationSet } from '../../../src-main/core/moi/permutationSets';
import { solveMoi } from '../../../src-main/core/moi/solveMoi';
import { createRng } from '../../../src-main/core/random/rng';

const SEED = process.env.FAIRGROUND_SEED ?? new Date().toISOString().slice(0, 10);

describe('random prefix-pruned permutation set', () => {
  it('gives count distinct L-prefixes, deterministic in the seed', () => {
    const set = randomPrunedPermutationSet(6, 3, 'seed-a');
    expect(set).toMatchObject({ kind: 'random-pruned', n: 6, length: 3, engineCalls: 18, passagesPerCall: 3, exhaustive: false });
    expect(set.permutations).toHaveLength(18);
    expect(new Set(set.permutations.map((p) => p.join(','))).size).toBe(18);
    for (const p of set.permutations) {
      expect(p).toHaveLength(3);
      expect(new Set(p).size).toBe(3);
      expect(p.every((x) => Number.isInteger(x) && x >= 0 && x < 6)).toBe(true);
    }
    expect(randomPrunedPermutationSet(6, 3, 'seed-a').permutations).toEqual(set.permutations);
    expect(randomPrunedPermutationSet(6, 3, 'seed-b').permutations).not.toEqual(set.permutations);
    expect(permutationSet({ kind: 'random-pruned', n: 6, length: 3, seed: 'seed-a' }).permutations).toEqual(set.permutations);
  });

  it('returns every prefix when fewer than count exist (N = 4, L = 1: 4 prefixes; N = 3, L = 2: 6), and says so', () => {
    const one = randomPrunedPermutationSet(4, 1, 0);
    expect(one.permutations).toEqual([[0], [1], [2], [3]]);
    expect(one.exhaustive).toBe(true);
    expect(one.note).toContain('only 4 distinct 1-prefixes');
    const two = randomPrunedPermutationSet(3, 2, 0);
    expect(two.permutations).toEqual([[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]);
    // N = 20, L = 1 with count 60: the 20 prefixes are listed without enumerating 20! permutations.
    expect(randomPrunedPermutationSet(20, 1, 0).permutations).toHaveLength(20);
  });

  it('L = N is a full-length random set; bad L or count is refused', () => {
    expect(randomPrunedPermutationSet(5, 5, 1).length).toBe(5);
    expect(() => randomPrunedPermutationSet(5, 6, 1)).toThrow(/L must be an integer in 1..5/);
    expect(() => randomPrunedPermutationSet(5, 0, 1)).toThrow(RangeError);
    expect(() => randomPrunedPermutationSet(5, 2, 1, 0)).toThrow(/count must be a positive integer/);
  });
});

/** a_j ∝ 1/(L + 1 − j): the simulated reader's recency shape (engine/sim/profile.ts), written out here. */
const recency = (L: number) => {
  const raw = Array.from({ length: L }, (_, j) => 1 / (L - j));
  const sum = raw.reduce((x, y) => x + y, 0);
  return raw.map((v) => v / sum);
};

describe(`a planted recency bias on random pruned prompts (seed ${SEED})`, () => {
  it('is recovered with its orientation (τ = +1) where full-length prompts return the mirror (τ = −1)', () => {
    console.log(`MoI random-pruned orientation test seed: ${SEED} (set FAIRGROUND_SEED to replay)`);
    const rng = createRng(`moi-random-pruned-${SEED}`);
    const failures: string[] = [];
    let draws = 0;
    for (let n = 4; n <= 10; n++) {
      for (let k = 0; k < 3; k++) {
        const u = Array.from({ length: n }, () => rng.nextFloat());
        const L = Math.ceil(n / 2);
        const aL = recency(L);
        const pruned = randomPrunedPermutationSet(n, L, `${SEED}-${n}-${k}`);
        const s = (perms: number[][], a: number[]) => perms.map((p) => p.reduce((acc, q, j) => acc + a[j]! * u[q]!, 0));
        const fit = solveMoi({ n, permutations: pruned.permutations, scores: s(pruned.permutations, aL) });
        const tau = kendallTau(fit.u, u);
        const aError = Math.max(...fit.a.map((v, j) => Math.abs(v - aL[j]!)));
        draws++;
        if (tau !== 1 || fit.orientation !== 'identified' || !fit.converged || !(aError <= 1e-6)) {
          failures.push(`pruned N=${n} L=${L} #${k}: τ ${tau}, orientation ${fit.orientation}, converged ${fit.converged}, a error ${aError.toExponential(2)}`);
        }
        // The same truth on full-length random-3N prompts: the mirror fits as well and the default rule picks it
        // (orientation 'kept' or 'mirrored', by whether the rule had to flip the solver's answer: set by the rule either way).
        const full = randomPermutationSet(n, `${SEED}-full-${n}-${k}`);
        const fullFit = solveMoi({ n, permutations: full.permutations, scores: s(full.permutations, recency(n)) });
        if (kendallTau(fullFit.u, u) !== -1 || !['kept', 'mirrored'].includes(fullFit.orientation)) failures.push(`full N=${n} #${k}: τ ${kendallTau(fullFit.u, u)}, orientation ${fullFit.orientation}`);
      }
    }
    expect(draws).toBe(21);
    expect(failures).toEqual([]);
  });
});
