/**
 * Issue 23 item 1: MoI fits that are right or say they are not.
 *
 * The failures the issue measured with the previous default (constrained ALS from four primacy-shaped
 * starts, then Gauss–Newton polish) are restated as planted cases: random non-monotone bias vectors
 * at N = 5 ended at faces of the simplex (objective 3.1e-3 and 2.1e-2 where an exact fit exists, both
 * `converged: true`; the two `legacy` cases below, measured before the change), the flat-tailed bias
 * 4,3,2,1,1,… at N = 8 stopped at gauge error 1.9e-5, and a random-weights bias at N = 7 has a wrong basin
 * that catches 23 of 32 starts. Each must now be recovered to ≤ 1e-6 in the identifiable gauge with
 * |τ| = 1 and certified (`converged: true`, exact fit); a fit the solver cannot certify must say why.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { kendallTau } from '../../../src-main/core/moi/kendallTau';
import { moiObjective, type MoiProblem } from '../../../src-main/core/moi/moiProblem';
import { solveMoi } from '../../../src-main/core/moi/solveMoi';
import { gaugeError, plantedCase } from './recovery';

/** The construction the failures were found with: u ~ 2.5·U(0,1), a ∝ weights, 3N random full-length prompts. */
function legacyCase(seed: string, n: number, weight: (rng: ReturnType<typeof createRng>) => number): { a: number[]; u: number[]; problem: MoiProblem } {
  const rng = createRng(seed);
  const u = Array.from({ length: n }, () => 2.5 * rng.nextFloat());
  const raw = Array.from({ length: n }, () => weight(rng));
  const sum = raw.reduce((x, y) => x + y, 0);
  const a = raw.map((v) => v / sum);
  const seen = new Set<string>();
  const permutations: number[][] = [];
  while (permutations.length < 3 * n) {
    const p = rng.shuffled(Array.from({ length: n }, (_, i) => i));
    if (seen.has(p.join())) continue;
    seen.add(p.join());
    permutations.push(p);
  }
  return { a, u, problem: { n, permutations, scores: permutations.map((p) => p.reduce((acc, q, j) => acc + a[j]! * u[q]!, 0)) } };
}

function expectRecovered(a: number[], u: number[], problem: MoiProblem, label: string): void {
  const full = problem.permutations[0]!.length === problem.n;
  const r = solveMoi(problem, { orientation: 'none', ridge: 0 });
  const g = gaugeError(r.a, a, full);
  expect(g.error, `${label}: a ${JSON.stringify(r.a)} (λ ${g.lambda}), objective ${r.objective}`).toBeLessThanOrEqual(1e-6);
  expect(kendallTau(r.u, u), label).toBe(Math.sign(g.lambda));
  expect(r.converged, `${label}: ${r.certificate.reasons.join('; ')}`).toBe(true);
  expect(r.certificate.exactFit).toBe(true);
}

describe('the issue-23 failures of the previous default are recovered and certified', () => {
  it('random non-monotone bias at N = 5 (legacy cases: old objective 3.07e-3 and 2.08e-2, "converged")', () => {
    const unif = legacyCase('r-unif-5-12', 5, (rng) => rng.nextFloat());
    expectRecovered(unif.a, unif.u, unif.problem, 'r-unif-5-12');
    const mid = legacyCase('r-mid-5-2', 5, (rng) => 0.5 + rng.nextFloat());
    expectRecovered(mid.a, mid.u, mid.problem, 'r-mid-5-2');
  });

  it('a wrong basin that catches most starts (N = 7): random starts continue until the exact fit', () => {
    const c = legacyCase('c-unif-7-17', 7, (rng) => rng.nextFloat());
    expectRecovered(c.a, c.u, c.problem, 'c-unif-7-17');
  });

  it('20 random non-monotone biases at N = 5 (two constructions), all recovered', () => {
    for (let k = 0; k < 10; k++) {
      for (const shape of ['random-simplex', 'random-uniform'] as const) {
        const c = plantedCase(5, shape, `issue23-n5-${shape}-${k}`);
        expectRecovered(c.a, c.u, c.problem, `${shape} ${k}`);
      }
    }
  });

  it('flat-tailed 4,3,2,1,1,1,1,1 at N = 8 (old gauge error 1.9e-5 at the cap) and U-shaped at N = 5 (20 cases)', () => {
    for (let k = 0; k < 4; k++) {
      const c = plantedCase(8, 'flat-tailed', `issue23-flat-${k}`);
      expect(c.a.map((v) => v * 14)).toEqual([4, 3, 2, 1, 1, 1, 1, 1].map((v) => expect.closeTo(v, 12)));
      expectRecovered(c.a, c.u, c.problem, `flat ${k}`);
    }
    for (let k = 0; k < 20; k++) {
      const c = plantedCase(5, 'u-shaped', `issue23-u-${k}`);
      expectRecovered(c.a, c.u, c.problem, `u-shaped ${k}`);
    }
  });
});

describe('certification', () => {
  it('an iteration cap too small to finish is reported, with the reason and the starts', () => {
    const c = plantedCase(8, 'random-simplex', 'cap-1', { sigma: 0.01 });
    const r = solveMoi(c.problem, { maxIterations: 1, starts: 4, maxStarts: 4 });
    expect(r.converged).toBe(false);
    expect(r.certificate.codes).toContain('iteration-cap');
    expect(r.certificate.reasons.join(' ')).toMatch(/iteration cap \(1\)/);
    expect(r.certificate.startsTried).toBe(4);
  });

  it('with only the four primacy-shaped starts and noise, agreement cannot be shown: restarts-disagree', () => {
    const c = plantedCase(6, 'random-simplex', 'disagree-1', { sigma: 0.01 });
    const r = solveMoi(c.problem, { starts: 4, maxStarts: 4 });
    // No random start ran, so nothing independent corroborates the best optimum.
    expect(r.converged).toBe(false);
    expect(r.certificate.codes).toEqual(['restarts-disagree']);
    expect(r.certificate.distinctOptima).toBeGreaterThanOrEqual(1);
  });

  it('one random start that reaches the best optimum is not enough: restarts-disagree; two random hits certify', () => {
    // Seeded planted case 'one-random-0' (N = 6, exp-decay, sigma 0.01): all five starts end at 4.074e-4.
    const c = plantedCase(6, 'exp-decay', 'one-random-0', { sigma: 0.01 });
    const one = solveMoi(c.problem, { starts: 4, maxStarts: 5, lowSignalStarts: 5 });
    expect(one.starts.map((s) => s.kind)).toEqual(['harmonic', 'geometric', 'linear', 'first-0.7', 'random']);
    expect(one.certificate.bestCount).toBe(5);
    expect(one.converged).toBe(false);
    expect(one.certificate.codes).toEqual(['restarts-disagree']);
    expect(one.certificate.reasons[0]).toContain('reached by 5 of 5 starts, 1 of them random (1 distinct optima)');
    const two = solveMoi(c.problem, { starts: 4, maxStarts: 6, lowSignalStarts: 6 });
    expect(two.starts.filter((s) => s.kind === 'random')).toHaveLength(2);
    expect(two.certificate.codes).toEqual([]);
    expect(two.converged).toBe(true);
  });

  it('the residual check bounds the objective by σ²·χ²₀.₉₉₉(M − params): 18 prompts − 10 params (full length: N + L − 2) = 8 dof, pruned 18 − 9 = 9', () => {
    // Wilson–Hilferty upper 0.1% points, computed by hand: k(1 − h + z√h)³, h = 2/(9k), z = 3.090232306167813.
    const chi999 = { 8: 26.31791642824566, 9: 28.060581403876874 } as const;
    for (const [pruned, dof] of [
      [false, 8],
      [true, 9],
    ] as const) {
      const c = plantedCase(6, 'exp-decay', 'chi-dof', { sigma: 0.01, pruned });
      const options = { starts: 4, maxStarts: 16, lowSignalStarts: 16 };
      const f = solveMoi(c.problem, options).objective;
      // σ² = f/(1.01·q): the bound is 1% below the objective (a dof one lower, q(dof − 1) ≈ 0.93·q, would still flag it, one higher not).
      const above = solveMoi(c.problem, { ...options, noiseSd: Math.sqrt(f / (1.01 * chi999[dof])) });
      expect(above.objective).toBe(f);
      expect(above.certificate.codes).toContain('residual-above-noise');
      expect(above.certificate.reasons.join(' ')).toContain(`σ²·χ²₀.₉₉₉(${dof}) = ${(f / 1.01).toExponential(3)}`);
      // σ² = 1.01·f/q: the bound is 1% above the objective — no doubt (q(dof − 1) would flag it).
      const below = solveMoi(c.problem, { ...options, noiseSd: Math.sqrt((1.01 * f) / chi999[dof]) });
      expect(below.objective).toBe(f);
      expect(below.certificate.codes).not.toContain('residual-above-noise');
    }
  });

  it('noisy fits with the default starts are certified and are the optimum of the truth\'s basin', () => {
    for (let k = 0; k < 4; k++) {
      const c = plantedCase(6, 'exp-decay', `noisy-${k}`, { sigma: 0.01 });
      const r = solveMoi(c.problem);
      expect(r.converged, r.certificate.reasons.join('; ')).toBe(true);
      expect(r.certificate.bestCount).toBeGreaterThanOrEqual(2);
      // The planted (a, u) fits no better than the optimum found.
      expect(r.objective).toBeLessThanOrEqual(moiObjective(c.problem, c.a, c.u) * (1 + 1e-9));
    }
  });

  it('a known noise sd flags a residual far above it (data not of the model: a scrambled score)', () => {
    const c = plantedCase(6, 'exp-decay', 'resid-1', { sigma: 0.001 });
    const ok = solveMoi(c.problem, { noiseSd: 0.001 });
    expect(ok.certificate.codes).not.toContain('residual-above-noise');
    const scores = c.problem.scores.slice();
    scores[3] = scores[3]! + 0.5;
    const bad = solveMoi({ ...c.problem, scores }, { noiseSd: 0.001 });
    expect(bad.converged).toBe(false);
    expect(bad.certificate.codes).toContain('residual-above-noise');
  });
});

describe('no position effect (uniform bias)', () => {
  it('noise-free uniform bias: not detected, u identified only up to its mean, underdetermined', () => {
    const rng = createRng('uniform-0');
    const n = 6;
    const u = Array.from({ length: n }, () => rng.nextFloat());
    const c = plantedCase(n, 'exp-decay', 'uniform-perms');
    const scores = c.problem.permutations.map((p) => p.reduce((acc, q) => acc + u[q]! / n, 0));
    const r = solveMoi({ ...c.problem, scores });
    expect(r.positionEffect.detected).toBe(false);
    expect(r.underdetermined).toBe(true);
    expect(r.identifiability.reasons.join(' ')).toMatch(/no position effect detected/);
  });

  it('with noise, a uniform bias is detected at about the test level (planted null), a real bias always', () => {
    const n = 6;
    let falsePositives = 0;
    const runs = 24;
    for (let k = 0; k < runs; k++) {
      const rng = createRng(`uniform-noise-${k}`);
      const u = Array.from({ length: n }, () => 2.5 * rng.nextFloat());
      const c = plantedCase(n, 'exp-decay', `uniform-noise-perms-${k}`);
      const scores = c.problem.permutations.map((p) => p.reduce((acc, q) => acc + u[q]! / n, 0) + 0.01 * rng.nextNormal());
      if (solveMoi({ ...c.problem, scores }, { maxStarts: 8 }).positionEffect.detected) falsePositives++;
    }
    // Level 0.05: P(Binomial(24, 0.05) > 5) ≈ 0.003. (The plain F-test rejected 13 of 40 here.)
    console.log(`planted uniform bias with noise: position effect detected in ${falsePositives} of ${runs}`);
    expect(falsePositives).toBeLessThanOrEqual(5);
    for (let k = 0; k < 5; k++) {
      const c = plantedCase(n, 'exp-decay', `effect-${k}`, { sigma: 0.01 });
      const r = solveMoi(c.problem);
      expect(r.positionEffect.detected).toBe(true);
      expect(r.positionEffect.pValue).toBeLessThan(1e-6);
    }
  }, 180_000);
});
