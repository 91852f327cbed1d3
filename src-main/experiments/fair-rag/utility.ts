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
 */
import { DataError } from '../../core/errors';
import { parseDecimal } from '../../core/text/numericError';
import { isTextMetricName, textMetric, type TextMetricName } from '../../core/text/textMetrics';
import type { FairRagSpec } from '../../api/contract/experiments';

export interface UtilityScorer {
  metric: TextMetricName;
  lowerIsBetter: boolean;
  worst: number | null;
  /** { raw, utility } where utility is higher-is-better. */
  score(prediction: string, references: readonly string[]): { raw: number; utility: number };
}

const DEFAULT_WORST: Partial<Record<TextMetricName, number>> = { mae: 4, rmse: 16 };

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
  return {
    metric: name,
    lowerIsBetter,
    worst,
    score(prediction, references) {
      const value = raw(prediction, references);
      return { raw: value, utility: lowerIsBetter ? (worst as number) - value : value };
    },
  };
}
