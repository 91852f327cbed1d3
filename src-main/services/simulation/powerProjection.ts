/**
 * The number of queries a simulated design needs for a target power, projected from one grid cell's runs
 * (scripts/powerGrid.ts; issue 23 item 3). Each run of the cell gives the tested difference d_r (the
 * mean over its q queries); over the runs, m = mean d_r and s = their standard deviation, so s·√q is the
 * per-query spread and, by the normal approximation to the test, q queries reach power P at two-sided
 * level α when m/(s·√(q/q')) = z_{1−α/2} + z_P:
 *
 *   q' = q · ((z_{1−α/2} + z_P) · s / m)²
 *
 * A projection, not a measurement: replicated queries are assumed to behave like the cell's queries, the
 * test like a z-test; only a measured grid point says the power is reached. Null (no projection) with
 * fewer than 3 runs, no spread or a zero mean difference.
 */
import { normalQuantile } from '../../core/stats/normal';

export function projectQueries(queries: number, differences: readonly number[], level: number, power: number): number | null {
  if (differences.length < 3) return null;
  const m = differences.reduce((x, y) => x + y, 0) / differences.length;
  const s = Math.sqrt(differences.reduce((x, y) => x + (y - m) ** 2, 0) / (differences.length - 1));
  if (!(Math.abs(m) > 0) || !(s > 1e-12 * Math.abs(m))) return null; // equal values: no spread (up to rounding)
  return Math.ceil(queries * (((normalQuantile(1 - level / 2) + normalQuantile(power)) * s) / m) ** 2);
}
