import { z } from 'zod';
import { lazyMethods, method } from './define';

const TextFile = z.object({
  name: z.string().min(1).max(500),
  /** File content (browser uploads); at most 64 MB. */
  text: z.string().max(64 * 1024 * 1024),
});

export const IrEvaluationRequest = z
  .object({
    runs: z.array(TextFile).min(1).max(30),
    qrels: TextFile,
    /** ir_measures names, e.g. `nDCG@10`, `AP`, `P(rel=2)@5`. */
    measures: z.array(z.string().min(1)).min(1).max(40),
    /** Name of the run the others are compared with (default: the first). */
    baseline: z.string().optional(),
    test: z.enum(['t', 'randomization']).default('t'),
    /** bh: Benjamini–Hochberg (false discovery rate). */
    correction: z.enum(['holm', 'bonferroni', 'bh', 'none']).default('holm'),
    alpha: z.number().gt(0).lt(1).default(0.05),
    permutations: z.number().int().min(100).max(1_000_000).default(10_000),
    seed: z.number().int().min(0).default(42),
  })
  .strict();
export type IrEvaluationRequest = z.infer<typeof IrEvaluationRequest>;

export const SystemResult = z.object({
  name: z.string(),
  /**
   * measure → mean over the evaluated queries (trec_eval -c: qrels queries missing from the run count 0).
   * Count measures (NumRet, NumRel, NumQ, num_rel_ret …) too: the per-query mean, as their CI and
   * delta are (issue 34 item 5); trec_eval's `all` (their sum) is in `trecEvalAll`.
   */
  means: z.record(z.string(), z.number()),
  /** measure → trec_eval's `all` value: the mean, or the sum over queries for count measures. Absent in evaluations made before it existed. */
  trecEvalAll: z.record(z.string(), z.number()).optional(),
  /** measure → 95% interval of the mean (bounded measures: Wilson or t clipped to [0, 1]; see ciMethod). */
  ci: z.record(z.string(), z.tuple([z.number(), z.number()])),
  /** measure → how `ci` was computed ('t', 't, clipped to [0, 1]', 'Wilson score (binary measure)', 'no variance (n = …)' with ci = [mean, mean]); absent in evaluations made before it existed. */
  ciMethod: z.record(z.string(), z.string()).optional(),
  /** measure → whether the clip to the measure's range changed the t-interval. */
  ciClipped: z.record(z.string(), z.boolean()).optional(),
  /** measure → qid → value. */
  perQuery: z.record(z.string(), z.record(z.string(), z.number())),
  missingFromRun: z.array(z.string()),
});

export const BaselineComparison = z.object({
  system: z.string(),
  measure: z.string(),
  /** mean(system) − mean(baseline). */
  delta: z.number(),
  ciLow: z.number(),
  ciHigh: z.number(),
  pValue: z.number(),
  /** p after the correction over all system × measure comparisons. */
  pAdjusted: z.number(),
  significant: z.boolean(),
  wins: z.number().int(),
  ties: z.number().int(),
  losses: z.number().int(),
});

export const IrEvaluation = z.object({
  measures: z.array(z.string()),
  /** Count measures among `measures`: their `means` are per-query means (headers say so), trec_eval's sum is `trecEvalAll`. */
  countMeasures: z.array(z.string()).optional(),
  higherIsBetter: z.record(z.string(), z.boolean()),
  qids: z.array(z.string()),
  baseline: z.string(),
  systems: z.array(SystemResult),
  comparisons: z.array(BaselineComparison),
  settings: z.object({ test: z.string(), correction: z.enum(['holm', 'bonferroni', 'bh', 'none']), alpha: z.number(), permutations: z.number().nullable(), seed: z.number().nullable() }),
  /** sha256 of each input, for the manifest. */
  inputs: z.array(z.object({ name: z.string(), role: z.enum(['run', 'qrels']), sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits') })),
  notes: z.array(z.string()),
});
export type IrEvaluation = z.infer<typeof IrEvaluation>;

export const ExportFile = z.object({ fileName: z.string(), mediaType: z.string(), content: z.string() });

export const IrEvaluationExport = z
  .object({
    evaluation: IrEvaluation,
    format: z.enum(['csv-summary', 'csv-per-query', 'latex']),
    latex: z
      .object({
        caption: z.string().max(2000).optional(),
        label: z.string().max(200).optional(),
        digits: z.number().int().min(1).max(6).default(3),
        environment: z.enum(['table', 'table*']).default('table'),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * Stored retrieval runs of a collection evaluated against the collection's own judgments, so the
 * Results screen needs no file uploads (issue 17 item 4). Test settings as in IrEvaluationRequest.
 */
export const StoredRunsEvaluationRequest = IrEvaluationRequest.omit({ runs: true, qrels: true })
  .extend({
    collectionId: z.number().int().min(1),
    runIds: z.array(z.number().int().min(1)).min(1).max(30),
    /** Which judgments are the qrels: relevance (imported qrels) or utility labels. */
    judgments: z.enum(['relevance', 'utility']).default('relevance'),
  })
  .strict();

export const evaluationContract = lazyMethods(() => ({
  'evaluation.ir': method(IrEvaluationRequest, IrEvaluation, 'Evaluate TREC runs against qrels, with significance against a baseline.'),
  'evaluation.storedRuns': method(StoredRunsEvaluationRequest, IrEvaluation, "Evaluate stored retrieval runs against their collection's judgments, with significance against a baseline."),
  'evaluation.export': method(
    IrEvaluationExport,
    z.object({ file: ExportFile, manifest: ExportFile }),
    'Render an evaluation as CSV or a booktabs LaTeX table, with its reproducibility manifest.',
  ),
}));
