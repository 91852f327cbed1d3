/**
 * Planted MoI problems as in the reference notes' solver experiment (moi.md §2.6): a*_j ∝
 * exp(−γ(j−1)) with a*_1/a*_L ~ logU(2, 20), u*_p ~ U(0, uScale), s_i = Σ_j a*_j u*_{π_i[j]} + σ·ε_i.
 * uScale 2.5 puts the signal-to-noise ratio std(s_clean)/σ in the notes' ranges (≈ 9–70 at σ = .005,
 * 0.4–3.5 at σ = .1 for N = 5).
 */
import { createRng } from '../../../src-main/core/random/rng';
import type { MoiProblem } from '../../../src-main/core/moi/moiProblem';

export interface Planted {
  u: number[];
  a: number[];
  problem: MoiProblem;
}

export interface PlantedOptions {
  sigma?: number;
  uScale?: number;
  /** Reverse a* (recency bias). */
  increasing?: boolean;
  /** Sort u* so that it agrees with the retriever order (passage 0 best). */
  retrieverOrdered?: boolean;
  /** Explicit prompts (default: 3N distinct random permutations). */
  permutations?: number[][];
}

export function plantedBias(L: number, rng: { nextFloat(): number }): number[] {
  const ratio = Math.exp(Math.log(2) + rng.nextFloat() * (Math.log(20) - Math.log(2)));
  const gamma = L > 1 ? Math.log(ratio) / (L - 1) : 0;
  const raw = Array.from({ length: L }, (_, j) => Math.exp(-gamma * j));
  const sum = raw.reduce((x, y) => x + y, 0);
  return raw.map((v) => v / sum);
}

export function planted(n: number, seed: number, options: PlantedOptions = {}): Planted {
  const rng = createRng(`planted-${n}-${seed}`);
  let u = Array.from({ length: n }, () => (options.uScale ?? 2.5) * rng.nextFloat());
  if (options.retrieverOrdered) u = u.slice().sort((x, y) => y - x);
  let permutations = options.permutations;
  if (!permutations) {
    const seen = new Set<string>();
    permutations = [];
    while (permutations.length < 3 * n) {
      const p = rng.shuffled(Array.from({ length: n }, (_, i) => i));
      if (seen.has(p.join())) continue;
      seen.add(p.join());
      permutations.push(p);
    }
  }
  const L = permutations[0]!.length;
  const a = plantedBias(L, rng);
  if (options.increasing) a.reverse();
  const sigma = options.sigma ?? 0;
  const scores = permutations.map((p) => p.reduce((acc, q, j) => acc + a[j]! * u[q]!, 0) + sigma * rng.nextNormal());
  return { u, a, problem: { n, permutations, scores } };
}
