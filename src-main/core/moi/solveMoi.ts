/**
 * MoI's aggregate step (Lee et al., Sec. 3.1): from listwise scores s_i of M prompts, estimate the
 * position bias a (L coefficients on the simplex) and the debiased utility u (N passages) by
 *
 *   minimise Σ_i (Σ_{j<L} a_j · u_{π_i[j]} − s_i)²   s.t.  Σ_j a_j = 1, 0 ≤ a_j ≤ 1,
 *
 * then rank the passages by u, descending. The paper names no solver; this follows the reference
 * notes (moi.md §2.2–2.3):
 * - alternating least squares: u-step = ridge normal equations (XᵀX + ρI)u = Xᵀs + ρ·mean(s)·1 with
 *   ρ = ridge·tr(XᵀX)/N (ridge 1e-8: keeps passages that never get weight defined, at mean(s),
 *   without moving a well-posed solution), solved by Cholesky; with ridge 0 the plain least-squares
 *   basic solution by pivoted QR. a-step = the exact simplex-constrained least squares of
 *   `simplexLeastSquares` (active set, warm-started from the previous a);
 * - stop when the relative change of the objective is ≤ tolerance (1e-12), or f ≤ 1e-13·‖s‖², or
 *   after maxIterations (500) sweeps; then a few joint Gauss–Newton steps on (a, u) (`gaussNewtonPolish`,
 *   same objective) take what ALS's linear convergence leaves (~1e-6 on a flat bias curve) to rounding;
 * - multi-start from the deterministic a0 of `initialBiases` (never the uniform a) plus seeded random
 *   ones when more starts are asked for; keep the best objective, ties (relative 1e-9) → earlier start;
 * - the mirror ambiguity of full-length prompts is resolved by an orientation rule (`orientation.ts`);
 * - a fixed a (e.g. the bias profile from a random-3N calibration run, notes §2.3 (iv)) turns the
 *   problem into the single linear u-step: the practical fix for cyclic and pruned sets, whose joint
 *   problem has an exact-fit manifold.
 *
 * a itself is identified only up to mixing with the uniform vector (full-length prompts, α > 0 in
 * the affine family of `orientation.ts`); compare solutions by their ranking, objective and
 * orientation, not by raw a and u (notes pitfall 9).
 */
import { DataError } from '../errors';
import { choleskySolve } from './cholesky';
import { aDesign, assertMoiProblem, formatFieldPath, moiObjective, predictScores, promptLength, uDesign, type MoiProblem } from './moiProblem';
import { biasSlope, hasMirror, mirrorSolution, ORIENTATION_RULES, retrieverTau, violatesRule, type OrientationRule, type OrientationTaken } from './orientation';
import { numericalRank, pivotedLeastSquares } from './pivotedQr';
import { gaussNewtonPolish } from './gaussNewtonPolish';
import { simplexLeastSquares } from './simplexLeastSquares';
import { initialBiases, type StartKind } from './starts';
import { gaugeIntoSimplex, jointLevenbergMarquardt } from './jointLeastSquares';
import { regularizedIncompleteBeta } from '../stats/incompleteBeta';
import { createRng } from '../random/rng';

export interface MoiSolveOptions {
  /** Mirror rule for full-length prompts; default `bias-non-increasing`. */
  orientation?: OrientationRule;
  /** Seed of the random starts beyond the four deterministic ones; default 0. */
  seed?: number | string;
  /** Minimum number of starts; default 4 (the deterministic ones). */
  starts?: number;
  /**
   * Maximum number of starts (default 32): beyond `starts`, seeded random starts are added until the
   * best objective has been reached by two starts (or is an exact fit) or this many were tried.
   */
  maxStarts?: number;
  /**
   * Starts at low signal (default 64, never fewer than maxStarts): when the noise is not small beside
   * the signal (LOW_SIGNAL_NOISE_SHARE: estimated from the residual, or noiseSd when given), the
   * landscape has many local optima close in objective, and two random starts agreeing after twelve
   * is no evidence of the global one (issue 34: at SNR ≈ 1 fits were certified 1.8% and 47% above the
   * optimum of 64 starts). Every one of these starts then runs before the fit may be certified.
   */
  lowSignalStarts?: number;
  /**
   * Standard deviation of the noise on s, when known (e.g. a simulated reader): the fit is then
   * certified only if its objective is within the 99.9% χ² bound σ²·χ²(M − params) of an exact fit.
   */
  noiseSd?: number;
  /** ALS sweeps per start; default 500. */
  maxIterations?: number;
  /** Relative change of the objective that stops ALS; default 1e-12. */
  tolerance?: number;
  /** ALS also stops once f ≤ exactFit·‖s‖² (an exact fit up to rounding); default 1e-13. */
  exactFit?: number;
  /** Bias profile a (length L, on the simplex) from a calibration run: solve only u. */
  fixedA?: readonly number[];
  /** Ridge factor r of ρ = r·tr(XᵀX)/N in the u-step; default 1e-8; 0 = plain least squares. */
  ridge?: number;
  /**
   * End each start with joint Gauss–Newton steps on (a, u) (`gaussNewtonPolish`): same objective,
   * quadratic instead of ALS's linear convergence, so an exact fit is found to rounding; default true.
   * Skipped when the prompts do not determine (a, u) (fewer distinct prompts than N + L − 1).
   */
  polish?: boolean;
}

export const MOI_SOLVE_DEFAULTS = {
  orientation: 'bias-non-increasing' as OrientationRule,
  seed: 0,
  starts: 4,
  maxStarts: 32,
  lowSignalStarts: 64,
  maxIterations: 500,
  tolerance: 1e-12,
  exactFit: 1e-13,
  ridge: 1e-8,
  polish: true,
} as const;

export interface MoiStartReport {
  kind: StartKind;
  a0: number[];
  objective: number;
  iterations: number;
  converged: boolean;
  /** Gauss–Newton steps taken after ALS (0 when polish is off or no step lowered the objective). */
  polishSteps: number;
  /** Which fit produced this start's result: the joint Levenberg–Marquardt fit (`joint`) or constrained ALS (`als`). */
  method: 'joint' | 'als';
}

/** Why a fit is not certified as the global optimum (empty when `converged`). */
export type MoiUncertainty = 'iteration-cap' | 'restarts-disagree' | 'residual-above-noise';

export interface MoiCertificate {
  /** Every reason the fit is not certified, as words for the reader (empty ⇔ converged). */
  reasons: string[];
  codes: MoiUncertainty[];
  /** Distinct local optima (objective values, relative 1e-6) that the starts ended at. */
  distinctOptima: number;
  /** Starts that reached the best objective. */
  bestCount: number;
  startsTried: number;
  /** The objective is an exact fit up to rounding (≤ 1e-10·‖s‖²): the global optimum by itself. */
  exactFit: boolean;
  /**
   * Low signal: the noise variance (f/(M − params), or noiseSd²) exceeds LOW_SIGNAL_NOISE_SHARE of the
   * scores' variance, so all `lowSignalStarts` starts ran before certifying.
   */
  lowSignal: boolean;
}

/**
 * Is there a position effect at all? F-test of the fitted model against the same model with a
 * uniform (f0 = min_u ‖X(1/L)u − s‖², the u-design's rank r0 parameters) versus the fit (f1,
 * N + L − 1 parameters, one fewer with full-length prompts: the gauge). Without residual degrees of
 * freedom or without noise, an exact uniform fit (f0 ≤ 1e-10·‖s‖²) means no effect.
 */
export interface MoiPositionEffect {
  detected: boolean;
  /** F statistic (null when it cannot be formed: no residual degrees of freedom, or f1 = 0). */
  f: number | null;
  /** P-value of the test (null when none was needed: exact data, or no residual degrees of freedom). */
  pValue: number | null;
  /** How it was decided: exact (noise-free data), F (clear either way), bootstrap (19 refits under the null). */
  method: 'exact' | 'F' | 'bootstrap';
  /** Objective of the best uniform-bias fit. */
  uniformObjective: number;
  /** Level of the test (0.05). */
  alpha: number;
}

export interface MoiIdentifiability {
  /** Distinct prompts (identical prompts give the same equation up to noise). */
  equations: number;
  /** Free parameters: N + L − 1 jointly (Σa = 1 fixes the scale), N with a fixed a. */
  unknowns: number;
  /** Numerical rank of the u-design X(a) at the returned a (N when u is identified given a). */
  uDesignRank: number;
  /** Every prompt holds all N passages: the mirror/affine family of orientation.ts applies. */
  fullLength: boolean;
  /** The prompts are exactly the cyclic (Eq. 7-9) or pruned cyclic (Eq. 5-6) set of the retriever order. */
  structure: 'cyclic' | 'pruned-cyclic' | null;
  /** Why `underdetermined` is true (empty when it is false). */
  reasons: string[];
}

export interface MoiSolution {
  /** Debiased utility per passage (index = passage). */
  u: number[];
  /** Position bias per prompt position 0 … L−1. */
  a: number[];
  /** Passages by u descending, ties by index: the order to feed the generator. */
  ranking: number[];
  /** Σ_i (ŝ_i − s_i)². */
  objective: number;
  orientation: OrientationTaken;
  orientationRule: OrientationRule;
  /** Σ_j a_j (j − (L+1)/2) of the returned a (≤ 0: non-increasing on average). */
  biasSlope: number;
  /** Kendall tau-b of u against the retriever order (null when u is constant). */
  retrieverTau: number | null;
  underdetermined: boolean;
  identifiability: MoiIdentifiability;
  /** ŝ_i of the returned (a, u). */
  predictions: number[];
  /** ALS sweeps of the chosen start (0 with a fixed a). */
  iterations: number;
  /** Certified: the global optimum up to the stated checks (see `certificate`); false names why. */
  converged: boolean;
  certificate: MoiCertificate;
  positionEffect: MoiPositionEffect;
  /** Index into `starts` of the chosen start (null with a fixed a). */
  bestStart: number | null;
  /** Every start tried, in order (empty with a fixed a). */
  starts: MoiStartReport[];
}

export function solveMoi(problem: MoiProblem, options: MoiSolveOptions = {}): MoiSolution {
  assertMoiProblem(problem);
  const opts = resolveOptions(options, promptLength(problem));
  const { n, permutations, scores } = problem;
  const L = promptLength(problem);
  const sNorm2 = scores.reduce((acc, v) => acc + v * v, 0);

  let a: number[];
  let u: number[];
  let iterations = 0;
  let converged = true;
  let bestStart: number | null = null;
  const starts: MoiStartReport[] = [];

  let certificate: MoiCertificate;
  if (opts.fixedA) {
    a = opts.fixedA;
    u = uStep(problem, a, opts.ridge);
    certificate = { reasons: [], codes: [], distinctOptima: 1, bestCount: 1, startsTried: 0, exactFit: moiObjective(problem, a, u) <= EXACT_FIT * sNorm2, lowSignal: false };
  } else {
    const multi = multiStart(problem, opts, sNorm2);
    ({ a, u } = multi.best);
    iterations = multi.best.iterations;
    bestStart = multi.bestStart;
    starts.push(...multi.reports);
    certificate = certify(problem, multi, opts, sNorm2);
    converged = certificate.reasons.length === 0;
  }

  let orientation: OrientationTaken;
  if (opts.fixedA) orientation = 'fixed';
  else if (L < n) orientation = 'identified';
  else if (!hasMirror(a, n)) orientation = 'degenerate';
  else if (violatesRule(opts.orientation, a, u)) {
    ({ a, u } = mirrorSolution(a, u));
    orientation = 'mirrored';
  } else orientation = 'kept';

  const positionEffect = testPositionEffect(problem, moiObjective(problem, a, u), opts, sNorm2, !!opts.fixedA);
  const identifiability = identify(problem, a, !!opts.fixedA, positionEffect);
  const tau = retrieverTau(u);
  return {
    u,
    a,
    ranking: rankByUtility(u),
    objective: moiObjective(problem, a, u),
    orientation,
    orientationRule: opts.orientation,
    biasSlope: biasSlope(a),
    retrieverTau: Number.isFinite(tau) ? tau : null,
    underdetermined: identifiability.reasons.length > 0,
    identifiability,
    predictions: predictScores(permutations, a, u),
    iterations,
    converged,
    certificate,
    positionEffect,
    bestStart,
    starts,
  };
}

/** Objective ≤ EXACT_FIT·‖s‖²: an exact fit up to rounding (and the ridge's 1e-8 pull, ~1e-16 relative). */
export const EXACT_FIT = 1e-10;

/** Random starts tried before agreement may end the search short of an exact fit. */
export const RANDOM_STARTS_TO_AGREE = 12;

/**
 * Low signal: the noise variance, estimated as f/(M − params) (or given as noiseSd²), exceeds this
 * fraction of the scores' variance Σ(s − s̄)²/(M − 1) — a signal-to-noise ratio below √20 ≈ 4.5 — or
 * the residual has fewer degrees of freedom than there are passages (the noise estimate is then too
 * low to trust). The search then runs all `lowSignalStarts` starts (MoiSolveOptions.lowSignalStarts).
 * A fit that is not exact counts as low signal this way (exact fits end the search by themselves).
 */
export const LOW_SIGNAL_NOISE_SHARE = 0.05;

interface SignalScale {
  /** Σ(s − s̄)²/(M − 1). */
  scoreVariance: number;
  /** M − params (N + L − 1, one fewer with full-length prompts: the gauge). */
  dof: number;
  noiseSd: number | undefined;
  exact: number;
  n: number;
}

function signalScale(problem: MoiProblem, noiseSd: number | undefined, sNorm2: number): SignalScale {
  const { scores } = problem;
  const M = scores.length;
  const mean = scores.reduce((acc, v) => acc + v, 0) / Math.max(1, M);
  const ss = scores.reduce((acc, v) => acc + (v - mean) ** 2, 0);
  const L = promptLength(problem);
  const params = problem.n + L - 1 - (L === problem.n ? 1 : 0);
  return { scoreVariance: ss / Math.max(1, M - 1), dof: M - params, noiseSd, exact: EXACT_FIT * sNorm2, n: problem.n };
}

function isLowSignal(f: number, scale: SignalScale): boolean {
  if (f <= scale.exact) return false;
  // Fewer residual degrees of freedom than passages: the fit absorbs most of the noise, the residual
  // underestimates it (planted N = 8, 2N prompts at SNR 1: a fit 127% above the optimum looked clean).
  if (scale.dof < scale.n) return true;
  const noiseVariance = scale.noiseSd !== undefined ? scale.noiseSd ** 2 : scale.dof > 0 ? f / scale.dof : Infinity;
  return noiseVariance > LOW_SIGNAL_NOISE_SHARE * scale.scoreVariance;
}

interface StartOutcome extends AlsRun {
  method: 'joint' | 'als';
}

interface MultiStart {
  best: StartOutcome;
  bestStart: number;
  reports: MoiStartReport[];
  outcomes: StartOutcome[];
  lowSignal: boolean;
}

/**
 * Each start: the joint Levenberg–Marquardt fit without a ≥ 0 (jointLeastSquares.ts), mapped into the
 * simplex — through the gauge for full-length prompts (exact: same predictions), by constrained ALS
 * (and polish) from its projection when a pruned fit leaves the simplex. Starts continue beyond
 * `starts` (seeded random a0) until the best objective was reached twice or is an exact fit, up to
 * `maxStarts`. Keep the best objective, ties (relative 1e-9) → earlier start.
 */
function multiStart(problem: MoiProblem, opts: ResolvedOptions, sNorm2: number): MultiStart {
  const L = promptLength(problem);
  const full = L === problem.n;
  const all = initialBiases(L, Math.max(opts.maxStarts, opts.lowSignalStarts), opts.seed);
  const scale = signalScale(problem, opts.noiseSd, sNorm2);
  const outcomes: StartOutcome[] = [];
  const reports: MoiStartReport[] = [];
  let best: StartOutcome | null = null;
  let bestStart = 0;
  for (const [k, start] of all.entries()) {
    if (k >= opts.starts && best) {
      const tol = optimumTolerance(best.f, sNorm2);
      // The deterministic starts are all primacy-shaped and share basins: only independent (random) starts corroborate.
      // A dominant wrong basin can catch several starts (one planted N = 7 case: 23 of 32), so agreement
      // counts only after RANDOM_STARTS_TO_AGREE random starts.
      if (best.f <= EXACT_FIT * sNorm2) break;
      // At low signal every one of lowSignalStarts starts runs: agreement is no evidence there.
      if (!isLowSignal(best.f, scale)) {
        if (k >= opts.maxStarts) break;
        const randoms = outcomes.filter((_, i) => all[i]?.kind === 'random').length;
        const hits = outcomes.filter((o, i) => all[i]?.kind === 'random' && Math.abs(o.f - (best as StartOutcome).f) <= tol).length;
        if (hits >= 2 && randoms >= Math.min(RANDOM_STARTS_TO_AGREE, opts.maxStarts - opts.starts)) break;
      }
    }
    const run = oneStart(problem, start.a0, opts, sNorm2, full);
    outcomes.push(run);
    reports.push({ kind: start.kind, a0: start.a0, objective: run.f, iterations: run.iterations, converged: run.converged, polishSteps: run.polishSteps, method: run.method });
    if (!best || run.f < best.f - (1e-9 * best.f + 1e-15 * sNorm2)) {
      best = run;
      bestStart = k;
    }
  }
  return { best: best as StartOutcome, bestStart, reports, outcomes, lowSignal: isLowSignal((best as StartOutcome).f, scale) };
}

function oneStart(problem: MoiProblem, a0: readonly number[], opts: ResolvedOptions, sNorm2: number, full: boolean): StartOutcome {
  const equations = new Set(problem.permutations.map((p) => p.join(','))).size;
  // Where (a, u) is not determined (an exact-fit manifold), ALS's point nearest the start is the documented answer.
  if (equations < problem.n + promptLength(problem) - 1) return { ...alternatingLeastSquares(problem, a0, opts, sNorm2), method: 'als' };
  const joint = jointLevenbergMarquardt(problem, a0, uStep(problem, a0, opts.ridge), { ridge: opts.ridge, maxIterations: opts.maxIterations, tolerance: opts.tolerance, exactFit: opts.exactFit });
  if (full) {
    const g = gaugeIntoSimplex(joint.a, joint.u);
    // LM stops at f ≤ exactFit·‖s‖²; the Gauss–Newton polish takes an exact fit on to rounding.
    const polished = opts.polish ? gaussNewtonPolish(problem, g.a, g.u, opts.ridge) : { a: g.a, u: g.u, steps: 0 };
    return { a: polished.a, u: polished.u, f: moiObjective(problem, polished.a, polished.u), iterations: joint.iterations, converged: joint.converged, polishSteps: polished.steps, method: 'joint' };
  }
  if (Math.min(...joint.a) >= -1e-12) {
    const a = joint.a.map((v) => Math.max(0, v));
    const total = a.reduce((x, y) => x + y, 0);
    const na = a.map((v) => v / total);
    return { a: na, u: joint.u, f: moiObjective(problem, na, joint.u), iterations: joint.iterations, converged: joint.converged, polishSteps: 0, method: 'joint' };
  }
  const projected = projectOntoSimplex(joint.a);
  const als = alternatingLeastSquares(problem, projected, opts, sNorm2);
  return { ...als, iterations: joint.iterations + als.iterations, method: 'als' };
}

/** Euclidean projection onto the probability simplex (Duchi et al. 2008), nudged off the uniform a. */
function projectOntoSimplex(v: readonly number[]): number[] {
  const sorted = v.slice().sort((x, y) => y - x);
  let cum = 0;
  let theta = 0;
  sorted.forEach((x, k) => {
    cum += x;
    const t = (cum - 1) / (k + 1);
    if (x - t > 0) theta = t;
  });
  const out = v.map((x) => Math.max(0, x - theta));
  const L = out.length;
  if (L > 1 && L * Math.max(...out) - 1 < 1e-6) return out.map((x, j) => (j === 0 ? x + 0.1 : x) / 1.1);
  return out;
}

function optimumTolerance(f: number, sNorm2: number): number {
  return 1e-6 * f + EXACT_FIT * sNorm2;
}

function certify(problem: MoiProblem, multi: MultiStart, opts: ResolvedOptions, sNorm2: number): MoiCertificate {
  const f = multi.best.f;
  const exactFit = f <= EXACT_FIT * sNorm2;
  const sorted = multi.outcomes.map((o) => o.f).sort((x, y) => x - y);
  let distinctOptima = 0;
  let last = -Infinity;
  for (const v of sorted) {
    if (v - last > optimumTolerance(Math.max(last, 0), sNorm2)) {
      distinctOptima++;
      last = v;
    }
  }
  const bestCount = multi.outcomes.filter((o) => Math.abs(o.f - f) <= optimumTolerance(f, sNorm2)).length;
  const randomHits = multi.outcomes.filter((o, i) => multi.reports[i]?.kind === 'random' && Math.abs(o.f - f) <= optimumTolerance(f, sNorm2)).length;
  const codes: MoiUncertainty[] = [];
  const reasons: string[] = [];
  // Slow convergence to the same optimum that another start reached with its stopping rule is not a doubt.
  const clusterConverged = multi.outcomes.some((o) => o.converged && Math.abs(o.f - f) <= optimumTolerance(f, sNorm2));
  if (!clusterConverged && !exactFit) {
    codes.push('iteration-cap');
    reasons.push(`the chosen start hit the iteration cap (${opts.maxIterations}) before its stopping rule held`);
  }
  if (!exactFit && randomHits < 2) {
    codes.push('restarts-disagree');
    reasons.push(
      `the best objective ${f.toExponential(3)} was reached by ${bestCount} of ${multi.outcomes.length} starts, ${randomHits} of them random (${distinctOptima} distinct optima): another start could find a lower one`,
    );
  }
  if (opts.noiseSd !== undefined && !exactFit) {
    const L = promptLength(problem);
    const equations = problem.permutations.length;
    const params = problem.n + L - 1 - (L === problem.n ? 1 : 0);
    const dof = equations - params;
    if (dof > 0) {
      const bound = opts.noiseSd ** 2 * chiSquareQuantile999(dof);
      if (f > bound) {
        codes.push('residual-above-noise');
        reasons.push(`objective ${f.toExponential(3)} exceeds σ²·χ²₀.₉₉₉(${dof}) = ${bound.toExponential(3)}, what a fit of the true model reaches at noise sd ${opts.noiseSd}`);
      }
    }
  }
  return { reasons, codes, distinctOptima, bestCount, startsTried: multi.outcomes.length, exactFit, lowSignal: multi.lowSignal };
}

/** Upper 0.1% point of χ²(k) by Wilson–Hilferty (relative error < 1% for k ≥ 1 at this level; used as a bound). */
function chiSquareQuantile999(k: number): number {
  const z = 3.090232306167813;
  const h = 2 / (9 * k);
  return k * (1 - h + z * Math.sqrt(h)) ** 3;
}

/**
 * Test of "a uniform" against the fitted model (see MoiPositionEffect). The F reference distribution
 * is anti-conservative here (the null sits where the bilinear model is singular: on planted uniform
 * biases at N = 6 it rejected 13 of 40 at 0.05), so it only screens: p_F ≥ α ⇒ not detected,
 * p_F < 1e-6 ⇒ detected; in between a parametric bootstrap under the null (s_i = fitted uniform
 * prediction + N(0, σ̂²), σ̂² = f0/(M − r0); the ratio f0/f1 does not depend on σ) with B = 19 refits
 * decides: p = (1 + #{R_b ≥ R})/(B + 1).
 */
function testPositionEffect(problem: MoiProblem, f1: number, opts: ResolvedOptions, sNorm2: number, fixedA: boolean): MoiPositionEffect {
  const alpha = 0.05;
  const ridge = opts.ridge;
  const L = promptLength(problem);
  const uniform = new Array<number>(L).fill(1 / L);
  const u0 = uStep(problem, uniform, ridge);
  const f0 = moiObjective(problem, uniform, u0);
  const exact = EXACT_FIT * sNorm2;
  const base = { uniformObjective: f0, alpha, method: 'exact' as MoiPositionEffect['method'] };
  if (fixedA || L === 1) return { ...base, detected: L > 1 && !fixedA ? f0 > exact : true, f: null, pValue: null };
  if (f0 <= exact) return { ...base, detected: false, f: null, pValue: null };
  const r0 = numericalRank(uDesign(problem.permutations, uniform, problem.n), 1e-9);
  const p1 = problem.n + L - 1 - (L === problem.n ? 1 : 0);
  const equations = problem.permutations.length;
  const df1 = equations - p1;
  const dfNum = p1 - r0;
  if (df1 <= 0 || dfNum <= 0 || f1 <= exact) return { ...base, detected: true, f: null, pValue: null };
  const F = (Math.max(0, f0 - f1) / dfNum) / (f1 / df1);
  const pF = regularizedIncompleteBeta(df1 / (df1 + dfNum * F), df1 / 2, dfNum / 2);
  if (pF >= alpha || pF < 1e-6) return { ...base, method: 'F', detected: pF < alpha, f: F, pValue: pF };
  const ratio = f0 / f1;
  const sigma = Math.sqrt(f0 / Math.max(1, equations - r0));
  const mean = predictScores(problem.permutations, uniform, u0);
  const rng = createRng(opts.seed).fork('moi-position-effect');
  const B = 19;
  let atLeast = 0;
  for (let b = 0; b < B; b++) {
    const scores = mean.map((m) => m + sigma * rng.nextNormal());
    const sim = { ...problem, scores };
    const simNorm2 = scores.reduce((acc, v) => acc + v * v, 0);
    const g0 = moiObjective(sim, uniform, uStep(sim, uniform, ridge));
    // Data under the null are low signal by construction; the bootstrap keeps its 6 starts.
    const g1 = multiStart(sim, { ...opts, starts: 4, maxStarts: 6, lowSignalStarts: 6, maxIterations: Math.min(opts.maxIterations, 100) }, simNorm2).best.f;
    if (g0 / Math.max(g1, Number.MIN_VALUE) >= ratio) atLeast++;
  }
  const pValue = (1 + atLeast) / (B + 1);
  return { ...base, method: 'bootstrap', detected: pValue <= alpha, f: F, pValue };
}

/** Passage indices by u descending, ties by index. */
export function rankByUtility(u: readonly number[]): number[] {
  return u
    .map((v, p) => [v, p] as const)
    .sort((x, y) => y[0] - x[0] || x[1] - y[1])
    .map(([, p]) => p);
}

/**
 * u-step: argmin_u ‖X(a)·u − s‖² + ρ‖u − mean(s)·1‖², ρ = ridge·tr(XᵀX)/N, i.e. the normal
 * equations (XᵀX + ρI)u = Xᵀs + ρ·mean(s)·1 (Cholesky); ridge 0: basic least squares (pivoted QR).
 */
export function uStep(problem: MoiProblem, a: readonly number[], ridge: number = MOI_SOLVE_DEFAULTS.ridge): number[] {
  const { n, permutations, scores } = problem;
  const x = uDesign(permutations, a, n);
  if (ridge === 0) return pivotedLeastSquares(x, scores, 1e-12, n).x;
  const xtx: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const xts = new Array<number>(n).fill(0);
  x.forEach((row, i) => {
    const si = scores[i] as number;
    for (let p = 0; p < n; p++) {
      const xp = row[p] as number;
      if (xp === 0) continue;
      xts[p] = (xts[p] as number) + xp * si;
      const out = xtx[p] as number[];
      for (let q = 0; q < n; q++) out[q] = (out[q] as number) + xp * (row[q] as number);
    }
  });
  let trace = 0;
  for (let p = 0; p < n; p++) trace += (xtx[p] as number[])[p] as number;
  const rho = (ridge * trace) / n;
  const meanS = scores.reduce((acc, v) => acc + v, 0) / scores.length;
  for (let p = 0; p < n; p++) {
    (xtx[p] as number[])[p] = ((xtx[p] as number[])[p] as number) + rho;
    xts[p] = (xts[p] as number) + rho * meanS;
  }
  return choleskySolve(xtx, xts);
}

interface AlsRun {
  a: number[];
  u: number[];
  f: number;
  iterations: number;
  converged: boolean;
  polishSteps: number;
}

function alternatingLeastSquares(problem: MoiProblem, a0: readonly number[], opts: ResolvedOptions, sNorm2: number): AlsRun {
  const run = alsSweeps(problem, a0, opts, sNorm2);
  // Only where (a, u) is determined: with fewer distinct prompts than N + L − 1 unknowns the fits form
  // a manifold, and ALS's point on it (the one nearest the start) is the documented answer.
  const equations = new Set(problem.permutations.map((p) => p.join(','))).size;
  if (!opts.polish || equations < problem.n + promptLength(problem) - 1) return { ...run, polishSteps: 0 };
  const polished = gaussNewtonPolish(problem, run.a, run.u, opts.ridge);
  if (polished.steps === 0) return { ...run, polishSteps: 0 };
  return { ...run, a: polished.a, u: polished.u, f: polished.f, polishSteps: polished.steps };
}

function alsSweeps(problem: MoiProblem, a0: readonly number[], opts: ResolvedOptions, sNorm2: number): Omit<AlsRun, 'polishSteps'> {
  let a = a0.slice();
  let u = uStep(problem, a, opts.ridge);
  let f = moiObjective(problem, a, u);
  const exactFit = opts.exactFit * sNorm2;
  if (f <= exactFit) return { a, u, f, iterations: 0, converged: true };
  for (let it = 1; it <= opts.maxIterations; it++) {
    a = simplexLeastSquares(aDesign(problem.permutations, u), problem.scores, { start: a }).a;
    u = uStep(problem, a, opts.ridge);
    const next = moiObjective(problem, a, u);
    const change = Math.abs(f - next);
    f = next;
    if (f <= exactFit || change <= opts.tolerance * Math.max(f + change, Number.MIN_VALUE)) return { a, u, f, iterations: it, converged: true };
  }
  return { a, u, f, iterations: opts.maxIterations, converged: false };
}

function identify(problem: MoiProblem, a: readonly number[], fixedA: boolean, effect: MoiPositionEffect): MoiIdentifiability {
  const { n, permutations } = problem;
  const L = promptLength(problem);
  const equations = new Set(permutations.map((p) => p.join(','))).size;
  const unknowns = fixedA ? n : n + L - 1;
  const uDesignRank = numericalRank(uDesign(permutations, a, n), 1e-9);
  const structure = cyclicStructure(permutations, n);
  const reasons: string[] = [];
  if (uDesignRank < n) reasons.push(`the u-design X(a) has rank ${uDesignRank} < N = ${n}: u is not identified given a`);
  if (!effect.detected && !fixedA) {
    const r0 = numericalRank(uDesign(permutations, new Array<number>(L).fill(1 / L), n), 1e-9);
    if (r0 < n) {
      reasons.push(
        `no position effect detected (a indistinguishable from uniform${effect.pValue === null ? '' : `, F-test p = ${effect.pValue.toPrecision(3)}`}): utility is observed only through position bias, so u is identified only up to ${r0 === 1 ? 'its mean' : `a rank-${r0} design`}`,
      );
    }
  }
  if (!fixedA && equations < unknowns) {
    reasons.push(
      `${equations} distinct prompts < ${unknowns} unknowns (N + L − 1): the joint problem has an exact-fit manifold and the returned a is the member nearest the start${
        structure ? ` (${structure} set; fix a from a calibration run)` : ''
      }`,
    );
  }
  return { equations, unknowns, uDesignRank, fullLength: L === n, structure, reasons };
}

/** Whether the distinct prompts are exactly the N (pruned) rotations of the retriever order. */
function cyclicStructure(permutations: readonly (readonly number[])[], n: number): 'cyclic' | 'pruned-cyclic' | null {
  const L = permutations[0]?.length ?? 0;
  const distinct = new Set(permutations.map((p) => p.join(',')));
  if (distinct.size !== n) return null;
  for (let k = 0; k < n; k++) {
    if (!distinct.has(Array.from({ length: L }, (_, j) => (k + j) % n).join(','))) return null;
  }
  return L === n ? 'cyclic' : 'pruned-cyclic';
}

interface ResolvedOptions {
  orientation: OrientationRule;
  seed: number | string;
  starts: number;
  maxStarts: number;
  lowSignalStarts: number;
  noiseSd: number | undefined;
  maxIterations: number;
  tolerance: number;
  exactFit: number;
  ridge: number;
  polish: boolean;
  fixedA: number[] | undefined;
}

function resolveOptions(options: MoiSolveOptions, L: number): ResolvedOptions {
  const fail = (path: (string | number)[], message: string): never => {
    throw new DataError(message, { field: formatFieldPath(['options', ...path]) });
  };
  const orientation = options.orientation ?? MOI_SOLVE_DEFAULTS.orientation;
  if (!ORIENTATION_RULES.includes(orientation)) fail(['orientation'], `expected one of ${ORIENTATION_RULES.join(', ')}, got '${String(orientation)}'`);
  const seed = options.seed ?? MOI_SOLVE_DEFAULTS.seed;
  if (typeof seed === 'number' && !Number.isFinite(seed)) fail(['seed'], `expected a finite number or a string, got ${seed}`);
  const starts = options.starts ?? MOI_SOLVE_DEFAULTS.starts;
  if (!Number.isInteger(starts) || starts < 1) fail(['starts'], `expected a positive integer, got ${starts}`);
  const maxStarts = Math.max(starts, options.maxStarts ?? MOI_SOLVE_DEFAULTS.maxStarts);
  if (!Number.isInteger(maxStarts)) fail(['maxStarts'], `expected a positive integer, got ${options.maxStarts}`);
  const lowSignalStarts = Math.max(maxStarts, options.lowSignalStarts ?? MOI_SOLVE_DEFAULTS.lowSignalStarts);
  if (!Number.isInteger(lowSignalStarts)) fail(['lowSignalStarts'], `expected a positive integer, got ${options.lowSignalStarts}`);
  const noiseSd = options.noiseSd;
  if (noiseSd !== undefined && !(Number.isFinite(noiseSd) && noiseSd >= 0)) fail(['noiseSd'], `expected a non-negative number, got ${noiseSd}`);
  const maxIterations = options.maxIterations ?? MOI_SOLVE_DEFAULTS.maxIterations;
  if (!Number.isInteger(maxIterations) || maxIterations < 1) fail(['maxIterations'], `expected a positive integer, got ${maxIterations}`);
  const tolerance = options.tolerance ?? MOI_SOLVE_DEFAULTS.tolerance;
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) fail(['tolerance'], `expected a non-negative number, got ${tolerance}`);
  const exactFit = options.exactFit ?? MOI_SOLVE_DEFAULTS.exactFit;
  if (!(exactFit >= 0) || !Number.isFinite(exactFit)) fail(['exactFit'], `expected a non-negative number, got ${exactFit}`);
  const ridge = options.ridge ?? MOI_SOLVE_DEFAULTS.ridge;
  if (!(ridge >= 0) || !Number.isFinite(ridge)) fail(['ridge'], `expected a non-negative number, got ${ridge}`);
  let fixedA: number[] | undefined;
  if (options.fixedA !== undefined) {
    const given = options.fixedA;
    if (given.length !== L) fail(['fixedA'], `expected ${L} coefficients (one per prompt position), got ${given.length}`);
    given.forEach((v, j) => {
      if (!Number.isFinite(v) || v < 0 || v > 1) fail(['fixedA', j], `expected a number in [0, 1], got ${v}`);
    });
    const sum = given.reduce((x, y) => x + y, 0);
    if (Math.abs(sum - 1) > 1e-6) fail(['fixedA'], `coefficients must sum to 1, got ${sum}`);
    fixedA = given.map((v) => v / sum);
  }
  const polish = options.polish ?? MOI_SOLVE_DEFAULTS.polish;
  if (typeof polish !== 'boolean') fail(['polish'], `expected true or false, got ${String(polish)}`);
  return { orientation, seed, starts, maxStarts, lowSignalStarts, noiseSd, maxIterations, tolerance, exactFit, ridge, polish, fixedA };
}
