/**
 * Dense Cholesky factorisation A = L·Lᵀ of a symmetric positive-definite matrix and the solve
 * A·x = b by two triangular substitutions. Used for MoI's ridge-regularised u-step, whose normal
 * matrix XᵀX + ρI is positive definite by construction (ρ > 0).
 */

/** Lower-triangular L with A = L·Lᵀ; throws RangeError when A is not (numerically) positive definite. */
export function cholesky(a: readonly (readonly number[])[]): number[][] {
  const n = a.length;
  const l: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let j = 0; j < n; j++) {
    const row = a[j] as readonly number[];
    if (row.length !== n) throw new RangeError(`cholesky: row ${j} has ${row.length} entries, expected ${n}`);
    const lj = l[j] as number[];
    let d = row[j] as number;
    for (let k = 0; k < j; k++) d -= (lj[k] as number) ** 2;
    if (!(d > 0)) throw new RangeError(`cholesky: matrix is not positive definite (pivot ${j} = ${d})`);
    const djj = Math.sqrt(d);
    lj[j] = djj;
    for (let i = j + 1; i < n; i++) {
      const li = l[i] as number[];
      let v = (a[i] as readonly number[])[j] as number;
      for (let k = 0; k < j; k++) v -= (li[k] as number) * (lj[k] as number);
      li[j] = v / djj;
    }
  }
  return l;
}

/** Solves A·x = b for symmetric positive-definite A. */
export function choleskySolve(a: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = a.length;
  if (b.length !== n) throw new RangeError(`choleskySolve: right-hand side has ${b.length} entries, expected ${n}`);
  const l = cholesky(a);
  // L·y = b
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    const li = l[i] as number[];
    let v = b[i] as number;
    for (let k = 0; k < i; k++) v -= (li[k] as number) * (y[k] as number);
    y[i] = v / (li[i] as number);
  }
  // Lᵀ·x = y
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let v = y[i] as number;
    for (let k = i + 1; k < n; k++) v -= ((l[k] as number[])[i] as number) * (x[k] as number);
    x[i] = v / ((l[i] as number[])[i] as number);
  }
  return x;
}
