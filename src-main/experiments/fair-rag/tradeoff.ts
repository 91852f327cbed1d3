/**
 * Table 1 of Fair RAG (Sec. 5, RQ1): the fairness–quality trade-off of each retriever, over the
 * points (EE-D̄, y) of its α arms, one point per query × α (the paper's "experiment results"):
 *
 *   slope  of the least-squares line y = a + b·EE-D̄ (ordinary least squares; null when every x is equal);
 *   AUC    the area under the disparity–quality curve, by the trapezoid rule over the points sorted by
 *          EE-D̄, points with equal EE-D̄ first averaged into one; integrated over the observed range
 *          [xMin, xMax] only (no extrapolation to 0 or 1), so compare AUCs over similar ranges.
 *          The paper does not state its interpolation; this is the one stated here.
 *
 * y is EE-R̄ (the paper's Table 1), and also EU̅, EU and EAR (Figs. 4c and 5a).
 */
import type { QueryArmMetrics } from './queryMetrics';

export const TRADEOFF_MEASURES = ['eeRNorm', 'euNorm', 'eu', 'ear'] as const;

export interface TradeoffFit {
  retriever: string;
  measure: string;
  points: number;
  slope: number | null;
  intercept: number | null;
  auc: number | null;
  xMin: number | null;
  xMax: number | null;
}

export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } | null {
  const n = xs.length;
  if (n < 2 || ys.length !== n) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/** Trapezoid area over the points sorted by x, equal x averaged first; null with fewer than 2 distinct x. */
export function trapezoidAuc(xs: readonly number[], ys: readonly number[]): { auc: number; xMin: number; xMax: number } | null {
  const byX = new Map<number, { sum: number; n: number }>();
  xs.forEach((x, i) => {
    const e = byX.get(x) ?? { sum: 0, n: 0 };
    e.sum += ys[i]!;
    e.n++;
    byX.set(x, e);
  });
  const pts = [...byX].map(([x, e]) => [x, e.sum / e.n] as const).sort((a, b) => a[0] - b[0]);
  if (pts.length < 2) return null;
  let auc = 0;
  for (let i = 1; i < pts.length; i++) auc += ((pts[i]![0] - pts[i - 1]![0]) * (pts[i]![1] + pts[i - 1]![1])) / 2;
  return { auc, xMin: pts[0]![0], xMax: pts[pts.length - 1]![0] };
}

export function tradeoffTable(perQuery: readonly QueryArmMetrics[], retrievers: readonly string[]): TradeoffFit[] {
  const out: TradeoffFit[] = [];
  for (const r of retrievers) {
    const arms = perQuery.filter((m) => m.retriever === r && m.policy === 'pl');
    for (const measure of TRADEOFF_MEASURES) {
      const pts = arms.filter((m) => m[measure] !== null);
      const xs = pts.map((m) => m.eeDNorm);
      const ys = pts.map((m) => m[measure] as number);
      const fit = linearFit(xs, ys);
      const area = trapezoidAuc(xs, ys);
      if (pts.length === 0 && measure === 'ear') continue;
      out.push({
        retriever: r,
        measure,
        points: pts.length,
        slope: fit?.slope ?? null,
        intercept: fit?.intercept ?? null,
        auc: area?.auc ?? null,
        xMin: area?.xMin ?? (xs.length ? Math.min(...xs) : null),
        xMax: area?.xMax ?? (xs.length ? Math.max(...xs) : null),
      });
    }
  }
  return out;
}
