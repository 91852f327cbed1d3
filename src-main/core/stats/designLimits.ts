/**
 * What a study design can ever show (issue 23 item 5), before anything runs:
 *
 * - `smallestAttainableP`: the smallest p-value a test can produce on the given group sizes, whatever the
 *   data. A two-sided paired sign-flip (randomization) test on n queries has 2^n equally likely sign
 *   patterns, the observed one and its mirror are the two most extreme, so p ≥ 2 / 2^n; an unpaired
 *   permutation test of groups nA, nB: p ≥ 2 / C(nA + nB, nA); a Monte-Carlo version with B permutations
 *   counts the observed statistic too, so p ≥ 1 / (B + 1). t-tests reach p → 0 once they have a variance
 *   (paired n ≥ 2; unpaired nA + nB ≥ 3 with both groups non-empty).
 * - `smallestRejectableP`: the p-value the best case must reach under a correction over m comparisons:
 *   α / m for Holm and Bonferroni (the smallest p is compared with α / m), α for BH (all m p-values equal
 *   and ≤ α reject together) and for none.
 * - `samplesToSeparate`: the number of samples per arm at which a per-query mean difference `gap` between
 *   two arms, each a mean of N draws of variance ≤ `variance` (a [0, 1] utility: ≤ 1/4), is found at
 *   power `power` by a two-sided level-α z-test pooled over `queries` queries:
 *   N = 2·variance·(z_{1−α/2} + z_power)² / (queries·gap²). Only the within-query sampling noise counts,
 *   so it is a lower bound on what a real study needs.
 */
import { normalQuantile } from './normal';
import { studentTQuantile } from './studentT';

export interface AttainableInput {
  test: string;
  paired: boolean;
  /** Paired: the number of pairs (queries). Unpaired: the first group's size. */
  nA: number;
  /** Unpaired: the second group's size. */
  nB?: number | undefined;
  /** Monte-Carlo randomization tests: the number of random permutations (null or absent: exact). */
  permutations?: number | null | undefined;
}

/** Randomization, permutation, sign-flip and sign tests are counted as exact permutation tests. */
export function isPermutationTest(test: string): boolean {
  return /random|permut|sign/i.test(test);
}

function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

export function smallestAttainableP(input: AttainableInput): number {
  const { paired, nA } = input;
  const nB = input.nB ?? 0;
  if (!isPermutationTest(input.test)) {
    if (paired) return nA >= 2 ? 0 : 1;
    return nA >= 1 && nB >= 1 && nA + nB >= 3 ? 0 : 1;
  }
  let exact: number;
  if (paired) exact = nA >= 1 ? Math.min(1, 2 * 2 ** -nA) : 1;
  else exact = nA >= 1 && nB >= 1 ? Math.min(1, 2 * Math.exp(-logChoose(nA + nB, nA))) : 1;
  const mc = input.permutations ? 1 / (input.permutations + 1) : 0;
  return Math.max(exact, mc);
}

export function smallestRejectableP(alpha: number, correction: string, comparisons: number): number {
  const m = Math.max(1, comparisons);
  return correction === 'holm' || correction === 'bonferroni' ? alpha / m : alpha;
}

/** The fewest pairs (queries) with which a paired test can reach `threshold` (null: never up to 64). */
export function fewestPairsToReject(test: string, threshold: number, permutations?: number | null): number | null {
  for (let n = 2; n <= 64; n++) if (smallestAttainableP({ test, paired: true, nA: n, permutations }) <= threshold) return n;
  return null;
}

export function samplesToSeparate(gap: number, queries: number, options: { alpha?: number; power?: number; variance?: number } = {}): number {
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const variance = options.variance ?? 0.25;
  if (!(gap > 0) || !(queries >= 1)) return Infinity;
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  return Math.ceil((2 * variance * z * z) / (queries * gap * gap));
}

/**
 * What a two-sided paired t-test on n pairs needs to reach p ≤ `threshold`: |t| ≥ t_{1 − threshold/2, n − 1}, i.e. a
 * standardised mean difference d_z = mean / sd of the per-pair differences ≥ t / √n (null below 2 pairs: no test).
 */
export function pairedTBar(n: number, threshold: number): { tCritical: number; dz: number } | null {
  if (!(n >= 2) || !(threshold > 0 && threshold < 1)) return null;
  const tCritical = studentTQuantile(1 - threshold / 2, n - 1);
  return { tCritical, dz: tCritical / Math.sqrt(n) };
}

/** Above this d_z a significant paired t-test needs the effect to exceed the spread of the per-query differences. */
export const IMPLAUSIBLE_DZ = 1;
