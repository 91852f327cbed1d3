/**
 * Levenberg–Marquardt on MoI's bilinear least squares with only the scale constraint Σ a = 1
 * (no a ≥ 0):
 *
 *   minimise ‖r(a, u)‖² + ρ‖u − m·1‖²,   r_i = Σ_{j<L} a_j u_{π_i[j]} − s_i,   Σ a = 1,
 *
 * (ρ = ridge·tr(XᵀX)/N and m = mean(s) as in ALS's u-step, frozen at the current a).
 *
 * Why drop a ≥ 0 here: with full-length prompts the constraint changes nothing — every unconstrained
 * fit (a, u) has a gauge twin a' = λa + (1 − λ)/N, u' = u/λ − (1 − λ)S/(Nλ) with the same predictions,
 * and for λ > 0 small enough a' ≥ 0 (`gaugeIntoSimplex`) — while ALS with the active-set a-step gets
 * stuck at faces of the simplex (a coordinate pinned at 0) that are not minima of the problem; the
 * issue-23 planted cases (7 of 20 at N = 5 with random non-monotone bias) were such faces. With
 * pruned prompts (L < N) the unconstrained fit is the answer whenever it lands in the simplex (always
 * on exact, identified data); otherwise the caller continues with the constrained ALS from it.
 *
 * Details: the step keeps Σ δa = 0 by eliminating the coordinate of a with the largest |a_j|; the
 * damping is Marquardt's (diagonal of JᵀJ, floored), adapted as in Nielsen (1999): accepted steps
 * shrink it by max(1/3, 1 − (2ϱ − 1)³), rejected ones double the growth factor. Stops on an exact fit
 * (f ≤ exactFit·‖s‖²), an accepted step whose relative decrease is ≤ max(tolerance, 1e-13), a gradient
 * ‖Jᵀr‖ ≤ 1e-10·max column norm·‖r‖, no acceptable step, or the iteration cap (`converged: false`).
 */
import { moiObjective, type MoiProblem } from './moiProblem';
import { choleskySolve } from './cholesky';
import { linearisedRows, ridgedObjective, ridgeOf } from './gaussNewtonPolish';

export interface JointFit {
  a: number[];
  u: number[];
  /** ‖r‖² (without the ridge term). */
  f: number;
  iterations: number;
  converged: boolean;
}

export interface JointOptions {
  ridge: number;
  maxIterations: number;
  tolerance: number;
  exactFit: number;
}

export function jointLevenbergMarquardt(problem: MoiProblem, a0: readonly number[], u0: readonly number[], opts: JointOptions): JointFit {
  const { n, permutations, scores } = problem;
  const M = permutations.length;
  const L = a0.length;
  const m = scores.reduce((acc, v) => acc + v, 0) / Math.max(1, M);
  const sNorm2 = scores.reduce((acc, v) => acc + v * v, 0);
  const exact = opts.exactFit * sNorm2;
  let a = a0.slice();
  let u = u0.slice();
  let rho = ridgeOf(problem, a, opts.ridge);
  let f = ridgedObjective(problem, a, u, rho, m);
  let mu = -1;
  let growth = 2;
  let iterations = 0;
  if (moiObjective(problem, a, u) <= exact) return { a, u, f: moiObjective(problem, a, u), iterations, converged: true };
  while (iterations < opts.maxIterations) {
    iterations++;
    let e = 0;
    for (let j = 1; j < L; j++) if (Math.abs(a[j] as number) > Math.abs(a[e] as number)) e = j;
    const others: number[] = [];
    for (let j = 0; j < L; j++) if (j !== e) others.push(j);
    const cols = others.length + n;
    const { rows, rhs } = linearisedRows(problem, a, u, others, e);
    if (rho > 0) {
      const sr = Math.sqrt(rho);
      for (let p = 0; p < n; p++) {
        const row = new Array<number>(cols).fill(0);
        row[others.length + p] = sr;
        rows.push(row);
        rhs.push(-sr * ((u[p] as number) - m));
      }
    }
    if (L === n) {
      // Full-length prompts: (a, u) ↦ (λa + (1 − λ)/N, u/λ − (1 − λ)S/(Nλ)) leaves every prediction
      // unchanged; a row orthogonalising the step to that curve's tangent (a − 1/N, S/N − u) fixes the
      // gauge, which otherwise lets undamped steps run along it and be rejected (slow progress).
      const S = u.reduce((x, y) => x + y, 0);
      const tangent = new Array<number>(cols).fill(0);
      others.forEach((j, t) => (tangent[t] = (a[j] as number) - 1 / n));
      for (let p = 0; p < n; p++) tangent[others.length + p] = S / n - (u[p] as number);
      const tn = Math.sqrt(tangent.reduce((acc, v) => acc + v * v, 0));
      if (tn > 0) {
        let scale = 0;
        for (const row of rows) for (const v of row) scale += v * v;
        const w = Math.sqrt(scale / Math.max(1, cols)) / tn;
        rows.push(tangent.map((v) => w * v));
        rhs.push(0);
      }
    }
    // Diagonal of JᵀJ (Marquardt scaling), floored so that gauge/unused directions stay damped.
    const diag = new Array<number>(cols).fill(0);
    let grad2 = 0;
    const g = new Array<number>(cols).fill(0);
    rows.forEach((row, i) => {
      for (let c = 0; c < cols; c++) {
        const v = row[c] as number;
        diag[c] = (diag[c] as number) + v * v;
        g[c] = (g[c] as number) - v * (rhs[i] as number);
      }
    });
    const maxDiag = Math.max(...diag, Number.MIN_VALUE);
    for (let c = 0; c < cols; c++) diag[c] = Math.max(diag[c] as number, 1e-9 * maxDiag);
    for (const v of g) grad2 += v * v;
    if (mu < 0) mu = 1e-6;
    if (Math.sqrt(grad2) <= 1e-10 * Math.sqrt(maxDiag) * Math.sqrt(Math.max(f, Number.MIN_VALUE)) + 1e-300) return { a, u, f: moiObjective(problem, a, u), iterations, converged: true };
    // Normal equations once per iteration; each damping trial is then a small Cholesky solve.
    const jtj: number[][] = Array.from({ length: cols }, () => new Array<number>(cols).fill(0));
    for (const row of rows) {
      for (let c = 0; c < cols; c++) {
        const v = row[c] as number;
        if (v === 0) continue;
        const out = jtj[c] as number[];
        for (let d = c; d < cols; d++) out[d] = (out[d] as number) + v * (row[d] as number);
      }
    }
    for (let c = 0; c < cols; c++) for (let d = 0; d < c; d++) (jtj[c] as number[])[d] = (jtj[d] as number[])[c] as number;
    const minusG = g.map((v) => -v);
    let accepted = false;
    for (let tries = 0; tries < 40 && !accepted; tries++) {
      const sys = jtj.map((r, c) => r.map((v, d) => (c === d ? v + mu * (diag[c] as number) : v)));
      let x: number[];
      try {
        x = choleskySolve(sys, minusG);
      } catch {
        mu *= growth;
        growth *= 2;
        continue;
      }
      const na = a.slice();
      let sum = 0;
      others.forEach((j, t) => {
        na[j] = (na[j] as number) + (x[t] as number);
        sum += x[t] as number;
      });
      na[e] = (na[e] as number) - sum;
      const nu = u.map((v, p) => v + (x[others.length + p] as number));
      const nRho = ridgeOf(problem, na, opts.ridge);
      const nf = ridgedObjective(problem, na, nu, nRho, m);
      // Predicted decrease of the linearised model: ‖rhs‖² − ‖rhs − J x‖².
      let pred = 0;
      rows.forEach((row, i) => {
        let jx = 0;
        for (let c = 0; c < cols; c++) jx += (row[c] as number) * (x[c] as number);
        pred += (rhs[i] as number) ** 2 - ((rhs[i] as number) - jx) ** 2;
      });
      const gain = pred > 0 ? (f - nf) / pred : -1;
      if (nf < f && gain > 0) {
        const decrease = f - nf;
        a = na;
        u = nu;
        rho = nRho;
        f = nf;
        mu *= Math.max(1 / 3, 1 - (2 * gain - 1) ** 3);
        growth = 2;
        accepted = true;
        if (moiObjective(problem, a, u) <= exact) return { a, u, f: moiObjective(problem, a, u), iterations, converged: true };
        if (decrease <= Math.max(opts.tolerance, 1e-13) * (f + decrease)) return { a, u, f: moiObjective(problem, a, u), iterations, converged: true };
      } else {
        mu *= growth;
        growth *= 2;
        if (!Number.isFinite(mu) || mu > 1e30) break;
      }
    }
    // No step lowers the objective even with heavy damping: a stationary point to rounding.
    if (!accepted) return { a, u, f: moiObjective(problem, a, u), iterations, converged: true };
  }
  return { a, u, f: moiObjective(problem, a, u), iterations, converged: false };
}

/**
 * Full-length prompts only: the member of (a, u)'s gauge family a' = λa + (1 − λ)/N,
 * u' = u/λ − (1 − λ)S/(Nλ) (same predictions, λ > 0 keeps the ranking) that lies in the simplex:
 * (a, u) itself when a ≥ 0, otherwise the largest λ with a' ≥ 0 (min a' = 0).
 */
export function gaugeIntoSimplex(a: readonly number[], u: readonly number[]): { a: number[]; u: number[]; lambda: number } {
  const n = a.length;
  const aMin = Math.min(...a);
  if (aMin >= 0) return { a: a.slice(), u: u.slice(), lambda: 1 };
  const lambda = 1 / n / (1 / n - aMin);
  const S = u.reduce((x, y) => x + y, 0);
  const na = a.map((v) => Math.max(0, lambda * v + (1 - lambda) / n));
  const total = na.reduce((x, y) => x + y, 0);
  return { a: na.map((v) => v / total), u: u.map((v) => v / lambda - ((1 - lambda) * S) / (n * lambda)), lambda };
}
