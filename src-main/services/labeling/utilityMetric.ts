/**
 * The string utility μ_u of Algorithm 1 (Fair RAG App. B) for one query: which metric, and how a
 * generated answer becomes a higher-is-better number.
 *
 * Which metric: the request's override, else Fair-RAG's label metric of a LaMP task named by the
 * query's task (`LaMP-3` labels with exact-match accuracy although it is evaluated with MAE;
 * fair-rag.md §6, §9 item 6), else the query's own metric.
 *
 * Utility: accuracy, f1, em as they are; ROUGE the F score of the chosen implementation (Fair-RAG:
 * pltrdy ROUGE-L); mae and rmse are errors, so they are turned around as Fair-RAG does for LaMP-3
 * (fair-rag.md §4): u = 4 − |prediction − gold| on the 1..5 scale, an unparsable prediction counting
 * as the farther end of the scale (LaMP's rule). For one item RMSE = √(e²) = |e|, so rmse and mae
 * give the same utility. The constant 4 cancels in δ = u_j − u_0, so labels do not depend on it.
 */
import { errorToUtility, lampRatingAbsoluteError, LAMP_RATING_MAX_ERROR } from '../../core/text/lampRating';
import { isTextMetricName, textMetric, type RougeImpl } from '../../core/text/textMetrics';
import { lampTaskByName } from '../../io/importers/lampTasks';

export interface UtilityMetric {
  name: string;
  /** For people: 'rougeL (pltrdy)', 'mae as 4 − error'. */
  label: string;
  /** Recorded in each judgment's provenance. */
  provenance: Record<string, unknown>;
  /** μ_u(answers, prediction), higher is better. */
  utility(prediction: string, answers: readonly string[]): number;
}

/** The metric name for a query, or undefined when neither the request nor the query names one. */
export function metricNameFor(query: { task: string | null; metric: string | null }, override: string | undefined): string | undefined {
  if (override !== undefined) return override;
  const lamp = query.task !== null ? lampTaskByName(query.task) : undefined;
  return lamp?.labelMetric ?? query.metric ?? undefined;
}

/** Build the utility for a metric name; throws RangeError naming what is wrong. */
export function utilityMetric(name: string, rougeImpl: RougeImpl): UtilityMetric {
  if (!isTextMetricName(name)) throw new RangeError(`unknown metric '${name}' (use accuracy, f1, em, mae, rmse, rouge1, rouge2, rougeL or rougeLsum)`);
  if (name === 'mae' || name === 'rmse') {
    return {
      name,
      label: `${name} as ${LAMP_RATING_MAX_ERROR} − error`,
      provenance: { metric: name, utilityScale: `${LAMP_RATING_MAX_ERROR} - |error|` },
      utility(prediction, answers) {
        if (answers.length !== 1) throw new RangeError(`${name} needs exactly one reference answer, got ${answers.length}`);
        return errorToUtility(lampRatingAbsoluteError(prediction, answers[0]!));
      },
    };
  }
  const isRouge = name.startsWith('rouge');
  const metric = textMetric(name, isRouge ? { impl: rougeImpl } : {});
  return {
    name,
    label: isRouge ? `${name} (${rougeImpl})` : name,
    provenance: isRouge ? { metric: name, metricImpl: rougeImpl } : { metric: name },
    utility: metric.kind === 'prf' ? (p, refs) => metric.score(p, refs).f : (p, refs) => metric.score(p, refs),
  };
}
