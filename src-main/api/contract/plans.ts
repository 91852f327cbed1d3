/**
 * What a run would cost before it starts (issue 17 item 3, over issue 13's work queue): the calls to
 * compute per model and operation, what the cache already answers, prompt size, and a time from the
 * engine's measured throughput. Nothing is computed to answer it (a dry run under the defer policy).
 */
import { z } from 'zod';
import { lazyMethods, method } from './define';

export const CostLine = z.object({
  model: z.string(),
  op: z.enum(['generate', 'score', 'embed']),
  toCompute: z.number().int().nonnegative(),
  /** Prompt characters of the calls to compute (÷ 4 ≈ tokens for English text). */
  promptChars: z.number().int().nonnegative(),
  /** Mean engine time per call measured on this model (recent cached calls), or null when never measured. */
  meanCallMs: z.number().nullable(),
  /** Calls the engine's queue keeps in flight. */
  concurrency: z.number().int().positive(),
  etaSeconds: z.number().nullable(),
  /** The plan's stage (1: prompts known before anything runs; later stages follow the answers they depend on). */
  stage: z.number().int().positive().optional(),
  /** What the calls are for, read from their requests (answers, constrained answers, scoring, embeddings). */
  purpose: z.string().optional(),
  /** A later stage's count: an estimate (its prompts depend on outputs not computed yet). */
  estimated: z.boolean().optional(),
});

/** Calls per stage of the plan (issue 26 item 2): stage 1 exact, later stages estimated. */
export const CostStage = z.object({
  stage: z.number().int().positive(),
  toCompute: z.number().int().nonnegative(),
  estimated: z.boolean(),
  /** How the stage was counted, in words. */
  basis: z.string(),
});

/**
 * A true upper bound on the LLM calls a run asks for (computed or from the cache), where the kind
 * can take one (issue 34 item 8e: RichRAG's later stages are priced with placeholders, an expected
 * count only). `total` and the parts (explorer, ranker, … by kind) are call counts.
 */
export const CallBound = z.object({
  total: z.number().int().nonnegative(),
  /** The bound's parts as the kind names them (RichRAG: explorer, ranker, answers, judge); they sum to `total`. */
  parts: z.record(z.string(), z.number().int().nonnegative()),
  /** How the bound is taken, in words. */
  basis: z.string(),
});
export type CallBound = z.infer<typeof CallBound>;

/**
 * A design that cannot answer what the spec asks (issue 23 item 5): all arms identical (k ≥ candidates), too few queries for
 * the test and correction to ever reject, too few samples to separate the arms, a MoI permutation set that does not identify
 * (a, u) or its orientation. Shown in the wizard's review step, by `run --dry-run`, and at the top of a run's results.
 */
export const DesignWarning = z.object({
  /** Stable id of the check, e.g. 'k-covers-candidates', 'too-few-queries', 'samples-too-few', 'moi-unidentified'. */
  code: z.string(),
  /** What is wrong, in words, with the numbers behind it. */
  message: z.string(),
  /** What to change to fix it. */
  fix: z.string(),
  /** The spec field it concerns, when one does (e.g. 'k', 'samples', 'permutations'). */
  field: z.string().optional(),
});
export type DesignWarning = z.infer<typeof DesignWarning>;

export const CostEstimate = z.object({
  runId: z.number().int().nullable(),
  fromCache: z.number().int().nonnegative(),
  toCompute: z.number().int().nonnegative(),
  lines: z.array(CostLine),
  etaSeconds: z.number().nullable(),
  /** False when later stages depend on outputs not computed yet (priced once those exist). */
  complete: z.boolean(),
  note: z.string(),
  /** The spec's design warnings (issue 23 item 5): what cannot show an effect, with the fix; [] when none. */
  warnings: z.array(DesignWarning),
  /** Calls per stage (issue 26 item 2); absent from older servers. */
  stages: z.array(CostStage).optional(),
  /** At most this many calls in all, where the kind takes a bound (RichRAG); absent otherwise. */
  bound: CallBound.optional(),
});
export type CostEstimate = z.infer<typeof CostEstimate>;

export const plansContract = lazyMethods(() => ({
  'experiments.estimate': method(
    z.object({ id: z.number().int().min(1) }).strict(),
    CostEstimate,
    "The plan's cost before running the experiment's current spec: calls to compute per model and operation, calls the cache answers, prompt size, estimated time.",
  ),
  'experiments.estimateSpec': method(
    z.object({ spec: z.unknown() }).strict(),
    CostEstimate,
    "The cost of a spec before it is stored (the wizard's review step): validated like experiments.validateSpec (an invalid spec is refused naming its field), then priced like experiments.estimate.",
  ),
  'experiments.designWarnings': method(
    z.object({ spec: z.unknown() }).strict(),
    z.object({ warnings: z.array(DesignWarning) }),
    "A spec's design warnings on this workspace's data (issue 23 item 5: k ≥ the candidates, too few queries for the test, too few samples to separate the arms, …), each with its cause and fix; shown atop a run's results for the spec it ran.",
  ),
}));
