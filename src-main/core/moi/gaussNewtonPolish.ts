/**
 * A joint Gauss–Newton refinement of an ALS solution (a, u) of MoI's bilinear least squares
 *
 *   minimise ‖r(a, u)‖² + ρ‖u − m·1‖²,   r_i = Σ_{j<L} a_j u_{π_i[j]} − s_i,   Σ a = 1, a ≥ 0,
 *
 * the objective ALS itself minimises (ρ = ridge·tr(XᵀX)/N and m = mean(s) as in the u-step, frozen at
 * the current a; ρ = 0 with ridge 0).
 *
 * Why: alternating least squares converges linearly, and slowly where the objective is flat along a
 * direction that mixes a and u (a U-shaped bias curve, flat in the middle, is the typical case); its
 * stopping rules then end it with an error of ~1e-6 on a although the data fit exactly. Gauss–Newton on
 * the joint parameters converges quadratically on such (near-)zero-residual problems, so a handful of
 * steps take the fit from ALS's ~1e-12 to rounding. It changes no objective and no fixed point: a
 * point where the step vanishes is one where the a-step's KKT conditions (on the free coordinates) and
 * the u-step's normal equations both hold, i.e. an ALS fixed point.
 *
 * Details: coordinates of a at 0 stay at 0 (the active set ALS ended with); the free ones move with
 * Σ δa = 0 (one of them eliminated, as in simplexLeastSquares' sub-problem); a tiny Levenberg term
 * (1e-12 of the mean squared column norm) fixes the step along MoI's gauge direction (a' = λa + (1 − λ)/N,
 * u' = u/λ + const, which leaves every ŝ unchanged) without limiting precision; a step that would make a
 * coordinate negative is cut at the boundary and that coordinate leaves the free set; a step is taken
 * only when it lowers the objective (halving it up to 8 times), and the refinement ends when none does.
 */
import { moiObjective, type MoiProblem } from './moiProblem';
import { pivotedLeastSquares } from './pivotedQr';

export interface PolishResult {
  a: number[];
  u: number[];
  f: number;
  steps: number;
}

/** The ridged objective ALS minimises: ‖r‖² + ρ‖u − m‖², with ρ and m as in the u-step at this a. */
export function ridgedObjective(problem: MoiProblem, a: readonly number[], u: readonly number[], rho: number, m: number): number {
  let f = moiObjective(problem, a, u);
  if (rho > 0) for (const v of u) f += rho * (v - m) ** 2;
  return f;
}

/** ρ of the u-step at this a: `ridge` times the mean diagonal of XᵀX. */
export function ridgeOf(problem: MoiProblem, a: readonly number[], ridge: number): number {
  if (ridge === 0) return 0;
  let trace = 0;
  for (const perm of problem.permutations) {
    // X_{i,p} = a_j at p = π_i[j]: the diagonal of XᵀX sums the squares of each row's entries.
    for (let j = 0; j < perm.length; j++) trace += (a[j] as number) ** 2;
  }
  return (ridge * trace) / problem.n;
}

/**
 * The Gauss–Newton system of s_i ≈ Σ_j a_j u_{π_i(j)} at (a, u), with a_e eliminated through Σ δa = 0:
 * row i has ∂/∂a_j = u_{π_i(j)} − u_{π_i(e)} for j in `others` (the first columns), then ∂/∂u_p = Σ_{j: π_i(j) = p} a_j;
 * the right-hand side is minus the residual, s_i − Σ_j a_j u_{π_i(j)}.
 */
export function linearisedRows(problem: MoiProblem, a: readonly number[], u: readonly number[], others: readonly number[], e: number): { rows: number[][]; rhs: number[] } {
  const { n, permutations, scores } = problem;
  const L = a.length;
  const cols = others.length + n;
  const rows: number[][] = [];
  const rhs: number[] = [];
  for (let i = 0; i < permutations.length; i++) {
    const perm = permutations[i] as readonly number[];
    const row = new Array<number>(cols).fill(0);
    let r = -(scores[i] as number);
    for (let j = 0; j < L; j++) {
      const p = perm[j] as number;
      r += (a[j] as number) * (u[p] as number);
      row[others.length + p] = (row[others.length + p] as number) + (a[j] as number);
    }
    const ue = u[perm[e] as number] as number;
    others.forEach((j, t) => (row[t] = (u[perm[j] as number] as number) - ue));
    rows.push(row);
    rhs.push(-r);
  }
  return { rows, rhs };
}

export function gaussNewtonPolish(problem: MoiProblem, a0: readonly number[], u0: readonly number[], ridge: number, maxSteps = 30): PolishResult {
  const { n, permutations, scores } = problem;
  const M = permutations.length;
  const L = a0.length;
  const m = scores.reduce((acc, v) => acc + v, 0) / Math.max(1, M);
  let a = a0.slice();
  let u = u0.slice();
  let rho = ridgeOf(problem, a, ridge);
  let f = ridgedObjective(problem, a, u, rho, m);
  let steps = 0;
  const free = a.map((v) => v > 0);
  for (let it = 0; it < maxSteps && f > 0; it++) {
    const F = [...free.keys()].filter((j) => free[j]);
    // Eliminate the free coordinate with the largest value: δa_{f0} = −Σ δa_others.
    let f0 = F[0] as number;
    for (const j of F) if ((a[j] as number) > (a[f0] as number)) f0 = j;
    const others = F.filter((j) => j !== f0);
    const { rows, rhs } = linearisedRows(problem, a, u, others, f0);
    const cols = others.length + n;
    if (rho > 0) {
      const sr = Math.sqrt(rho);
      for (let p = 0; p < n; p++) {
        const row = new Array<number>(cols).fill(0);
        row[others.length + p] = sr;
        rows.push(row);
        rhs.push(-sr * ((u[p] as number) - m));
      }
    }
    let colNorm2 = 0;
    for (const row of rows) for (const v of row) colNorm2 += v * v;
    const damp = Math.sqrt((1e-12 * colNorm2) / Math.max(1, cols)) + 1e-300;
    for (let c = 0; c < cols; c++) {
      const row = new Array<number>(cols).fill(0);
      row[c] = damp;
      rows.push(row);
      rhs.push(0);
    }
    const { x } = pivotedLeastSquares(rows, rhs, 1e-14, cols);
    const da = new Array<number>(L).fill(0);
    let sum = 0;
    others.forEach((j, t) => {
      da[j] = x[t] as number;
      sum += x[t] as number;
    });
    da[f0] = -sum;
    const du = x.slice(others.length);
    // Ratio test: the free coordinates stay ≥ 0.
    let tMax = 1;
    let blocking = -1;
    for (const j of F) {
      const d = da[j] as number;
      if (d < 0 && (a[j] as number) / -d < tMax) {
        tMax = (a[j] as number) / -d;
        blocking = j;
      }
    }
    let accepted = false;
    for (let halving = 0, t = tMax; halving <= 8; halving++, t /= 2) {
      const na = a.map((v, j) => (free[j] ? Math.max(0, v + t * (da[j] as number)) : 0));
      if (halving === 0 && blocking >= 0) na[blocking] = 0;
      const total = na.reduce((acc, v) => acc + v, 0);
      for (let j = 0; j < L; j++) na[j] = (na[j] as number) / total;
      const nu = u.map((v, p) => v + t * (du[p] as number));
      const nRho = ridgeOf(problem, na, ridge);
      const nf = ridgedObjective(problem, na, nu, nRho, m);
      if (nf < f) {
        a = na;
        u = nu;
        f = nf;
        rho = nRho;
        if (halving === 0 && blocking >= 0) free[blocking] = false;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    steps++;
  }
  return { a, u, f: moiObjective(problem, a, u), steps };
}
