/**
 * t-based confidence intervals: of a mean, x̄ ± t_{(1+level)/2, n−1} · s/√n, and of the mean paired
 * delta, the same interval over d_i = b_i − a_i (Student 1908; e.g. Montgomery & Runger §8.2).
 * A constant sample gives a zero-width interval at its value; n < 2 is a DataError (no variance
 * can be estimated from one value).
 */
import { mean, pairedDifferences, requireSize, standardError } from './descriptive';
import { tInterval, type ConfidenceInterval } from './tTest';

export interface MeanInterval extends ConfidenceInterval {
  mean: number;
}

export function meanConfidenceInterval(values: readonly number[], level = 0.95): MeanInterval {
  requireSize(values, 2, 'sample', 'a confidence interval');
  const m = mean(values);
  return { mean: m, ...tInterval(m, standardError(values), values.length - 1, level) };
}

/** CI of mean(b − a) for paired samples. */
export function pairedDeltaConfidenceInterval(a: readonly number[], b: readonly number[], level = 0.95): MeanInterval {
  const d = pairedDifferences(a, b);
  requireSize(d, 2, 'differences', 'a confidence interval');
  return meanConfidenceInterval(d, level);
}
