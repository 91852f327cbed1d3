/**
 * Aggregates of the per-query metrics of each arm (mean over queries with a 95% interval,
 * core/stats: t, or for bounded measures — [0, 1], EU [0, u_scale] — t clipped to the range, each naming its method) and per-provider exposure: for each arm, Σ over queries of the retrieved exposure ε_d
 * (Eq. 5) and of the attributed exposure ε^a_d (Eq. 10) of each provider's documents, with shares of
 * the arm's total. Providers come from the candidate snapshot (document attrs, spec.providerAttribute,
 * falling back to `group`); documents without one are grouped as "(none)".
 */
import { boundedMeanInterval, clippedMethod, measureBounds, noVarianceMethod, snapToBounds, T_METHOD, type Bounds } from '../../core/stats/boundedInterval';
import { meanConfidenceInterval } from '../../core/stats/confidenceInterval';
import { FAIR_RAG_MEASURE_NAMES, fairRagMeasureKey } from '../../api/contract/fairRag';
import type { FairRagRunData } from './items';
import type { ArmDetail, QueryArmMetrics } from './queryMetrics';

/** The metrics-JSON keys of every Fair RAG measure, in the order of their names. */
export const AGGREGATED_MEASURES = FAIR_RAG_MEASURE_NAMES.map(fairRagMeasureKey);

export interface MeanWithCi {
  mean: number;
  lower: number | null;
  upper: number | null;
  n: number;
  /** How the interval was computed (core/stats/boundedInterval): 't', 't, clipped to [0, 1]', 'no variance (n = …)' (lower/upper null); null for one value. */
  method: string | null;
  /** The clip to the measure's range changed the t-interval. */
  clipped: boolean;
}

export interface ArmAggregate {
  retriever: string | null;
  condition: string;
  policy: QueryArmMetrics['policy'];
  alpha: number | null;
  queries: number;
  measures: Record<string, MeanWithCi>;
}

/**
 * Mean and 95% interval by the measure's declared scale (issue 23 item 4): every Fair RAG measure is
 * continuous, so a measure bounded to [0, 1] (measureBounds: EE-D̄, EE-R̄, EE-L̄, EU̅, EAR, EAE-D̄)
 * — or to the `bounds` given (EU: [0, the utility scale's maximum], LaMP-3 [0, 4]; issue 34 item 5)
 * — gets the t-interval clipped to its range (never Wilson), others the plain t-interval. Values
 * within 1e-9 of a bound count as the bound (so 1.0000000000000004 is 1, and 0.9999999999999977 and
 * 1 in one column are one value). Equal values: no interval (lower/upper null), method "no variance
 * (n = …)". Values truly outside the range (stored data of another scale) keep the t-interval,
 * clipped to the range, and the method says how many values left it.
 */
export function meanWithCi(input: readonly number[], measure?: string, boundsGiven?: Bounds): MeanWithCi | null {
  if (input.length === 0) return null;
  const bounds = boundsGiven ?? (measure ? measureBounds(measure) : undefined);
  const values = bounds ? snapToBounds(input, bounds) : input;
  if (values.length === 1) return { mean: values[0]!, lower: null, upper: null, n: 1, method: null, clipped: false };
  if (values.every((v) => v === values[0])) return { mean: values[0]!, lower: null, upper: null, n: values.length, method: noVarianceMethod(values.length), clipped: false };
  if (bounds && values.every((v) => v >= bounds.lower && v <= bounds.upper)) {
    const ci = boundedMeanInterval(values, bounds, 0.95, `${measure ?? 'measure'} value`, 'continuous');
    return { mean: ci.mean, lower: ci.lower, upper: ci.upper, n: values.length, method: ci.method, clipped: ci.clipped };
  }
  const ci = meanConfidenceInterval(values, 0.95);
  if (bounds) {
    const outside = values.filter((v) => v < bounds.lower || v > bounds.upper).length;
    const lower = Math.max(bounds.lower, ci.lower);
    const upper = Math.min(bounds.upper, ci.upper);
    return {
      mean: ci.mean,
      lower,
      upper,
      n: values.length,
      method: `${clippedMethod(bounds)}; ${outside} of ${values.length} values outside the measure's range`,
      clipped: lower !== ci.lower || upper !== ci.upper,
    };
  }
  return { mean: ci.mean, lower: ci.lower, upper: ci.upper, n: values.length, method: T_METHOD, clipped: false };
}

/** Arms in first-seen order of `arms`. */
function groupByCondition(arms: readonly ArmDetail[]): Map<string, ArmDetail[]> {
  const out = new Map<string, ArmDetail[]>();
  for (const a of arms) {
    let list = out.get(a.metrics.condition);
    if (!list) out.set(a.metrics.condition, (list = []));
    list.push(a);
  }
  return out;
}

/**
 * `euBounds`: the range of EU, [0, the utility scale's maximum] (1 for accuracy, EM, F1 and ROUGE;
 * `worst` for lower-is-better metrics, LaMP-3: 4), so its interval stays in it (issue 34 item 5).
 */
export function aggregateArms(arms: readonly ArmDetail[], euBounds?: Bounds): ArmAggregate[] {
  return [...groupByCondition(arms)].map(([condition, list]) => {
    const first = list[0]!.metrics;
    const measures: Record<string, MeanWithCi> = {};
    for (const m of AGGREGATED_MEASURES) {
      const values = list.map((a) => a.metrics[m]).filter((v): v is number => v !== null);
      const s = meanWithCi(values, m, m === 'eu' ? euBounds : undefined);
      if (s) measures[m] = s;
    }
    return { retriever: first.retriever, condition, policy: first.policy, alpha: first.alpha, queries: list.length, measures };
  });
}

export interface ProviderRow {
  provider: string;
  documents: number;
  retrieved: number;
  retrievedShare: number;
  attributed: number | null;
  attributedShare: number | null;
}

export function providerExposure(arms: readonly ArmDetail[], data: FairRagRunData): { retriever: string | null; condition: string; providers: ProviderRow[] }[] {
  return [...groupByCondition(arms)].map(([condition, list]) => {
    const rows = new Map<string, { documents: number; retrieved: number; attributed: number }>();
    let attributedKnown = true;
    for (const a of list) {
      const q = data.queries.get(a.metrics.queryId)!;
      if (a.attributedExposure === null) attributedKnown = false;
      q.candidates.forEach((c, i) => {
        const key = c.provider ?? '(none)';
        let row = rows.get(key);
        if (!row) rows.set(key, (row = { documents: 0, retrieved: 0, attributed: 0 }));
        row.documents++;
        row.retrieved += a.exposure[i]!;
        row.attributed += a.attributedExposure?.[i] ?? 0;
      });
    }
    const totalRetrieved = [...rows.values()].reduce((s, r) => s + r.retrieved, 0);
    const totalAttributed = [...rows.values()].reduce((s, r) => s + r.attributed, 0);
    const providers = [...rows]
      .map(([provider, r]) => ({
        provider,
        documents: r.documents,
        retrieved: r.retrieved,
        retrievedShare: totalRetrieved > 0 ? r.retrieved / totalRetrieved : 0,
        attributed: attributedKnown ? r.attributed : null,
        attributedShare: attributedKnown ? (totalAttributed > 0 ? r.attributed / totalAttributed : 0) : null,
      }))
      .sort((a, b) => b.retrieved - a.retrieved || (a.provider < b.provider ? -1 : 1));
    return { retriever: list[0]!.metrics.retriever, condition, providers };
  });
}
