/**
 * Standardized effect sizes of b over a (Cohen 1988).
 *  - paired, d_z = mean(d) / sd(d) with d_i = b_i − a_i (Cohen 1988 §2.3.5; Lakens 2013, Front.
 *    Psychol. 4:863, eq. 6); note t = d_z · √n for the paired t-test;
 *  - unpaired, d = (mean(b) − mean(a)) / s_p with the pooled sd
 *    s_p = √(((n_a−1)s_a² + (n_b−1)s_b²)/(n_a+n_b−2)) (Lakens 2013, eq. 1).
 * Zero variance: 0 when the mean difference is 0, else ±Infinity (the limit), never NaN.
 */
import { DataError } from '../errors';
import { checkSample, mean, pairedDifferences, requireSize, sumSquaredDeviations } from './descriptive';

function ratio(effect: number, sd: number): number {
  if (sd === 0) return effect === 0 ? 0 : effect > 0 ? Infinity : -Infinity;
  return effect / sd;
}

/** Cohen's d_z for paired samples. Needs n ≥ 2. */
export function cohensDPaired(a: readonly number[], b: readonly number[]): number {
  const d = pairedDifferences(a, b);
  requireSize(d, 2, 'differences', "Cohen's d");
  return ratio(mean(d), Math.sqrt(sumSquaredDeviations(d) / (d.length - 1)));
}

/** Cohen's d with pooled standard deviation for independent samples. Needs n_a + n_b ≥ 3. */
export function cohensDUnpaired(a: readonly number[], b: readonly number[]): number {
  checkSample(a, 'a');
  checkSample(b, 'b');
  const df = a.length + b.length - 2;
  if (df < 1) throw new DataError(`Cohen's d needs at least 3 values in total, got ${a.length + b.length}`);
  const sp = Math.sqrt((sumSquaredDeviations(a) + sumSquaredDeviations(b)) / df);
  return ratio(mean(b) - mean(a), sp);
}
