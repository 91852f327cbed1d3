/** Fair RAG shapes the run views read, from the API contract. */
import { FAIR_RAG_MEASURE_NAMES, fairRagMeasureKey, fairRagMeasureLabel, type ItemsOf, type MetricsOf } from '$contract';

/** runs.metrics of a fair-rag run. */
export type FairRagMetrics = MetricsOf<'fair-rag'>;
export type QueryMetrics = FairRagMetrics['perQuery'][number];
export type DrillItem = ItemsOf<'fair-rag'>['items'][number];

/** Open the drill-down of one query under one arm (condition). */
export type OpenDrill = (queryId: string, condition: string) => void;

/** The screens' form of each measure, by its metrics-JSON key (both derived from the measure's one name, in the contract). */
export const MEASURE_LABELS: Record<string, string> = Object.fromEntries(FAIR_RAG_MEASURE_NAMES.map((n) => [fairRagMeasureKey(n), fairRagMeasureLabel(n)]));

export const fmt = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits));

export const fmtP = (p: number | null | undefined): string => {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
};

/** † p < 0.05, ‡ p < 0.01 (the markers of every table here). */
export const sigMarker = (p: number | null | undefined): string => (p === null || p === undefined ? '' : p < 0.01 ? '‡' : p < 0.05 ? '†' : '');

export const signed = (v: number | null, digits = 3): string => (v === null ? '–' : `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(digits)}`);
