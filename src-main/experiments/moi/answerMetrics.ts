/**
 * Answer quality of a MoI run: the primary metric of each query (the spec's `metric.name`, else the
 * query's own metric) and the spec's `extraMetrics`, all from core/text/textMetrics.ts. Values are
 * kept in the metric's own units; Table 1 marks the lower-is-better columns (mae, rmse). ROUGE is
 * the F value (rouge-score unless `metric.impl` says pltrdy; MoI does not state its ROUGE
 * implementation, notes §2.5). An unparseable numeric prediction scores `metric.worst` (default 4
 * for mae, 16 for rmse, a 1..5 scale).
 */
import type { MoiSpec } from '../../api/contract/moi';
import { DataError } from '../../core/errors';
import { isTextMetricName, textMetric, type TextMetric, type TextMetricName } from '../../core/text/textMetrics';

export const LOWER_IS_BETTER: ReadonlySet<string> = new Set(['mae', 'rmse']);
const DEFAULT_WORST: Partial<Record<TextMetricName, number>> = { mae: 4, rmse: 16 };

export interface AnswerScorer {
  /** The query's primary metric. */
  primary: TextMetricName;
  /** Primary first, then the extra metrics (no duplicates). */
  names: TextMetricName[];
  score(prediction: string, references: readonly string[]): Record<string, number>;
}

/** The scorer of a query, or why the query cannot be scored. */
export function answerScorer(spec: Pick<MoiSpec, 'metric' | 'extraMetrics'>, queryMetric: string | null): AnswerScorer | { error: string } {
  const name = spec.metric.name ?? queryMetric ?? undefined;
  if (name === undefined) return { error: 'the query has no metric and the spec sets no metric.name' };
  if (!isTextMetricName(name)) return { error: `unknown metric '${name}'` };
  const names = [name, ...spec.extraMetrics.filter((m) => m !== name)];
  const metrics = new Map<TextMetricName, TextMetric>();
  try {
    for (const m of new Set(names)) {
      const rouge = m.startsWith('rouge');
      metrics.set(m, textMetric(m, rouge ? { ...(spec.metric.impl ? { impl: spec.metric.impl } : {}), ...(spec.metric.stem !== undefined ? { stem: spec.metric.stem } : {}) } : {}));
    }
  } catch (err) {
    return { error: (err as Error).message };
  }
  return {
    primary: name,
    names: [...new Set(names)],
    score(prediction, references) {
      const out: Record<string, number> = {};
      for (const [m, metric] of metrics) {
        if (metric.kind === 'prf') {
          out[m] = metric.score(prediction, references).f;
          continue;
        }
        try {
          out[m] = metric.score(prediction, references);
        } catch (err) {
          if (!(err instanceof DataError) || err.field !== 'prediction' || !LOWER_IS_BETTER.has(m)) throw err;
          out[m] = spec.metric.worst ?? DEFAULT_WORST[m] ?? 0;
        }
      }
      return out;
    },
  };
}
