/**
 * Householder QR with column pivoting (Businger–Golub) for small dense least-squares problems:
 * the numerical rank of a matrix and the *basic* least-squares solution min ‖A·x − b‖₂ (free
 * variables of a rank-deficient problem set to 0). MoI uses it for the equality-constrained
 * sub-problems of the simplex active-set step (whose matrices are often singular) and to decide
 * whether the u-design is rank-deficient ("underdetermined").
 *
 * Rank decision: column k counts when its remaining norm exceeds `relTol` × the largest column
 * norm of A (the first pivot). Matrices are row-major `number[][]` (rows × columns).
 */
export interface PivotedLeastSquares {
  x: number[];
  rank: number;
}

export const DEFAULT_RANK_TOLERANCE = 1e-10;

/** Numerical rank of A (rows × cols). */
export function numericalRank(a: readonly (readonly number[])[], relTol = DEFAULT_RANK_TOLERANCE): number {
  const cols = a.length === 0 ? 0 : (a[0] as readonly number[]).length;
  return pivotedLeastSquares(a, new Array<number>(a.length).fill(0), relTol, cols).rank;
}

/** Basic solution of min ‖A·x − b‖₂ and the numerical rank of A. */
export function pivotedLeastSquares(a: readonly (readonly number[])[], b: readonly number[], relTol = DEFAULT_RANK_TOLERANCE, columns?: number): PivotedLeastSquares {
  const m = a.length;
  const n = columns ?? (m === 0 ? 0 : (a[0] as readonly number[]).length);
  if (b.length !== m) throw new RangeError(`pivotedLeastSquares: right-hand side has ${b.length} entries, expected ${m}`);
  // Column-major working copy.
  const c: Float64Array[] = Array.from({ length: n }, (_, j) => {
    const col = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const row = a[i] as readonly number[];
      if (row.length !== n) throw new RangeError(`pivotedLeastSquares: row ${i} has ${row.length} entries, expected ${n}`);
      col[i] = row[j] as number;
    }
    return col;
  });
  const rhs = Float64Array.from(b);
  const perm = Array.from({ length: n }, (_, j) => j);
  const steps = Math.min(m, n);
  let rank = 0;
  let firstNorm = 0;
  for (let k = 0; k < steps; k++) {
    // Pivot: the column with the largest remaining norm (rows k..m−1), recomputed exactly.
    let best = -1;
    let bestNorm = -1;
    for (let j = k; j < n; j++) {
      const col = c[j] as Float64Array;
      let s = 0;
      for (let i = k; i < m; i++) s += (col[i] as number) ** 2;
      if (s > bestNorm) {
        bestNorm = s;
        best = j;
      }
    }
    const norm = Math.sqrt(bestNorm);
    if (k === 0) firstNorm = norm;
    if (!(norm > relTol * firstNorm) || norm === 0) break;
    if (best !== k) {
      [c[k], c[best]] = [c[best] as Float64Array, c[k] as Float64Array];
      [perm[k], perm[best]] = [perm[best] as number, perm[k] as number];
    }
    // Householder reflector H = I − 2vvᵀ/(vᵀv) mapping column k (rows k..) onto −sign·norm·e_k.
    const col = c[k] as Float64Array;
    const alpha = (col[k] as number) >= 0 ? -norm : norm;
    const v = new Float64Array(m - k);
    for (let i = k; i < m; i++) v[i - k] = col[i] as number;
    v[0] = (v[0] as number) - alpha;
    let vv = 0;
    for (let i = 0; i < v.length; i++) vv += (v[i] as number) ** 2;
    if (vv > 0) {
      const apply = (target: Float64Array) => {
        let dot = 0;
        for (let i = k; i < m; i++) dot += (v[i - k] as number) * (target[i] as number);
        const f = (2 * dot) / vv;
        for (let i = k; i < m; i++) target[i] = (target[i] as number) - f * (v[i - k] as number);
      };
      for (let j = k + 1; j < n; j++) apply(c[j] as Float64Array);
      apply(rhs);
    }
    col[k] = alpha;
    for (let i = k + 1; i < m; i++) col[i] = 0;
    rank = k + 1;
  }
  // Back substitution on the leading rank × rank block of R; remaining (pivoted) unknowns are 0.
  const z = new Array<number>(rank).fill(0);
  for (let i = rank - 1; i >= 0; i--) {
    let v = rhs[i] as number;
    for (let j = i + 1; j < rank; j++) v -= ((c[j] as Float64Array)[i] as number) * (z[j] as number);
    z[i] = v / ((c[i] as Float64Array)[i] as number);
  }
  const x = new Array<number>(n).fill(0);
  for (let j = 0; j < rank; j++) x[perm[j] as number] = z[j] as number;
  return { x, rank };
}
