/**
 * Figure 3 of Fair RAG (Sec. 4): the distribution of EE-D̄ per α (one value per query) for each
 * retriever, with paired (per-query) t-tests of EE-D̄ between every two α (the paper reports
 * p < 0.01 for its α's) and Holm-adjusted p-values over the pairs of one retriever. Only queries
 * with every α arm computed are used, so the samples stay paired. Quartiles interpolate linearly
 * between order statistics (numpy's default).
 */
import { holm } from '../../core/stats/multipleComparisons';
import { pairedTTest } from '../../core/stats/tTest';
import type { QueryArmMetrics } from './queryMetrics';

export interface Fig3Alpha {
  alpha: number;
  values: number[];
  mean: number;
  median: number;
  q1: number;
  q3: number;
  min: number;
  max: number;
}

export interface Fig3Test {
  alphaA: number;
  alphaB: number;
  n: number;
  meanDifference: number;
  /** null when infinite (zero variance of the differences with a non-zero mean). */
  t: number | null;
  df: number;
  pValue: number;
  pHolm: number;
  degenerate: string | null;
}

export interface Fig3Retriever {
  retriever: string;
  queryIds: string[];
  alphas: Fig3Alpha[];
  tests: Fig3Test[];
}

export function quantile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export function fig3(perQuery: readonly QueryArmMetrics[], retrievers: readonly string[], alphas: readonly number[]): Fig3Retriever[] {
  return retrievers.map((r) => {
    const byQuery = new Map<string, Map<number, number>>();
    for (const m of perQuery) {
      if (m.retriever !== r || m.policy !== 'pl' || m.alpha === null) continue;
      let row = byQuery.get(m.queryId);
      if (!row) byQuery.set(m.queryId, (row = new Map()));
      row.set(m.alpha, m.eeDNorm);
    }
    const queryIds = [...byQuery].filter(([, row]) => alphas.every((a) => row.has(a))).map(([q]) => q);
    const series = alphas.map((alpha) => {
      const values = queryIds.map((q) => byQuery.get(q)!.get(alpha)!);
      const sorted = [...values].sort((a, b) => a - b);
      const empty = sorted.length === 0;
      return {
        alpha,
        values,
        mean: empty ? NaN : values.reduce((a, b) => a + b, 0) / values.length,
        median: empty ? NaN : quantile(sorted, 0.5),
        q1: empty ? NaN : quantile(sorted, 0.25),
        q3: empty ? NaN : quantile(sorted, 0.75),
        min: empty ? NaN : sorted[0]!,
        max: empty ? NaN : sorted[sorted.length - 1]!,
      };
    });
    const raw: Omit<Fig3Test, 'pHolm'>[] = [];
    if (queryIds.length >= 2) {
      for (let i = 0; i < series.length; i++) {
        for (let j = i + 1; j < series.length; j++) {
          const t = pairedTTest(series[i]!.values, series[j]!.values);
          raw.push({ alphaA: series[i]!.alpha, alphaB: series[j]!.alpha, n: queryIds.length, meanDifference: t.estimate, t: Number.isFinite(t.statistic) ? t.statistic : null, df: t.df, pValue: t.pValue, degenerate: t.degenerate ?? null });
        }
      }
    }
    const adjusted = holm(raw.map((t) => t.pValue));
    return { retriever: r, queryIds, alphas: queryIds.length > 0 ? series : [], tests: raw.map((t, i) => ({ ...t, pHolm: adjusted[i]! })) };
  });
}
