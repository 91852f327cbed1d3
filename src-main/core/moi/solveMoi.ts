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

export interface MoiSolveOptions {
  /** Mirror rule for full-length prompts; default `bias-non-increasing`. */
  orientation?: OrientationRule;
  /** Seed of the random starts beyond the four deterministic ones; default 0. */
  seed?: number | string;
  /** Number of ALS starts; default 4 (the deterministic ones). */
  starts?: number;
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
  converged: boolean;
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

  if (opts.fixedA) {
    a = opts.fixedA;
    u = uStep(problem, a, opts.ridge);
  } else {
    let best: { a: number[]; u: number[]; f: number } | null = null;
    for (const [k, start] of initialBiases(L, opts.starts, opts.seed).entries()) {
      const run = alternatingLeastSquares(problem, start.a0, opts, sNorm2);
      starts.push({ kind: start.kind, a0: start.a0, objective: run.f, iterations: run.iterations, converged: run.converged, polishSteps: run.polishSteps });
      if (!best || run.f < best.f - (1e-9 * best.f + 1e-15 * sNorm2)) {
        best = { a: run.a, u: run.u, f: run.f };
        bestStart = k;
        iterations = run.iterations;
        converged = run.converged;
      }
    }
    ({ a, u } = best as { a: number[]; u: number[] });
  }

  let orientation: OrientationTaken;
  if (opts.fixedA) orientation = 'fixed';
  else if (L < n) orientation = 'identified';
  else if (!hasMirror(a, n)) orientation = 'degenerate';
  else if (violatesRule(opts.orientation, a, u)) {
    ({ a, u } = mirrorSolution(a, u));
    orientation = 'mirrored';
  } else orientation = 'kept';

  const identifiability = identify(problem, a, !!opts.fixedA);
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
    bestStart,
    starts,
  };
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

function identify(problem: MoiProblem, a: readonly number[], fixedA: boolean): MoiIdentifiability {
  const { n, permutations } = problem;
  const L = promptLength(problem);
  const equations = new Set(permutations.map((p) => p.join(','))).size;
  const unknowns = fixedA ? n : n + L - 1;
  const uDesignRank = numericalRank(uDesign(permutations, a, n), 1e-9);
  const structure = cyclicStructure(permutations, n);
  const reasons: string[] = [];
  if (uDesignRank < n) reasons.push(`the u-design X(a) has rank ${uDesignRank} < N = ${n}: u is not identified given a`);
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
  return { orientation, seed, starts, maxIterations, tolerance, exactFit, ridge, polish, fixedA };
}
