import { describe, expect, it } from 'vitest';
import { predictScores } from '../../../src-main/core/moi/moiProblem';
import { biasSlope, hasMirror, mirrorSolution, retrieverTau, violatesRule } from '../../../src-main/core/moi/orientation';
import { randomPermutationSet } from '../../../src-main/core/moi/permutationSets';
import { rankByUtility } from '../../../src-main/core/moi/solveMoi';

describe('mirrorSolution (notes 2.3 ii: a\' = αa + β1, u\' = (u − βS)/α with α < 0)', () => {
  const a = [0.4, 0.25, 0.15, 0.12, 0.08];
  const u = [-1.1, -0.4, -2.3, -0.9, -1.6];
  const { a: a2, u: u2 } = mirrorSolution(a, u);

  it('is the closed form a\'_j = (a_max − a_j)/(N a_max − 1), u\' = a_max S − (N a_max − 1) u', () => {
    const d = 5 * 0.4 - 1;
    const S = u.reduce((x, y) => x + y, 0);
    a2.forEach((v, j) => expect(v).toBeCloseTo((0.4 - a[j]!) / d, 14));
    u2.forEach((v, p) => expect(v).toBeCloseTo(0.4 * S - d * u[p]!, 13));
    expect(a2[0]).toBe(0);
    expect(a2.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 14);
  });

  it('predicts every full-length prompt identically, reverses the ranking and flips the bias slope', () => {
    const perms = randomPermutationSet(5, 9).permutations;
    const before = predictScores(perms, a, u);
    predictScores(perms, a2, u2).forEach((v, i) => expect(v).toBeCloseTo(before[i]!, 12));
    expect(rankByUtility(u2)).toEqual(rankByUtility(u).reverse());
    expect(Math.sign(biasSlope(a2))).toBe(-Math.sign(biasSlope(a)));
    // ... but not pruned prompts: S_i differs between prefixes.
    const prefixes = perms.map((p) => p.slice(0, 3));
    const pruned = (x: number[]) => x.slice(0, 3);
    expect(predictScores(prefixes, pruned(a2), u2)).not.toEqual(predictScores(prefixes, pruned(a), u));
  });

  it('exists iff N·max(a) > 1', () => {
    expect(hasMirror(a, 5)).toBe(true);
    expect(hasMirror([0.2, 0.2, 0.2, 0.2, 0.2], 5)).toBe(false);
    expect(hasMirror([0.5, 0.5], 3)).toBe(false); // pruned: no mirror at all
    expect(() => mirrorSolution([0.25, 0.25, 0.25, 0.25], [1, 2, 3, 4])).toThrow(/uniform/);
  });

  it('rules: bias slope ≤ 0, or tau with the retriever order ≥ 0', () => {
    expect(violatesRule('bias-non-increasing', a, u)).toBe(false);
    expect(violatesRule('bias-non-increasing', a2, u2)).toBe(true);
    expect(retrieverTau([3, 2, 1])).toBe(1);
    expect(violatesRule('retriever-agreement', a, [1, 2, 3])).toBe(true);
    expect(violatesRule('retriever-agreement', a, [2, 2, 2])).toBe(false);
    expect(violatesRule('none', a2, [1, 2, 3])).toBe(false);
  });
});
