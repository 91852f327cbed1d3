/**
 * Small statistics for figure bands: the mean of a group of points with its 95% Student-t
 * interval (mean ± t_{0.975, n−1} · s / √n), from core/stats (the same quantile as every other
 * interval of the app, exact for any df; the table and Cornish–Fisher expansion that stood here
 * rounded fractional df).
 */
import { meanConfidenceInterval } from '$core/stats/confidenceInterval';
import { studentTQuantile } from '$core/stats/studentT';

export function tQuantile975(df: number): number {
  return df > 0 ? studentTQuantile(0.975, df) : Number.NaN;
}

export interface MeanCi {
  mean: number;
  lower: number | null;
  upper: number | null;
  n: number;
}

export function meanCi(values: readonly number[]): MeanCi | null {
  const n = values.length;
  if (n === 0) return null;
  if (n < 2) return { mean: values[0]!, lower: null, upper: null, n };
  const ci = meanConfidenceInterval(values);
  return { mean: ci.mean, lower: ci.lower, upper: ci.upper, n };
}
