/**
 * Disparity–quality curves of Figs. 4 and 5 (Kim & Diaz: "plotted by interpolating the runs for
 * each disparity interval and averaging"): the per-query points (one per query × α arm) are grouped
 * into equal-width intervals of x on [0, 1] (x = 1 falls in the last one), and each interval with
 * points gives one curve vertex at (mean x, mean y) with the 95% t-interval of y as the band.
 * Lines join the vertices in x order; intervals without points are skipped, not extrapolated.
 * Bands of normalised measures are drawn clipped to [0, 1] (the CSV keeps the unclipped bounds).
 */
import { meanCi } from '../stats';

export interface CurvePoint {
  x: number;
  y: number;
  queryId: string;
  condition: string;
  retriever: string | null;
  alpha: number | null;
}

export interface CurveVertex {
  lo: number;
  hi: number;
  x: number;
  y: number;
  lower: number | null;
  upper: number | null;
  n: number;
}

export function binnedCurve(points: readonly CurvePoint[], bins: number): CurveVertex[] {
  const groups: CurvePoint[][] = Array.from({ length: bins }, () => []);
  for (const p of points) {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) continue;
    const i = Math.min(bins - 1, Math.max(0, Math.floor(p.x * bins)));
    groups[i]!.push(p);
  }
  const out: CurveVertex[] = [];
  groups.forEach((g, i) => {
    const y = meanCi(g.map((p) => p.y));
    if (!y) return;
    out.push({ lo: i / bins, hi: (i + 1) / bins, x: g.reduce((a, p) => a + p.x, 0) / g.length, y: y.mean, lower: y.lower, upper: y.upper, n: y.n });
  });
  return out;
}

/** Plotly traces for one curve: the 95% band (filled polygon), the mean line, the clickable points. */
export function curveTraces(
  name: string,
  color: string,
  points: readonly CurvePoint[],
  bins: number,
  opts: { dash?: string; showPoints?: boolean; clip?: [number, number]; bandAlpha?: string } = {},
): Record<string, unknown>[] {
  const v = binnedCurve(points, bins);
  // A t-interval of few points can leave the measure's range: draw the band clipped to it.
  const clip = (y: number | null) => (y === null || !opts.clip ? y : Math.min(opts.clip[1], Math.max(opts.clip[0], y)));
  const banded = v.filter((p) => p.lower !== null && p.upper !== null).map((p) => ({ ...p, lower: clip(p.lower), upper: clip(p.upper) }));
  const traces: Record<string, unknown>[] = [];
  if (banded.length >= 1) {
    traces.push({
      type: 'scatter',
      mode: 'lines',
      name: `${name} 95% CI`,
      x: [...banded.map((p) => p.x), ...banded.map((p) => p.x).reverse()],
      y: [...banded.map((p) => p.upper), ...banded.map((p) => p.lower).reverse()],
      fill: 'toself',
      fillcolor: `${color}${opts.bandAlpha ?? '33'}`,
      line: { width: 0, color },
      hoverinfo: 'skip',
      showlegend: false,
      legendgroup: name,
    });
  }
  traces.push({
    type: 'scatter',
    mode: 'lines+markers',
    name,
    x: v.map((p) => p.x),
    y: v.map((p) => p.y),
    line: { color, width: 2, ...(opts.dash ? { dash: opts.dash } : {}) },
    marker: { color, size: 6 },
    legendgroup: name,
    customdata: v.map((p) => [null, null, p.n, p.lower, p.upper]),
    hovertemplate: `${name}<br>x̄ %{x:.3f}, ȳ %{y:.3f} (n = %{customdata[2]})<extra></extra>`,
  });
  if (opts.showPoints !== false) {
    traces.push({
      type: 'scatter',
      mode: 'markers',
      name: `${name} (per query)`,
      x: points.map((p) => p.x),
      y: points.map((p) => p.y),
      marker: { color, size: 7, opacity: 0.45, symbol: 'circle-open' },
      legendgroup: name,
      showlegend: false,
      customdata: points.map((p) => [p.queryId, p.condition]),
      hovertemplate: `%{customdata[0]} · %{customdata[1]}<br>(%{x:.3f}, %{y:.3f})<br>click to open<extra></extra>`,
    });
  }
  return traces;
}

/** CSV rows of the curve vertices behind a figure (one block per curve). */
export function curveCsvRows(name: string, points: readonly CurvePoint[], bins: number): (string | number | null)[][] {
  return binnedCurve(points, bins).map((p) => [name, p.lo, p.hi, p.n, p.x, p.y, p.lower, p.upper]);
}
