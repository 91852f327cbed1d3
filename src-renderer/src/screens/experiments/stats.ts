/**
 * Small statistics for figure bands: the mean of a group of points with its 95% Student-t
 * interval (mean ± t_{0.975, n−1} · s / √n). Quantiles: exact table for df ≤ 30, then the
 * Cornish–Fisher expansion around the normal quantile (error < 1e-4 for df > 30).
 */
const T975 = [
  12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.093, 2.086, 2.0796,
  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
];

export function tQuantile975(df: number): number {
  if (df < 1) return Number.NaN;
  if (df <= 30) return T975[Math.round(df) - 1]!;
  const z = 1.959964;
  const z3 = z ** 3;
  const z5 = z ** 5;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
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
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, lower: null, upper: null, n };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (tQuantile975(n - 1) * sd) / Math.sqrt(n);
  return { mean, lower: mean - half, upper: mean + half, n };
}
