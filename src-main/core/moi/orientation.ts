/**
 * The mirror ambiguity of full-length MoI prompts and the rules that resolve it
 * (reference notes moi.md §2.3 (ii), pitfall 8).
 *
 * When every prompt holds all N passages, Σ_j u_{π_i[j]} = S = Σ_p u_p for every i, so
 *   a' = α·a + β·1,  u' = (u − β·S)/α,  α = 1 − N·β
 * leaves every prediction ŝ_i unchanged (Σ a' = 1 holds). α > 0 keeps the ranking by u; α < 0
 * *reverses* it and flips the sign of the bias slope Σ_j a_j (j − (L+1)/2) (the centred positions
 * sum to 0, so slope(a') = α·slope(a)): primacy bias ↔ recency bias with the same objective.
 * A mirror with a' ≥ 0 exists iff N·max(a) > 1. Among the mirrors we take the one with the largest
 * |α|, β = a_max/(N·a_max − 1), α = −1/(N·a_max − 1), which puts weight 0 on the most-weighted
 * position of a and amplifies u least:
 *   a'_j = (a_max − a_j)/(N·a_max − 1),   u' = a_max·S − (N·a_max − 1)·u.
 *
 * Pruned prompts (L < N) break the symmetry (S_i varies), and a fixed a (calibration) leaves nothing
 * to mirror, so there the fitted orientation stands.
 */
import { kendallTau } from './kendallTau';

/**
 * - `bias-non-increasing` (default): position bias non-increasing on average, biasSlope(a) ≤ 0 (paper
 *   Fig. 6 finds decreasing a for every model);
 * - `retriever-agreement`: Kendall tau of u against the retriever order ≥ 0;
 * - `none`: keep whichever twin ALS converged to (for studying the ambiguity).
 */
export const ORIENTATION_RULES = ['bias-non-increasing', 'retriever-agreement', 'none'] as const;
export type OrientationRule = (typeof ORIENTATION_RULES)[number];

/**
 * What happened to the fitted solution:
 * - `kept`: full-length prompts, the fit already satisfied the rule (or the rule is `none`);
 * - `mirrored`: full-length prompts, the mirror twin was taken to satisfy the rule;
 * - `identified`: pruned prompts (L < N): no mirror exists, the data fix the orientation;
 * - `fixed`: a was given (calibration run); u follows from it;
 * - `degenerate`: a is (numerically) uniform, N·max(a) ≤ 1: no mirror, and u is identified only
 *   up to its mean (notes §2.3 (iii)).
 */
export type OrientationTaken = 'kept' | 'mirrored' | 'identified' | 'fixed' | 'degenerate';

/** Σ_j a_j (j − (L+1)/2) with 1-based j: ≤ 0 means position bias non-increasing on average. */
export function biasSlope(a: readonly number[]): number {
  const centre = (a.length + 1) / 2;
  return a.reduce((acc, v, j) => acc + v * (j + 1 - centre), 0);
}

/** Kendall tau-b of u against the retriever order 0, 1, …, N−1 (passage 0 best); NaN if u is constant. */
export function retrieverTau(u: readonly number[]): number {
  return kendallTau(
    u,
    u.map((_, p) => -p),
  );
}

/** Whether a mirror with a' ≥ 0 exists for this a over N passages (full-length prompts). */
export function hasMirror(a: readonly number[], n: number): boolean {
  return a.length === n && n * Math.max(...a) > 1 + 1e-9;
}

/** The largest-|α| mirror (a', u') of (a, u) for full-length prompts; same predictions, reversed ranking. */
export function mirrorSolution(a: readonly number[], u: readonly number[]): { a: number[]; u: number[] } {
  const n = u.length;
  if (a.length !== n) throw new RangeError(`mirrorSolution: needs full-length prompts (L = ${a.length}, N = ${n})`);
  const aMax = Math.max(...a);
  const d = n * aMax - 1;
  if (!(d > 1e-9)) throw new RangeError('mirrorSolution: a is uniform, no mirror exists');
  const S = u.reduce((x, y) => x + y, 0);
  return { a: a.map((v) => (aMax - v) / d), u: u.map((v) => aMax * S - d * v) };
}

/** Whether (a, u) violates the rule (so the mirror should be taken when one exists). */
export function violatesRule(rule: OrientationRule, a: readonly number[], u: readonly number[]): boolean {
  if (rule === 'bias-non-increasing') return biasSlope(a) > 1e-12;
  if (rule === 'retriever-agreement') {
    const tau = retrieverTau(u);
    return Number.isFinite(tau) && tau < 0;
  }
  return false;
}
