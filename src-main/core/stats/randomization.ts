/**
 * Fisher's randomization (permutation) tests of b against a (Fisher 1935; in IR: Smucker, Allan &
 * Carterette, CIKM 2007). The statistic is the difference of means, b − a, as in ranx.
 *  - paired: under H₀ each per-query difference d_i = b_i − a_i is as likely to have had the other
 *    sign, so each permutation flips every sign with probability ½;
 *  - unpaired: under H₀ the group labels are exchangeable, so each permutation reassigns the pooled
 *    values to groups of the original sizes uniformly at random.
 *
 * p-value = (c + 1)/(R + 1), where c counts the R random permutations at least as extreme as the
 * observed statistic. The +1 counts the observed labelling itself, which is one of the equally
 * likely labellings under H₀; this makes the Monte Carlo test exact in level and never returns
 * p = 0, which no finite sample can justify (Phipson & Smyth 2010, "Permutation P-values should never
 * be zero", Stat. Appl. Genet. Mol. Biol. 9(1)). ranx returns c/R, which can be 0 and is
 * anti-conservative by up to 1/R.
 *
 * "At least as extreme" uses a relative tolerance of 1e-10 of the data's scale, because sums of the
 * same values in a different order can differ in the last bits; without it, permutations tied with
 * the observed statistic (e.g. the mirror image, or every permutation when all d_i are equal) would
 * be counted or not at random.
 */
import { DataError } from '../errors';
import { createRng } from '../random/rng';
import type { Alternative } from './alternative';
import { checkSample, pairedDifferences } from './descriptive';

export const DEFAULT_PERMUTATIONS = 10_000;
/** Largest n for which `exactPairedRandomizationTest` enumerates all 2ⁿ sign vectors. */
export const MAX_EXACT_PAIRED_N = 24;
const RELATIVE_TOLERANCE = 1e-10;

/**
 * How a two-sided unpaired p-value is formed (#16.6); the two differ by up to 2× when the groups
 * differ in size, because the permutation distribution of mean(b) − mean(a) is then skewed:
 *  - `absolute` (default): count permutations with |stat| ≥ |observed| (Fisher; ranx);
 *  - `doubled`: twice the smaller one-sided p-value, capped at 1, as scipy.stats.permutation_test
 *    does: p = min(1, 2·min(count_less + 1, count_greater + 1)/(R + 1)).
 * One-sided alternatives are the same under both.
 */
export type TwoSidedRule = 'absolute' | 'doubled';
export const TWO_SIDED_RULES: readonly TwoSidedRule[] = ['absolute', 'doubled'];

export interface RandomizationOptions {
  /** Seed of the permutation stream; explicit so that every p-value can be reproduced. */
  seed: number | string;
  /** Number of random permutations R (default 10,000). */
  permutations?: number;
  alternative?: Alternative;
  /** Unpaired, two-sided: see TwoSidedRule (default `absolute`). */
  twoSided?: TwoSidedRule;
}

export interface RandomizationResult {
  test: 'paired-randomization' | 'unpaired-randomization';
  alternative: Alternative;
  /** Observed mean(b − a) (paired) or mean(b) − mean(a) (unpaired). */
  statistic: number;
  pValue: number;
  /** Permutations evaluated: R for Monte Carlo, 2ⁿ for the exact test. */
  permutations: number;
  /** How many of them were at least as extreme as the observed statistic. */
  count: number;
  method: 'monte-carlo' | 'exact';
  /** How pValue was formed from count and permutations. */
  pValueFormula: '(count+1)/(permutations+1)' | 'count/permutations' | 'min(1, 2*(min(count_less, count_greater)+1)/(permutations+1))';
}

function checkPermutations(r: number): void {
  if (!Number.isInteger(r) || r < 1) throw new RangeError(`permutations must be a positive integer, got ${r}`);
}

/** Whether `stat` is at least as extreme as `observed` under `alternative`, with tolerance `tol`. */
function atLeastAsExtreme(stat: number, observed: number, alternative: Alternative, tol: number): boolean {
  switch (alternative) {
    case 'two-sided':
      return Math.abs(stat) >= Math.abs(observed) - tol;
    case 'greater':
      return stat >= observed - tol;
    case 'less':
      return stat <= observed + tol;
  }
}

/** Paired test by random sign flips of d_i = b_i − a_i. */
export function pairedRandomizationTest(a: readonly number[], b: readonly number[], opts: RandomizationOptions): RandomizationResult {
  const d = pairedDifferences(a, b);
  const r = opts.permutations ?? DEFAULT_PERMUTATIONS;
  checkPermutations(r);
  const alternative = opts.alternative ?? 'two-sided';
  const n = d.length;
  let sum = 0;
  let scale = 0;
  for (const x of d) {
    sum += x;
    scale += Math.abs(x);
  }
  const observed = sum / n;
  const tol = (RELATIVE_TOLERANCE * scale) / n;
  const rng = createRng(opts.seed);
  let count = 0;
  for (let p = 0; p < r; p++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      // One 32-bit draw supplies 32 fair coin flips.
      if ((i & 31) === 0) bits = rng.nextUint32();
      s += (bits >>> (i & 31)) & 1 ? -(d[i] as number) : (d[i] as number);
    }
    if (atLeastAsExtreme(s / n, observed, alternative, tol)) count++;
  }
  return {
    test: 'paired-randomization',
    alternative,
    statistic: observed,
    pValue: (count + 1) / (r + 1),
    permutations: r,
    count,
    method: 'monte-carlo',
    pValueFormula: '(count+1)/(permutations+1)',
  };
}

/**
 * The exact paired randomization test: all 2ⁿ sign vectors, p = count / 2ⁿ (the identity is one of
 * them, so p ≥ 2⁻ⁿ). For n ≤ 24; the Monte Carlo test estimates this p-value.
 */
export function exactPairedRandomizationTest(a: readonly number[], b: readonly number[], alternative: Alternative = 'two-sided'): RandomizationResult {
  const d = pairedDifferences(a, b);
  const n = d.length;
  if (n > MAX_EXACT_PAIRED_N) throw new DataError(`exact randomization test enumerates 2^n sign flips; n = ${n} exceeds ${MAX_EXACT_PAIRED_N}`);
  let sum = 0;
  let scale = 0;
  for (const x of d) {
    sum += x;
    scale += Math.abs(x);
  }
  const observed = sum / n;
  const tol = (RELATIVE_TOLERANCE * scale) / n;
  const total = 2 ** n;
  let count = 0;
  for (let mask = 0; mask < total; mask++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += (mask >>> i) & 1 ? -(d[i] as number) : (d[i] as number);
    if (atLeastAsExtreme(s / n, observed, alternative, tol)) count++;
  }
  return {
    test: 'paired-randomization',
    alternative,
    statistic: observed,
    pValue: count / total,
    permutations: total,
    count,
    method: 'exact',
    pValueFormula: 'count/permutations',
  };
}

/** Unpaired test by random relabelling of the pooled values into groups of sizes n_a and n_b. */
export function unpairedRandomizationTest(a: readonly number[], b: readonly number[], opts: RandomizationOptions): RandomizationResult {
  checkSample(a, 'a');
  checkSample(b, 'b');
  const r = opts.permutations ?? DEFAULT_PERMUTATIONS;
  checkPermutations(r);
  const alternative = opts.alternative ?? 'two-sided';
  const na = a.length;
  const nb = b.length;
  const pooled = [...b, ...a];
  let total = 0;
  let scale = 0;
  for (const x of pooled) {
    total += x;
    scale += Math.abs(x);
  }
  // The observed statistic is computed by the same formula as the permuted ones (group b first).
  const statOf = (sumB: number): number => sumB / nb - (total - sumB) / na;
  let sumB0 = 0;
  for (const x of b) sumB0 += x;
  const observed = statOf(sumB0);
  const tol = (RELATIVE_TOLERANCE * scale) / Math.min(na, nb);
  const rng = createRng(opts.seed);
  const work = pooled.slice();
  const n = work.length;
  const doubled = alternative === 'two-sided' && (opts.twoSided ?? 'absolute') === 'doubled';
  let count = 0;
  let countLess = 0;
  let countGreater = 0;
  for (let p = 0; p < r; p++) {
    // Partial Fisher–Yates: the first nb slots become a uniform random subset (group b). Starting
    // from the previous arrangement keeps each draw uniform, so no reset is needed.
    let sumB = 0;
    for (let i = 0; i < nb; i++) {
      const j = i + rng.nextInt(n - i);
      const tmp = work[i] as number;
      work[i] = work[j] as number;
      work[j] = tmp;
      sumB += work[i] as number;
    }
    const stat = statOf(sumB);
    if (doubled) {
      if (stat <= observed + tol) countLess++;
      if (stat >= observed - tol) countGreater++;
    } else if (atLeastAsExtreme(stat, observed, alternative, tol)) count++;
  }
  if (doubled) {
    const smaller = Math.min(countLess, countGreater);
    return {
      test: 'unpaired-randomization',
      alternative,
      statistic: observed,
      pValue: Math.min(1, (2 * (smaller + 1)) / (r + 1)),
      permutations: r,
      count: smaller,
      method: 'monte-carlo',
      pValueFormula: 'min(1, 2*(min(count_less, count_greater)+1)/(permutations+1))',
    };
  }
  return {
    test: 'unpaired-randomization',
    alternative,
    statistic: observed,
    pValue: (count + 1) / (r + 1),
    permutations: r,
    count,
    method: 'monte-carlo',
    pValueFormula: '(count+1)/(permutations+1)',
  };
}
