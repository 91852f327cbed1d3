/**
 * The design check shared by the kinds whose tables test conditions against a baseline, paired over
 * queries, with a correction over the m conditions compared (issue 23 item 5): MoI Table 1, RichRAG
 * Tables 1 and 3.
 *
 * - `too-few-queries`: the test and correction can never reach p ≤ α on n queries, whatever the data:
 *   fewer than 2 queries (no paired test), or the paired randomization test, whose p is at least
 *   max(2 / 2ⁿ, 1 / (B + 1)) (core/stats/designLimits.ts), above α / m (Holm, Bonferroni) or α.
 * - `few-queries`: the paired t-test can reach any p in principle, but on n queries a star needs
 *   |t| ≥ t_{1 − θ/2, n − 1} (θ the corrected threshold), a standardised effect d_z = mean / sd of the
 *   per-query differences ≥ t / √n; above d_z = 1 only an effect almost the same on every query is
 *   significant, so a missing star says little. (The MoI demo: 4 queries, Holm over 5 methods:
 *   |t| ≥ 5.84 on 3 df, d_z ≥ 2.92.)
 */
import type { DesignWarning } from '../api/contract/plans';
import { IMPLAUSIBLE_DZ, pairedTBar, smallestAttainableP, smallestRejectableP } from '../core/stats/designLimits';
import { DEFAULT_PERMUTATIONS } from '../core/stats/randomization';

const fmt = (x: number) => (Math.abs(x) >= 0.01 ? x.toFixed(3) : x.toPrecision(2));

export interface PairedDesign {
  /** Queries the tables pair over. */
  queries: number;
  test: 't' | 'randomization';
  correction: string;
  alpha: number;
  /** Conditions (methods) tested against the baseline in one corrected family. */
  comparisons: number;
  baseline: string;
  /** "Tables 1 and 3", "Table 1". */
  tables: string;
  /** "conditions", "methods". */
  unit: string;
  permutations?: number | undefined;
}

export function pairedSignificanceWarnings(d: PairedDesign): DesignWarning[] {
  const n = d.queries;
  const m = Math.max(1, d.comparisons);
  if (n <= 0 || d.comparisons <= 0) return [];
  const threshold = smallestRejectableP(d.alpha, d.correction, m);
  const permutations = d.permutations ?? DEFAULT_PERMUTATIONS;
  const attainable = (k: number) => smallestAttainableP({ test: 'randomization', paired: true, nA: k, permutations });
  const best = n < 2 ? 1 : d.test === 't' ? 0 : attainable(n);
  const corrected = d.correction === 'holm' || d.correction === 'bonferroni';
  const against = corrected && m > 1 ? `α/${m} = ${fmt(threshold)} (${d.correction} correction over the ${m} ${d.unit} compared with '${d.baseline}')` : `α = ${d.alpha}`;
  const fewer = corrected && m > 1 ? `, or fewer ${d.unit} (the ${d.correction} correction divides α by ${m})` : '';
  if (best > threshold) {
    let need: number | null = null;
    if (d.test !== 't') for (let k = 2; k <= 64 && need === null; k++) if (attainable(k) <= threshold) need = k;
    return [
      {
        code: 'too-few-queries',
        field: 'queries',
        message:
          n < 2
            ? `${n} evaluation ${n === 1 ? 'query' : 'queries'}: a paired comparison needs at least 2 queries, so ${d.tables} make${d.tables.startsWith('Tables') ? '' : 's'} no test.`
            : `${n} evaluation queries cannot give a significant result in ${d.tables}: the smallest p-value the paired randomization test can reach on ${n} queries is ${fmt(best)} (2/2^${n}), above ${against}.`,
        fix: n < 2 ? 'use at least 2 evaluation queries (more for any power)' : `use at least ${need ?? 'more'} evaluation queries, or the paired t-test${fewer}`,
      },
    ];
  }
  if (d.test === 't') {
    const bar = pairedTBar(n, threshold);
    if (bar && bar.dz > IMPLAUSIBLE_DZ) {
      let need = n;
      while (need < 10_000 && pairedTBar(need, threshold)!.dz > IMPLAUSIBLE_DZ) need++;
      return [
        {
          code: 'few-queries',
          field: 'queries',
          message: `${n} evaluation queries: a star in ${d.tables} needs the paired t-test's p ≤ ${against}, i.e. |t| ≥ ${bar.tCritical.toFixed(2)} on ${n - 1} degrees of freedom — a mean difference of at least ${bar.dz.toFixed(2)} standard deviations of the per-query differences. Only an effect almost the same on every query reaches that, so a missing star says little ('simulate power' measures this design's power).`,
          fix: `use at least ${need} evaluation queries (then an effect as large as its spread over queries, d_z = 1, can be significant)${fewer}`,
        },
      ];
    }
  }
  return [];
}
