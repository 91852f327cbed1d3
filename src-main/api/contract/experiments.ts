/**
 * Experiments: versioned specs of any kind (`experiments.*`; runs and their results are `runs.*`,
 * runs.ts). Each kind's spec, metrics, rows and formats are in its own contract file (fairRag.ts,
 * moi.ts, richrag.ts), which the contract's index re-exports.
 */
import { z } from 'zod';
import { lazyMethods, method } from './define';
import { Job } from './jobs';
import { Id } from './kindParts';

export { GeneratorSelector } from './selectors';

// ---- experiments and runs ----------------------------------------------------------------------

/** Any kind's spec as sent: validated by the kind's schema in the service. */
export const SpecInput = z.looseObject({ kind: z.string().min(1), name: z.string() });

export const SpecIssue = z.object({ path: z.string(), message: z.string() });

export const ExperimentInfo = z.object({
  id: z.number().int(),
  kind: z.string(),
  name: z.string(),
  version: z.number().int(),
  spec: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
  runs: z.number().int(),
  lastRunId: z.number().int().nullable(),
});


/**
 * The token budget a previewed prompt was fitted to, as the run fits it (RichRAG): the model's tokens
 * counted ('estimated tokens': no tokenizer answered, an upper bound; 'none': no budget applied), the
 * budget and its origin, and the documents whose texts were cut (to `cap` tokens each).
 */
export const PromptPreviewBudget = z.object({
  /** The spec field of the budget ('generation.promptBudget', 'ranker.promptBudget'). */
  field: z.string(),
  unit: z.enum(['tokens', 'estimated tokens', 'none']),
  tokens: z.number().int().nullable(),
  total: z.number().int().nullable(),
  origin: z.string(),
  documentsCut: z.number().int(),
  cap: z.number().int().optional(),
  estimate: z.object({ method: z.string(), margin: z.string(), reason: z.string() }).optional(),
});
export type PromptPreviewBudget = z.infer<typeof PromptPreviewBudget>;

export const experimentsContract = lazyMethods(() => ({
  'experiments.kinds': method(z.object({}).strict(), z.array(z.object({ kind: z.string(), title: z.string() })), 'The experiment kinds this version can run.'),
  'experiments.list': method(z.object({}).strict(), z.array(ExperimentInfo), 'Experiments, most recently edited first.'),
  'experiments.get': method(
    z.object({ id: Id }).strict(),
    ExperimentInfo.extend({ versions: z.array(z.object({ version: z.number().int(), spec: z.record(z.string(), z.unknown()), createdAt: z.string() })) }),
    'One experiment with its spec history.',
  ),
  'experiments.create': method(z.object({ spec: SpecInput }).strict(), ExperimentInfo, 'Create an experiment from a spec (validated; defaults filled in).'),
  'experiments.update': method(
    z.object({ id: Id, spec: SpecInput }).strict(),
    ExperimentInfo.extend({ changed: z.boolean() }),
    'Replace the spec; a different spec becomes a new version (older versions are kept).',
  ),
  'experiments.delete': method(z.object({ id: Id }).strict(), z.object({ deleted: z.boolean() }), 'Delete an experiment with its runs and results.'),
  'experiments.validateSpec': method(
    z.object({ spec: z.unknown() }).strict(),
    z.object({ ok: z.boolean(), issues: z.array(SpecIssue), spec: z.record(z.string(), z.unknown()).nullable() }),
    'Validate a spec: every issue with its field path, or the spec with defaults filled in.',
  ),
  'experiments.previewPrompt': method(
    z.object({ spec: SpecInput, queryId: z.string().min(1), retriever: z.string().optional() }).strict(),
    z.object({ queryId: z.string(), retriever: z.string(), ranking: z.array(z.string()), prompt: z.string(), budget: PromptPreviewBudget.optional() }),
    "The prompt a spec gives for a real query (the retriever's deterministic top k), within the token budget the run applies (`budget`, where the kind reports it).",
  ),
  'experiments.run': method(z.object({ id: Id }).strict(), Job, 'Start a run of the current spec (a resumable job).'),
}));
