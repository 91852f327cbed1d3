/**
 * The per-sample utility μ_u(y, ŷ_π) of Fair RAG (Sec. 3.3.2) for one query, from core/text.
 *
 * - The metric is the spec's `utilityMetric.name`, else the query's own `metric` (LaMP importer:
 *   accuracy, mae, rougeL). ROUGE defaults to pltrdy, the implementation Fair-RAG scored with
 *   (fair-rag.md §6); pltrdy has no rougeLsum, which therefore defaults to rouge-score.
 * - ROUGE scores are the F value.
 * - Lower-is-better metrics (mae, rmse) are mapped u → worst − u for EU and u_max (App. C.3);
 *   worst defaults to 4 for mae and 16 for rmse (LaMP-3's 1..5 scale). The raw value is kept too.
 * - A rating prediction that is not a number scores as LaMP does: 1 or 5, whichever is farther
 *   from the gold value (fair-rag.md §6).
 * - Lower-is-better metrics clamp the utility, never the prediction (issue 34 item 4): an answer p
 *   for gold g scores max(0, worst − error) with the raw error (|p − g| for mae), so an answer
 *   outside LaMP-3's label range 1..5 is scored by its real distance: "9" for gold 5 → 0, "0" for
 *   gold 1 → 3, "−2" for gold 1 → 1; it can never score better than the same error inside the
 *   range. (Issue 23 clamped the prediction to 1..5 first, which gave "9" for gold 5 the maximum 4.)
 *   The utility lies in [0, worst], u_max ≥ 0 and EU̅ in [0, 1]; `raw` keeps LaMP's own error and
 *   `outOfRange` says that a numeric answer lay outside the label range (the run counts them in its
 *   warnings, the Table 2 caption and the manifest). Departure from Fair-RAG's code, which does not
 *   clamp (a utility below 0).
 */
import { DataError } from '../../core/errors';
import { parseDecimal } from '../../core/text/numericError';
import { isTextMetricName, textMetric, type TextMetricName } from '../../core/text/textMetrics';
import type { FairRagSpec } from '../../api/contract/fairRag';

export interface UtilityScorer {
  metric: TextMetricName;
  lowerIsBetter: boolean;
  worst: number | null;
  /** { raw, utility } where utility is higher-is-better; `outOfRange` when a numeric answer lies outside LaMP-3's labels. */
  score(prediction: string, references: readonly string[]): { raw: number; utility: number; outOfRange?: true };
}

const DEFAULT_WORST: Partial<Record<TextMetricName, number>> = { mae: 4, rmse: 16 };
/** LaMP-3's rating labels. */
export const LAMP3_LABEL_RANGE = { lower: 1, upper: 5 } as const;

/** The scorer for a query, or a reason why the query cannot be scored. */
export function utilityScorer(spec: Pick<FairRagSpec, 'utilityMetric'>, queryMetric: string | null): UtilityScorer | { error: string } {
  const name = spec.utilityMetric?.name ?? queryMetric ?? undefined;
  if (name === undefined) return { error: 'the query has no metric and the spec sets no utilityMetric.name' };
  if (!isTextMetricName(name)) return { error: `unknown utility metric '${name}'` };
  const isRouge = name.startsWith('rouge');
  const impl = spec.utilityMetric?.impl ?? (isRouge ? (name === 'rougeLsum' ? 'rouge-score' : 'pltrdy') : undefined);
  let metric;
  try {
    metric = textMetric(name, { ...(isRouge ? { impl } : {}), ...(isRouge && spec.utilityMetric?.stem !== undefined ? { stem: spec.utilityMetric.stem } : {}) });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const lowerIsBetter = name === 'mae' || name === 'rmse';
  const worst = lowerIsBetter ? (spec.utilityMetric?.worst ?? DEFAULT_WORST[name] ?? null) : null;
  if (lowerIsBetter && worst === null) return { error: `utilityMetric.worst is needed to convert ${name}` };
  const raw = (prediction: string, references: readonly string[]): number => {
    if (metric.kind === 'prf') return metric.score(prediction, references).f;
    if (!lowerIsBetter) return metric.score(prediction, references);
    try {
      return metric.score(prediction, references);
    } catch (err) {
      if (!(err instanceof DataError) || err.field !== 'prediction') throw err;
      // LaMP-3: an unparseable rating counts as 1 or 5, whichever is farther from the gold.
      const gold = parseDecimal(references[0] ?? '', 'references[0]');
      const fallback = Math.abs(gold - 1) >= Math.abs(gold - 5) ? '1' : '5';
      return metric.score(fallback, references);
    }
  };
  const labelRange = lowerIsBetter && spec.utilityMetric?.worst === undefined ? LAMP3_LABEL_RANGE : null;
  return {
    metric: name,
    lowerIsBetter,
    worst,
    score(prediction, references) {
      const value = raw(prediction, references);
      if (!lowerIsBetter) return { raw: value, utility: value };
      const w = worst as number;
      const utility = lowerIsBetterUtility(value, w);
      return labelRange && outsideLabelRange(prediction) ? { raw: value, utility, outOfRange: true } : { raw: value, utility };
    },
  };
}

/** The utility of a lower-is-better error: max(0, worst − error), the prediction never clamped (issue 34 item 4). */
export function lowerIsBetterUtility(error: number, worst: number): number {
  return Math.min(worst, Math.max(0, worst - error));
}

/** Whether `prediction` is a number outside LaMP-3's label range 1..5 (a non-number is scored by LaMP's fallback). */
export function outsideLabelRange(prediction: string, range: { lower: number; upper: number } = LAMP3_LABEL_RANGE): boolean {
  let p: number;
  try {
    p = parseDecimal(prediction.trim(), 'prediction');
  } catch {
    return false;
  }
  return Number.isFinite(p) && (p < range.lower || p > range.upper);
}

/** Whether the query's scale is LaMP-3's (a lower-is-better metric with its default `worst`), where answers have a label range. */
export function hasLamp3LabelRange(metric: string, lowerIsBetter: boolean, worst: number | null): boolean {
  return lowerIsBetter && worst !== null && DEFAULT_WORST[metric as TextMetricName] === worst;
}
