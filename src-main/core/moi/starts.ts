/**
 * Initial bias vectors a0 for the multi-start ALS (reference notes moi.md §2.2):
 * ∝ 1/j (harmonic), 0.5^(j−1) (geometric), ∝ (L+1−j) (linear), 0.7 on the first position and the
 * rest spread evenly; then, for more starts, seeded random points of the simplex.
 *
 * Never the uniform a: X(a_unif) = 1ᵀ/N makes every prediction the mean of u, the u-step returns a
 * constant u, the a-step then sees identical columns and cannot move — ALS is stuck at its start.
 * Random starts are therefore redrawn until N·max(a0) − 1 ≥ 0.1. For L = 1 the only feasible a is
 * [1] (there is no position bias to learn), which is the single start.
 */
import { createRng } from '../random/rng';

export type StartKind = 'harmonic' | 'geometric' | 'linear' | 'first-0.7' | 'random';

export interface InitialBias {
  kind: StartKind;
  a0: number[];
}

const MIN_PEAK_EXCESS = 0.1;

/** `count` distinct, non-uniform starts of length L (fewer when L is too small to have that many deterministic ones and no random ones are asked for). */
export function initialBiases(L: number, count: number, seed: number | string): InitialBias[] {
  if (!Number.isInteger(L) || L < 1) throw new RangeError(`initialBiases: L must be a positive integer, got ${L}`);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`initialBiases: count must be a positive integer, got ${count}`);
  if (L === 1) return [{ kind: 'harmonic', a0: [1] }];
  const j = Array.from({ length: L }, (_, k) => k + 1);
  const candidates: InitialBias[] = [
    { kind: 'harmonic', a0: normalise(j.map((x) => 1 / x)) },
    { kind: 'geometric', a0: normalise(j.map((x) => 0.5 ** (x - 1))) },
    { kind: 'linear', a0: normalise(j.map((x) => L + 1 - x)) },
    { kind: 'first-0.7', a0: j.map((x) => (x === 1 ? 0.7 : 0.3 / (L - 1))) },
  ];
  const out: InitialBias[] = [];
  for (const c of candidates) {
    if (out.length >= count) break;
    if (!out.some((o) => sameVector(o.a0, c.a0))) out.push(c);
  }
  const rng = createRng(seed).fork('moi-initial-bias');
  let guard = 0;
  while (out.length < count) {
    if (++guard > 1000 * count) throw new Error('initialBiases: could not draw enough distinct non-uniform starts');
    // Uniform on the simplex: normalised standard exponentials (Dirichlet(1, …, 1)).
    const a0 = normalise(j.map(() => -Math.log(rng.nextOpenFloat())));
    if (L * Math.max(...a0) - 1 < MIN_PEAK_EXCESS) continue;
    if (out.some((o) => sameVector(o.a0, a0))) continue;
    out.push({ kind: 'random', a0 });
  }
  return out;
}

function normalise(v: readonly number[]): number[] {
  const sum = v.reduce((x, y) => x + y, 0);
  return v.map((x) => x / sum);
}

function sameVector(x: readonly number[], y: readonly number[]): boolean {
  return x.every((v, k) => Math.abs(v - (y[k] as number)) <= 1e-12);
}
