/**
 * Schema pieces the experiment kinds share: ids and names, the decoding and answer-metric blocks
 * of a spec, BM25 parameters, the significance settings, a paired-test table cell, and the shape of
 * a page of drill-down items. Each kind's own file (experiments.ts for Fair RAG, moi.ts, richrag.ts)
 * builds its spec and results from these; runs.ts joins the kinds' results into the generic run API.
 */
import { z } from 'zod';

export const Id = z.number().int().min(1);
export const Name = z.string().trim().min(1).max(200);
export const Num = z.number();
export const NumOrNull = z.number().nullable();

/** Names of core/text/textMetrics.ts (kept equal by a test; the contract may import only zod). */
export const UtilityMetricName = z.enum(['rouge1', 'rouge2', 'rougeL', 'rougeLsum', 'f1', 'em', 'accuracy', 'mae', 'rmse']);

/** Decoding of the answer generations (a kind's own extra fields go beside it). */
export const Decoding = z
  .object({
    maxTokens: z.number().int().min(1).max(4096).default(32),
    /** 0 = greedy (the papers' deterministic decoding); > 0 samples with seeds.generation. */
    temperature: z.number().min(0).max(5).default(0),
    /** Send the (generation) prompt as one chat message with the model's chat template instead of plain text. */
    chat: z.boolean().default(false),
    stop: z.array(z.string().min(1)).max(8).optional(),
  })
  .strict();

/** Which text metric scores an answer; every field defaults to the query's own metric (ROUGE via pltrdy). */
export const AnswerMetric = z
  .object({
    name: UtilityMetricName.optional(),
    impl: z.enum(['rouge-score', 'pltrdy']).optional(),
    stem: z.boolean().optional(),
    /** Lower-is-better metrics are mapped u → worst − u (default: 4 for mae, 16 for rmse, LaMP-3's 1..5 scale). */
    worst: z.number().optional(),
  })
  .strict();

/** In-memory Okapi BM25; the tokenizer's default differs per kind (the paper each reproduces). */
export function bm25Params(tokenizer: 'whitespace' | 'words') {
  return z
    .object({
      k1: z.number().min(0).max(100).default(1.5),
      b: z.number().min(0).max(1).default(0.75),
      idf: z.enum(['robertson', 'lucene', 'rank_bm25']).default('rank_bm25'),
      epsilon: z.number().min(-100).max(100).default(0.25),
      /** whitespace: Python str.split(), case kept (Fair-RAG's rank_bm25 input); words: lower-cased letter/digit runs. */
      tokenizer: z.enum(['whitespace', 'words']).default(tokenizer),
    })
    .strict();
}

export const Correction = z.enum(['holm', 'bonferroni', 'none']);

/** The paired test of a kind's tables against its baseline (spread into the kind's own block). */
export const significanceFields = {
  test: z.enum(['t', 'randomization']).default('t'),
  correction: Correction.default('holm'),
  alpha: z.number().gt(0).lt(1).default(0.05),
};

/**
 * A measured null rejection rate of a table's test (planted null simulated from the spec), shown
 * beside the table as a calibration check: rate with its 95% interval over `runs` simulated runs.
 */
export const TestCalibration = z.object({
  nullRejectionRate: Num,
  lo: Num,
  hi: Num,
  runs: z.number().int(),
  alpha: Num,
  /** The test (and correction) whose rate this is, in words. */
  test: z.string().optional(),
  seed: z.union([z.number(), z.string()]).optional(),
  /** Where it came from (e.g. `simulate power`, a date). */
  source: z.string().optional(),
});
export type TestCalibration = z.infer<typeof TestCalibration>;

/** A method's or condition's mean on one measure with its paired test against the baseline (the kind adds its difference). */
export const pairedCellFields = {
  mean: NumOrNull,
  /** Queries with a value. */
  n: z.number().int(),
  pValue: NumOrNull,
  /** After the correction, over the methods or conditions compared on this measure. */
  pAdjusted: NumOrNull,
  significant: z.boolean(),
};

/** One page of a run's drill-down items: `total` rows match the filter, `items` is the page. */
export function itemsPage<K extends string, R extends z.ZodType>(kind: K, row: R) {
  return z.object({ kind: z.literal(kind), total: z.number().int(), items: z.array(row) });
}
