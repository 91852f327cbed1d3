/**
 * MoI's a-step: the position-bias vector a given u (Sec. 3.1, the constraint of the MoI objective):
 *
 *   minimise ‖Z·a − s‖²  subject to  Σ_j a_j = 1,  a_j ≥ 0        (a_j ≤ 1 then holds automatically)
 *
 * with Z_{i,j} = u_{π_i[j]}. This is a convex quadratic programme over the probability simplex,
 * solved *exactly* (to KKT tolerance) by a primal active-set method (Nocedal & Wright, Alg. 16.3):
 * the working set W holds the coordinates fixed at 0; each iteration solves the equality-constrained
 * problem on the free coordinates F, steps towards its solution as far as feasibility allows (a
 * blocking coordinate joins W), and when the step vanishes frees the coordinate whose KKT multiplier
 * μ_j = g_j − λ is most negative (g = Zᵀ(Za − s), λ the multiplier of Σa = 1). It stops when every
 * μ_j ≥ 0 (j ∈ W), which is exactly the KKT system of the QP.
 *
 * Zᵀ Z is often singular here (tied u values, M < L, duplicated columns), so the equality-constrained
 * sub-problem gets a proximal term ε‖y − a_F‖² (ε = 1e-12 · tr(ZᵀZ)/L): it makes the step unique
 * and vanishes at the fixed point, so the KKT conditions checked at the end are those of the
 * original problem. Sub-problems are solved by Householder QR with column pivoting.
 */
import { pivotedLeastSquares } from './pivotedQr';

export interface SimplexLeastSquaresResult {
  a: number[];
  /** ‖Z·a − s‖². */
  objective: number;
  /** Active-set iterations. */
  iterations: number;
  /** False when the iteration cap was hit (the returned a is feasible but may not be optimal). */
  converged: boolean;
}

export interface SimplexLeastSquaresOptions {
  /** Feasible starting point (warm start); default: the best vertex e_j. */
  start?: readonly number[];
  /** Iteration cap; default 50 + 20·L. */
  maxIterations?: number;
}

/** Exact minimiser of ‖Z·a − s‖² over the probability simplex; Z is M × L row-major. */
export function simplexLeastSquares(z: readonly (readonly number[])[], s: readonly number[], options: SimplexLeastSquaresOptions = {}): SimplexLeastSquaresResult {
  const m = z.length;
  if (s.length !== m) throw new RangeError(`simplexLeastSquares: ${s.length} targets for ${m} rows`);
  const L = m === 0 ? (options.start?.length ?? 0) : (z[0] as readonly number[]).length;
  if (L === 0) throw new RangeError('simplexLeastSquares: no coordinates');
  for (const row of z) if (row.length !== L) throw new RangeError('simplexLeastSquares: ragged matrix');

  const objective = (a: readonly number[]) => {
    let f = 0;
    for (let i = 0; i < m; i++) {
      const row = z[i] as readonly number[];
      let r = -(s[i] as number);
      for (let j = 0; j < L; j++) r += (row[j] as number) * (a[j] as number);
      f += r * r;
    }
    return f;
  };
  const gradient = (a: readonly number[]) => {
    const g = new Array<number>(L).fill(0);
    for (let i = 0; i < m; i++) {
      const row = z[i] as readonly number[];
      let r = -(s[i] as number);
      for (let j = 0; j < L; j++) r += (row[j] as number) * (a[j] as number);
      for (let j = 0; j < L; j++) g[j] = (g[j] as number) + (row[j] as number) * r;
    }
    return g;
  };

  let zNorm2 = 0;
  for (const row of z) for (const v of row) zNorm2 += v * v;
  let sNorm2 = 0;
  for (const v of s) sNorm2 += v * v;
  const eps = 1e-12 * (zNorm2 / L) + 1e-300;
  const sqrtEps = Math.sqrt(eps);
  // Scales for the stopping tests: rounding in f is ~1e-16·(‖Za‖² + ‖s‖²) ≤ 1e-16·(‖Z‖² + ‖s‖²).
  const fTol = 1e-14 * (zNorm2 + sNorm2);
  const muTol = 1e-11 * Math.sqrt(zNorm2) * (Math.sqrt(zNorm2) + Math.sqrt(sNorm2));

  let a: number[];
  if (options.start) {
    if (options.start.length !== L) throw new RangeError(`simplexLeastSquares: start has ${options.start.length} entries, expected ${L}`);
    a = projectFeasible(options.start);
  } else {
    let best = 0;
    let bestF = Infinity;
    for (let j = 0; j < L; j++) {
      const e = new Array<number>(L).fill(0);
      e[j] = 1;
      const f = objective(e);
      if (f < bestF) {
        bestF = f;
        best = j;
      }
    }
    a = new Array<number>(L).fill(0);
    a[best] = 1;
  }
  const free = new Array<boolean>(L).fill(false);
  for (let j = 0; j < L; j++) free[j] = (a[j] as number) > 0;

  const maxIterations = options.maxIterations ?? 50 + 20 * L;
  let fa = objective(a);
  for (let it = 1; it <= maxIterations; it++) {
    const F = [...free.keys()].filter((j) => free[j]);
    const p = F.length > 1 ? proximalStep(z, s, a, F, sqrtEps) : null;
    let moved = false;
    if (p) {
      let pMax = 0;
      for (const v of p) pMax = Math.max(pMax, Math.abs(v));
      if (pMax > 0) {
        // Ratio test: the largest t ≤ 1 that keeps the free coordinates non-negative.
        let t = 1;
        for (let k = 0; k < F.length; k++) {
          const pk = p[k] as number;
          if (pk < 0) t = Math.min(t, (a[F[k] as number] as number) / -pk);
        }
        const trial = a.slice();
        for (let k = 0; k < F.length; k++) trial[F[k] as number] = (a[F[k] as number] as number) + t * (p[k] as number);
        const blocking: number[] = [];
        if (t < 1) {
          for (let k = 0; k < F.length; k++) {
            const j = F[k] as number;
            const pk = p[k] as number;
            if (pk < 0 && (a[j] as number) / -pk <= t * (1 + 1e-12)) blocking.push(j);
          }
        }
        for (const j of blocking) trial[j] = 0;
        const ft = objective(trial);
        if (ft < fa - fTol || (blocking.length > 0 && ft <= fa + fTol)) {
          a = projectFeasible(trial);
          fa = objective(a);
          for (const j of blocking) free[j] = false;
          moved = true;
        }
      }
    }
    if (moved) continue;
    // Stationary on F: check the multipliers of the coordinates held at 0.
    const g = gradient(a);
    let lambda = 0;
    for (const j of F) lambda += g[j] as number;
    lambda /= F.length;
    let enter = -1;
    let mostNegative = -muTol;
    for (let j = 0; j < L; j++) {
      if (free[j]) continue;
      const mu = (g[j] as number) - lambda;
      if (mu < mostNegative) {
        mostNegative = mu;
        enter = j;
      }
    }
    if (enter < 0) return { a, objective: fa, iterations: it, converged: true };
    free[enter] = true;
  }
  return { a, objective: fa, iterations: maxIterations, converged: false };
}

/**
 * Step p (over F) towards the minimiser of ‖Z_F·y − s‖² + ε‖y − a_F‖² on Σ y = Σ a_F, parametrised
 * as p_{f_t} = d_t (t ≥ 1), p_{f_0} = −Σ d_t so that Σ p = 0, and solved as one least-squares problem
 * [B; √ε·I; √ε·1ᵀ] d ≈ [s − Z·a; 0; 0] with B_{:,t} = Z_{:,f_t} − Z_{:,f_0}.
 */
function proximalStep(z: readonly (readonly number[])[], s: readonly number[], a: readonly number[], F: readonly number[], sqrtEps: number): number[] {
  const m = z.length;
  const k = F.length - 1;
  // Eliminate the coordinate with the largest current value (it stays positive longest).
  let pivot = 0;
  for (let t = 1; t < F.length; t++) if ((a[F[t] as number] as number) > (a[F[pivot] as number] as number)) pivot = t;
  const f0 = F[pivot] as number;
  const others = F.filter((_, t) => t !== pivot);
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (let i = 0; i < m; i++) {
    const row = z[i] as readonly number[];
    let r = s[i] as number;
    for (let j = 0; j < row.length; j++) r -= (row[j] as number) * (a[j] as number);
    rows.push(others.map((j) => (row[j] as number) - (row[f0] as number)));
    rhs.push(r);
  }
  for (let t = 0; t < k; t++) {
    const row = new Array<number>(k).fill(0);
    row[t] = sqrtEps;
    rows.push(row);
    rhs.push(0);
  }
  rows.push(new Array<number>(k).fill(sqrtEps));
  rhs.push(0);
  const { x: d } = pivotedLeastSquares(rows, rhs, 1e-14, k);
  const p = new Array<number>(F.length).fill(0);
  let sum = 0;
  others.forEach((j, t) => {
    p[F.indexOf(j)] = d[t] as number;
    sum += d[t] as number;
  });
  p[pivot] = -sum;
  return p;
}

/** Clips to ≥ 0 and rescales to sum 1 (start points and rounding drift). */
function projectFeasible(a: readonly number[]): number[] {
  const clipped = a.map((v) => (Number.isFinite(v) && v > 0 ? v : 0));
  const sum = clipped.reduce((x, y) => x + y, 0);
  if (sum === 0) return clipped.map(() => 1 / clipped.length);
  return clipped.map((v) => v / sum);
}
