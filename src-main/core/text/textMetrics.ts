/**
 * One entry point for the text measures (GitHub issue 5, "Text"): a name plus options gives a
 * per-item scorer and the matching aggregate, so the CLI, the app and the experiments cannot disagree
 * on which ROUGE or which mean they report.
 *
 *   rouge1 rouge2 rougeL rougeLsum  precision/recall/F; impl "rouge-score" (default; LaMP / HF evaluate,
 *                                   optional Porter stemming) or "pltrdy" (RichRAG, Fair-RAG; never
 *                                   stems; its rouge-l is already summary-level over '.'-sentences, so
 *                                   it has no separate rougeLsum). Aggregate: mean of per-item F.
 *   f1 em                           SQuAD v1.1 token F1 / exact match, max over references. Mean.
 *   accuracy                        stripped exact string match with any reference. Mean.
 *   mae                             per item |p − g|; aggregate the mean.
 *   rmse                            per item (p − g)²; aggregate sqrt(mean) — the RMSE of the collection.
 * Multi-reference ROUGE keeps the triple of the reference with the highest F (first on ties).
 */
import { absoluteError, meanOf, rootMeanOf, squaredError } from './numericError';
import { labelAccuracy } from './labelAccuracy';
import { pltrdyRougeMulti, type PltrdyRougeType } from './pltrdyRouge';
import type { PrfScore } from './prfScore';
import { rougeScoreMulti, type RougeScoreType } from './rougeScore';
import { squadExactMatchMax, squadF1Max } from './squadAnswer';

export const TEXT_METRIC_NAMES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'f1', 'em', 'accuracy', 'mae', 'rmse'] as const;
export type TextMetricName = (typeof TEXT_METRIC_NAMES)[number];

export const ROUGE_IMPLS = ['rouge-score', 'pltrdy'] as const;
export type RougeImpl = (typeof ROUGE_IMPLS)[number];

export interface TextMetricOptions {
  /** ROUGE only; default 'rouge-score'. */
  impl?: RougeImpl;
  /** ROUGE with impl 'rouge-score' only; default false. */
  stem?: boolean;
}

/** A ROUGE measure: per item a P/R/F triple; the aggregate is the mean of F. */
export interface PrfTextMetric {
  kind: 'prf';
  name: TextMetricName;
  score(prediction: string, references: readonly string[]): PrfScore;
  /** Mean of F over the items; null when there are none. */
  aggregate(scores: readonly PrfScore[]): number | null;
}

/** Any other measure: per item one number and an aggregate over those numbers. */
export interface ValueTextMetric {
  kind: 'value';
  name: TextMetricName;
  score(prediction: string, references: readonly string[]): number;
  /** Mean (sqrt of the mean for rmse); null when there are no items. */
  aggregate(values: readonly number[]): number | null;
}

export type TextMetric = PrfTextMetric | ValueTextMetric;

export function isTextMetricName(name: string): name is TextMetricName {
  return (TEXT_METRIC_NAMES as readonly string[]).includes(name);
}

export function isRougeImpl(name: string): name is RougeImpl {
  return (ROUGE_IMPLS as readonly string[]).includes(name);
}

const PLTRDY_TYPES: Partial<Record<TextMetricName, PltrdyRougeType>> = {
  rouge1: 'rouge-1',
  rouge2: 'rouge-2',
  rougeL: 'rouge-l',
};

/** The scorer for `name` with `options`; throws RangeError for a combination that does not exist. */
export function textMetric(name: TextMetricName, options: TextMetricOptions = {}): TextMetric {
  const isRouge = name === 'rouge1' || name === 'rouge2' || name === 'rougeL' || name === 'rougeLsum';
  if (!isRouge) {
    if (options.impl !== undefined) throw new RangeError(`${name} is not a ROUGE measure; an implementation choice applies only to ROUGE`);
    if (options.stem) throw new RangeError(`${name} does not stem; stemming applies only to rouge-score ROUGE`);
    return valueMetric(name);
  }
  const impl = options.impl ?? 'rouge-score';
  const meanF = (scores: readonly PrfScore[]) => meanOf(scores.map((s) => s.f));
  if (impl === 'pltrdy') {
    if (options.stem) throw new RangeError('pltrdy ROUGE never stems; use impl rouge-score for stemming');
    const type = PLTRDY_TYPES[name];
    if (type === undefined) {
      throw new RangeError("pltrdy has no rougeLsum: its rouge-l (rougeL) is already summary-level over '.'-separated sentences");
    }
    return { kind: 'prf', name, score: (p, refs) => pltrdyRougeMulti(type, p, refs), aggregate: meanF };
  }
  const stem = options.stem ?? false;
  return { kind: 'prf', name, score: (p, refs) => rougeScoreMulti(name as RougeScoreType, p, refs, { stem }), aggregate: meanF };
}

function valueMetric(name: Exclude<TextMetricName, RougeScoreType>): ValueTextMetric {
  const mean = (values: readonly number[]) => meanOf(values);
  switch (name) {
    case 'f1':
      return { kind: 'value', name, score: squadF1Max, aggregate: mean };
    case 'em':
      return { kind: 'value', name, score: squadExactMatchMax, aggregate: mean };
    case 'accuracy':
      return { kind: 'value', name, score: labelAccuracy, aggregate: mean };
    case 'mae':
      return { kind: 'value', name, score: absoluteError, aggregate: mean };
    case 'rmse':
      return { kind: 'value', name, score: squaredError, aggregate: rootMeanOf };
  }
}
