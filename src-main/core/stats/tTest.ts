/**
 * One-sample, paired, Student (pooled) and Welch t-tests, matching scipy.stats `ttest_1samp`,
 * `ttest_rel`, `ttest_ind(equal_var=True)` and `ttest_ind(equal_var=False)` wherever scipy returns
 * a number. The effect is always b − a (system minus baseline); scipy's `ttest_rel(b, a)` has the
 * same sign.
 *
 * Degenerate inputs never yield NaN (scipy returns nan for 0/0):
 *  - zero variance and zero effect (e.g. identical per-query scores): statistic 0, p = 1 for every
 *    alternative, `degenerate: 'no-difference'` (there is no evidence of any difference);
 *  - zero variance and a non-zero effect: statistic ±Infinity and the limiting p-value
 *    (0 when the effect points the tested way, else 1), `degenerate: 'zero-variance'`, as scipy;
 *  - too few values (n < 2 for paired/one-sample/Welch groups, n_a + n_b < 3 for Student): DataError.
 */
import { DataError } from '../errors';
import type { Alternative } from './alternative';
import { checkSample, mean, pairedDifferences, requireSize, sumSquaredDeviations } from './descriptive';
import { studentTCdf, studentTQuantile, studentTSf, studentTTwoSided } from './studentT';

export type TTestKind = 'one-sample-t' | 'paired-t' | 'student-t' | 'welch-t';

export interface ConfidenceInterval {
  lower: number;
  upper: number;
  /** e.g. 0.95 */
  level: number;
}

export interface TTestResult {
  test: TTestKind;
  alternative: Alternative;
  /** The tested effect: mean(b − a) (paired), mean(b) − mean(a) (unpaired), mean − μ₀ (one-sample). */
  estimate: number;
  standardError: number;
  /** t = estimate / standardError; ±Infinity when the variance is zero and the estimate is not. */
  statistic: number;
  df: number;
  pValue: number;
  /** Two-sided t-based confidence interval of the estimate (also for one-sided alternatives). */
  ci: ConfidenceInterval;
  degenerate?: 'no-difference' | 'zero-variance';
}

export interface TTestOptions {
  alternative?: Alternative;
  /** Confidence level of `ci`, default 0.95. */
  confidence?: number;
}

/** p-value of an observed t under H₀ for the given alternative; handles t = ±Infinity. */
export function tPValue(t: number, df: number, alternative: Alternative): number {
  switch (alternative) {
    case 'two-sided':
      return studentTTwoSided(t, df);
    case 'greater':
      return studentTSf(t, df);
    case 'less':
      return studentTCdf(t, df);
  }
}

/** estimate ± t_{(1+level)/2, df} · se (e.g. Montgomery & Runger, Applied Statistics, §8.2). */
export function tInterval(estimate: number, se: number, df: number, level = 0.95): ConfidenceInterval {
  checkLevel(level);
  if (se === 0) return { lower: estimate, upper: estimate, level };
  const h = studentTQuantile((1 + level) / 2, df) * se;
  return { lower: estimate - h, upper: estimate + h, level };
}

/**
 * The one-sided t interval that matches a one-sided test at 1 − level (issue 34 item 5): for
 * `greater` [estimate − t_{level, df} · se, +∞), for `less` (−∞, estimate + t_{level, df} · se]; a
 * one-sided test at α rejects exactly when the interval at level 1 − α excludes 0.
 */
export function oneSidedTInterval(estimate: number, se: number, df: number, alternative: 'greater' | 'less', level = 0.95): ConfidenceInterval {
  checkLevel(level);
  const h = se === 0 ? 0 : studentTQuantile(level, df) * se;
  return alternative === 'greater' ? { lower: estimate - h, upper: Infinity, level } : { lower: -Infinity, upper: estimate + h, level };
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
}

function finish(test: TTestKind, estimate: number, se: number, df: number, opts: TTestOptions): TTestResult {
  const alternative = opts.alternative ?? 'two-sided';
  const ci = tInterval(estimate, se, df, opts.confidence ?? 0.95);
  if (se === 0) {
    if (estimate === 0) return { test, alternative, estimate, standardError: 0, statistic: 0, df, pValue: 1, ci, degenerate: 'no-difference' };
    const statistic = estimate > 0 ? Infinity : -Infinity;
    return { test, alternative, estimate, standardError: 0, statistic, df, pValue: tPValue(statistic, df, alternative), ci, degenerate: 'zero-variance' };
  }
  const statistic = estimate / se;
  return { test, alternative, estimate, standardError: se, statistic, df, pValue: tPValue(statistic, df, alternative), ci };
}

/** H₀: the mean of `values` is μ₀. t = (x̄ − μ₀)/(s/√n), df = n − 1. */
export function oneSampleTTest(values: readonly number[], mu0 = 0, opts: TTestOptions = {}): TTestResult {
  requireSize(values, 2, 'sample', 'a t-test');
  const n = values.length;
  const se = Math.sqrt(sumSquaredDeviations(values) / (n - 1) / n);
  return finish('one-sample-t', mean(values) - mu0, se, n - 1, opts);
}

/** Paired t-test on d_i = b_i − a_i (a one-sample test of the differences against 0), df = n − 1. */
export function pairedTTest(a: readonly number[], b: readonly number[], opts: TTestOptions = {}): TTestResult {
  const d = pairedDifferences(a, b);
  requireSize(d, 2, 'differences', 'a paired t-test');
  return { ...oneSampleTTest(d, 0, opts), test: 'paired-t' };
}

/**
 * Student's two-sample t-test with pooled variance
 * s_p² = ((n_a−1)s_a² + (n_b−1)s_b²)/(n_a+n_b−2), se = s_p √(1/n_a + 1/n_b), df = n_a + n_b − 2.
 * A group of one value is allowed (it contributes no variance), as in scipy.
 */
export function studentTTest(a: readonly number[], b: readonly number[], opts: TTestOptions = {}): TTestResult {
  checkSample(a, 'a');
  checkSample(b, 'b');
  const na = a.length;
  const nb = b.length;
  if (na + nb < 3) throw new DataError(`Student's t-test needs at least 3 values in total, got ${na + nb}`);
  const df = na + nb - 2;
  const pooled = (sumSquaredDeviations(a) + sumSquaredDeviations(b)) / df;
  const se = Math.sqrt(pooled * (1 / na + 1 / nb));
  return finish('student-t', mean(b) - mean(a), se, df, opts);
}

/**
 * Welch's unequal-variance t-test (Welch 1947): se² = s_a²/n_a + s_b²/n_b and the
 * Welch–Satterthwaite df = se⁴ / ((s_a²/n_a)²/(n_a−1) + (s_b²/n_b)²/(n_b−1)).
 * When both variances are 0 the df formula is 0/0; df = n_a + n_b − 2 is reported instead (it only
 * sizes the degenerate, zero-width CI).
 */
export function welchTTest(a: readonly number[], b: readonly number[], opts: TTestOptions = {}): TTestResult {
  requireSize(a, 2, 'a', "Welch's t-test");
  requireSize(b, 2, 'b', "Welch's t-test");
  const na = a.length;
  const nb = b.length;
  const va = sumSquaredDeviations(a) / (na - 1) / na;
  const vb = sumSquaredDeviations(b) / (nb - 1) / nb;
  const se2 = va + vb;
  const df = se2 === 0 ? na + nb - 2 : (se2 * se2) / ((va * va) / (na - 1) + (vb * vb) / (nb - 1));
  return finish('welch-t', mean(b) - mean(a), Math.sqrt(se2), df, opts);
}
