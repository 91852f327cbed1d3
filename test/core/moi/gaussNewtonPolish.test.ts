import { describe, expect, it } from 'vitest';
import { gaussNewtonPolish } from '../../../src-main/core/moi/gaussNewtonPolish';
import { aDesign, moiObjective, type MoiProblem } from '../../../src-main/core/moi/moiProblem';
import { allPermutationSet } from '../../../src-main/core/moi/permutationSets';
import { simplexLeastSquares } from '../../../src-main/core/moi/simplexLeastSquares';
import { solveMoi, uStep } from '../../../src-main/core/moi/solveMoi';

/** All 24 orderings of 4 passages scored by s = Σ_j a_j u_{π[j]} (+ a fixed perturbation). */
function problemOf(a: number[], u: number[], perturb: (i: number) => number = () => 0): MoiProblem {
  const permutations = allPermutationSet(4).permutations;
  const scores = permutations.map((p, i) => p.reduce((acc, d, j) => acc + a[j]! * u[d]!, 0) + perturb(i));
  return { n: 4, permutations, scores };
}

describe('gaussNewtonPolish: joint Gauss–Newton steps on (a, u)', () => {
  it('takes a perturbed start to the exact planted (a, u) of a zero-residual problem', () => {
    // a is not mixed with the uniform vector here: the start differs from the truth by 1e-3, far less
    // than the gauge would need, and u's offset is pinned by Σ a = 1.
    const a = [0.4, 0.1, 0.2, 0.3];
    const u = [-0.9, -0.8, -0.7, -0.6];
    const problem = problemOf(a, u);
    const start = { a: [0.401, 0.099, 0.2, 0.3], u: u.map((v, p) => v + (p % 2 ? 1e-3 : -1e-3)) };
    expect(moiObjective(problem, start.a, start.u)).toBeGreaterThan(1e-6);
    const r = gaussNewtonPolish(problem, start.a, start.u, 0);
    expect(r.steps).toBeGreaterThan(0);
    expect(r.f).toBeLessThan(1e-28);
    // The gauge family a' = λa + (1 − λ)/4 fits too; map back by λ and compare.
    const x = a.map((v) => v - 0.25);
    const y = r.a.map((v) => v - 0.25);
    const lambda = x.reduce((acc, v, i) => acc + v * y[i]!, 0) / x.reduce((acc, v) => acc + v * v, 0);
    r.a.forEach((v, j) => expect(Math.abs((v - (1 - lambda) / 4) / lambda - a[j]!)).toBeLessThan(1e-12));
  });

  it('keeps coordinates at 0 at 0 and leaves a point where both ALS steps are stationary (noisy scores)', () => {
    const a = [0.6, 0.4, 0, 0];
    const u = [-0.2, -0.5, -0.3, -0.9];
    // Deterministic "noise": a residual the bilinear model cannot fit.
    const problem = problemOf(a, u, (i) => 0.01 * Math.sin(3 * i + 1));
    const als = solveMoi(problem, { ridge: 0, polish: false, maxIterations: 3 });
    const r = gaussNewtonPolish(problem, als.a, als.u, 0);
    expect(r.f).toBeLessThanOrEqual(als.objective);
    als.a.forEach((v, j) => {
      if (v === 0) expect(r.a[j]).toBe(0);
    });
    expect(r.a.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 14);
    // u is the least-squares u for this a …
    const uBest = uStep(problem, r.a, 0);
    uBest.forEach((v, p) => expect(Math.abs(v - r.u[p]!)).toBeLessThan(1e-9));
    // … and the exact simplex a-step for this u does not lower the objective.
    const aBest = simplexLeastSquares(aDesign(problem.permutations, r.u), problem.scores, { start: r.a });
    expect(aBest.objective).toBeGreaterThanOrEqual(r.f * (1 - 1e-9));
  });

  it('solveMoi polishes only determined problems: a cyclic set (N prompts < 2N − 1 unknowns) keeps ALS’s point', () => {
    const problem = { n: 3, permutations: [[0, 1, 2], [1, 2, 0], [2, 0, 1]], scores: [-1, -1.4, -1.2] };
    const on = solveMoi(problem);
    const off = solveMoi(problem, { polish: false });
    expect(on.a).toEqual(off.a);
    expect(on.starts.every((s) => s.polishSteps === 0)).toBe(true);
  });
});
