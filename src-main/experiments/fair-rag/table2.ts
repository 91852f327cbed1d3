/**
 * Table 2 of Fair RAG (Sec. 5, RQ2; App. D): for each retriever × generator, the difference between
 * the mean utility of the fairer runs whose EE-D̄ falls in an interval and the deterministic
 * baseline's mean utility, with an unpaired Student's t-test (pooled variance, two-sided,
 * p < 0.05 marks a significant difference; core/stats).
 *
 * - A "run" is one query × α arm (its EU); the baseline sample is the deterministic arm's EU of
 *   every query (the paper's "baseline (deterministic) RAG model").
 * - Intervals are half-open [0, .2), [.2, .4), [.4, .6), [.6, .8), [.8, 1.0) as the paper writes them,
 *   so runs with EE-D̄ = 1 (deterministic in effect) fall in none; they are counted in `excludedAtOne`.
 * - Utilities are on the higher-is-better scale (MAE converted), so a positive difference is better.
 * - `scale`: `raw` (default) compares EU on the metric's own scale after that conversion (for
 *   LaMP-3, 4 − MAE), as the paper's Table 2 reports it; `normalized` compares EU̅ = EU / u_max
 *   (Eq. 30, in [0, 1]), which is what the paper's appendix tables appear to show (#16.7).
 */
import { studentTTest } from '../../core/stats/tTest';
import type { QueryArmMetrics } from './queryMetrics';

export const TABLE2_INTERVALS: readonly (readonly [number, number])[] = [
  [0, 0.2],
  [0.2, 0.4],
  [0.4, 0.6],
  [0.6, 0.8],
  [0.8, 1.0],
];

export const TABLE2_ALPHA = 0.05;

export interface Table2Cell {
  lower: number;
  upper: number;
  runs: number;
  meanUtility: number | null;
  difference: number | null;
  pValue: number | null;
  significant: boolean;
}

export interface Table2Row {
  retriever: string;
  generator: string;
  baseline: number | null;
  baselineQueries: number;
  cells: Table2Cell[];
  excludedAtOne: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export type Table2Scale = 'raw' | 'normalized';

export function table2(perQuery: readonly QueryArmMetrics[], retrievers: readonly string[], generator: string, scale: Table2Scale = 'raw'): Table2Row[] {
  const utility = (m: QueryArmMetrics): number | null => (scale === 'raw' ? m.eu : m.euNorm);
  const defined = (xs: (number | null)[]): number[] => xs.filter((x): x is number => x !== null);
  return retrievers.map((r) => {
    const baselineValues = defined(perQuery.filter((m) => m.retriever === r && m.policy === 'deterministic').map(utility));
    const runs = perQuery.filter((m) => m.retriever === r && m.policy === 'pl');
    const baseline = baselineValues.length > 0 ? mean(baselineValues) : null;
    const cells = TABLE2_INTERVALS.map(([lower, upper]) => {
      const values = defined(runs.filter((m) => m.eeDNorm >= lower && m.eeDNorm < upper).map(utility));
      const meanUtility = values.length > 0 ? mean(values) : null;
      let pValue: number | null = null;
      if (baseline !== null && values.length > 0 && baselineValues.length + values.length >= 3) {
        pValue = studentTTest(baselineValues, values).pValue;
      }
      return {
        lower,
        upper,
        runs: values.length,
        meanUtility,
        difference: meanUtility !== null && baseline !== null ? meanUtility - baseline : null,
        pValue,
        significant: pValue !== null && pValue < TABLE2_ALPHA,
      };
    });
    return { retriever: r, generator, baseline, baselineQueries: baselineValues.length, cells, excludedAtOne: runs.filter((m) => m.eeDNorm >= 1).length };
  });
}
