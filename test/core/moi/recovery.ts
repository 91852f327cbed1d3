/**
 * Planted MoI truths for the recovery tests (issue 23 item 1): bias shapes, random-3N prompt sets
 * (full-length or prefix-pruned), exact or noisy scores, and the comparison "in MoI's identifiable
 * gauge": full-length prompts identify a only up to a' = λa + (1 − λ)/N (λ < 0: the mirror), so the
 * fitted a is mapped back with λ from a least-squares fit of â − 1/N on a* − 1/N (computed here, not
 * by the project's code); pruned prompts identify a itself.
 */
import { createRng, type Rng } from '../../../src-main/core/random/rng';
import type { MoiProblem } from '../../../src-main/core/moi/moiProblem';

export const SHAPES = ['random-simplex', 'random-uniform', 'exp-decay', 'u-shaped', 'flat-tailed', 'recency'] as const;
export type Shape = (typeof SHAPES)[number];

export function biasOf(shape: Shape, L: number, rng: Rng): number[] {
  let raw: number[];
  switch (shape) {
    case 'random-simplex': // Dirichlet(1, …, 1): non-monotone
      raw = Array.from({ length: L }, () => -Math.log(rng.nextOpenFloat()));
      break;
    case 'random-uniform': // i.i.d. U(0.05, 1) weights: non-monotone, milder
      raw = Array.from({ length: L }, () => 0.05 + 0.95 * rng.nextFloat());
      break;
    case 'exp-decay': {
      const gamma = Math.log(2 + 18 * rng.nextFloat()) / Math.max(1, L - 1);
      raw = Array.from({ length: L }, (_, j) => Math.exp(-gamma * j));
      break;
    }
    case 'u-shaped':
      raw = Array.from({ length: L }, (_, j) => 1 / (j + 1) ** 2 + 1 / (2 * (L - j) ** 2));
      break;
    case 'flat-tailed': // 4, 3, 2, 1, 1, …
      raw = Array.from({ length: L }, (_, j) => Math.max(1, 4 - j));
      break;
    case 'recency':
      raw = Array.from({ length: L }, (_, j) => 1 / (L - j));
      break;
  }
  const sum = raw.reduce((x, y) => x + y, 0);
  return raw.map((v) => v / sum);
}

export interface PlantedCase {
  a: number[];
  u: number[];
  problem: MoiProblem;
  L: number;
}

/** 3N distinct random prompts (their first L positions when pruned), a of the shape, u ~ U(0, 2.5), s exact + σ·N(0, 1). */
export function plantedCase(n: number, shape: Shape, seed: string, options: { pruned?: boolean; sigma?: number } = {}): PlantedCase {
  const rng = createRng(seed);
  const L = options.pruned ? Math.ceil(n / 2) + 1 : n;
  const u = Array.from({ length: n }, () => 2.5 * rng.nextFloat());
  const a = biasOf(shape, L, rng);
  const seen = new Set<string>();
  const permutations: number[][] = [];
  while (permutations.length < 3 * n) {
    const p = rng.shuffled(Array.from({ length: n }, (_, i) => i)).slice(0, L);
    if (seen.has(p.join())) continue;
    seen.add(p.join());
    permutations.push(p);
  }
  const sigma = options.sigma ?? 0;
  const scores = permutations.map((p) => p.reduce((acc, q, j) => acc + a[j]! * u[q]!, 0) + sigma * rng.nextNormal());
  return { a, u, L, problem: { n, permutations, scores } };
}

/** Max |a recovered − a*| in the identifiable gauge, and the gauge's λ (1 for pruned prompts). */
export function gaugeError(aHat: readonly number[], aTrue: readonly number[], full: boolean): { error: number; lambda: number } {
  if (!full) return { error: Math.max(...aHat.map((v, j) => Math.abs(v - aTrue[j]!))), lambda: 1 };
  const n = aTrue.length;
  const x = aTrue.map((v) => v - 1 / n);
  const y = aHat.map((v) => v - 1 / n);
  const lambda = x.reduce((acc, v, i) => acc + v * y[i]!, 0) / x.reduce((acc, v) => acc + v * v, 0);
  return { error: Math.max(...aHat.map((v, j) => Math.abs((v - (1 - lambda) / n) / lambda - aTrue[j]!))), lambda };
}
