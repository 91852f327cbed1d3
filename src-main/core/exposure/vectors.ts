/** The three quadratic forms of Eq. 3: ‖ε‖², ⟨ε, ε*⟩ and ‖ε − ε*‖², over aligned arrays. */

export function squaredNorm(v: readonly number[]): number {
  let s = 0;
  for (const x of v) s += x * x;
  return s;
}

export function dot(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length (${a.length} vs ${b.length})`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

export function squaredDistance(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length (${a.length} vs ${b.length})`);
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    s += d * d;
  }
  return s;
}
