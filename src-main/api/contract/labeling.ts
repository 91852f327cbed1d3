/**
 * Utility labels (Fair RAG, Algorithm 1): label each candidate of a query by whether adding it to
 * the prompt raises the generator's score over the no-document baseline (δ = u_j − u_0 > 0);
 * summaries per query, and exports as TREC qrels and Fair-RAG's TSV files.
 */
import { z } from 'zod';
import { lazyMethods, method } from './define';
import { Job } from './jobs';
import { GeneratorRef } from './models';

const Id = z.number().int().positive();

/** The text metrics of `fairground eval text` (core/text/textMetrics.ts). */
export const LabelMetric = z.enum(['accuracy', 'f1', 'em', 'mae', 'rmse', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum']);

/** Prompt templates (core/prompts): either may be omitted to use the task's default. */
export const LabelTemplates = z
  .object({
    /** The query with one document: must show the documents ({{documents}} or a {{#documents}} block). */
    augmented: z.string().min(1).max(20_000).optional(),
    /** The query without documents (Algorithm 1's baseline u_0). */
    baseline: z.string().min(1).max(20_000).optional(),
  })
  .strict();

/**
 * Length budget. 'tokens' counts with the generator's own tokenizer every token the engine
 * evaluates for a prompt (beginning-of-sequence token or chat template; a remote server without a
 * tokenizer: a marked upper-bound estimate); words approximate model tokens (about 1.3 tokens per
 * English word), chars are exact code points; none sends prompts whole. Defaults are Fair-RAG's 256/512
 * (words, chars); in tokens the total defaults to what the context leaves (context size − maxTokens)
 * and a larger total is lowered to it.
 */
export const LabelTruncation = z
  .object({
    unit: z.enum(['tokens', 'words', 'chars', 'none']).default('words'),
    /** The query is cut to this many units in augmented prompts. */
    queryMax: z.number().int().min(1).max(1_000_000).default(256),
    /** Every prompt is kept within this many units; each document gets ⌊(total − |query|)/#documents⌋. */
    total: z.number().int().min(1).max(1_000_000).optional(),
    /**
     * How a prompt over the total is cut: 'documents' (default) shortens the document (the question
     * and the template's text are kept; when they alone do not fit, the job fails naming the sizes);
     * 'paper-end' cuts the end of the whole prompt, the question too when it comes last (Fair-RAG's code).
     */
    truncate: z.enum(['documents', 'paper-end']).default('documents'),
  })
  .strict();

/** How a labeling job's prompts were budgeted and what the budget cut (over the prompts it rendered). */
export const LabelPromptBudget = z.object({
  /** 'estimated tokens' where the server had no tokenizer (an upper-bound estimate). */
  unit: z.enum(['tokens', 'estimated tokens', 'words', 'chars']),
  total: z.number().int().nullable(),
  origin: z.string(),
  queryMax: z.number().int(),
  truncate: z.enum(['documents', 'paper-end']),
  counts: z.string(),
  estimate: z.object({ method: z.string(), margin: z.string(), reason: z.string() }).optional(),
  prompts: z.number().int(),
  promptsCut: z.number().int(),
  documentsCut: z.number().int(),
  /** Augmented prompts whose document was left out entirely (their labels compare the question with itself). */
  documentsDropped: z.number().int(),
  queriesCut: z.number().int(),
});
export type LabelPromptBudget = z.infer<typeof LabelPromptBudget>;

export const UtilityLabelRequest = z
  .object({
    collectionId: Id,
    generator: GeneratorRef,
    /** Label only these queries (default: every query with candidates). */
    queryIds: z.array(z.string().min(1)).min(1).max(100_000).optional(),
    /** Label only the queries of this task (null: queries without a task). */
    task: z.string().nullable().optional(),
    template: LabelTemplates.optional(),
    /** Metric for every query (default: Fair-RAG's label metric of a LaMP task, else the query's metric). */
    metric: LabelMetric.optional(),
    /** ROUGE implementation; Fair-RAG labels with pltrdy ROUGE-L. */
    rougeImpl: z.enum(['pltrdy', 'rouge-score']).default('pltrdy'),
    maxTokens: z.number().int().min(1).max(4096).default(64),
    /** A query is kept in the test collection when it has at least this many useful documents (Fair-RAG: 2). */
    minUseful: z.number().int().min(0).max(100_000).default(2),
    /** Send prompts as one chat user message (the model's chat template) instead of plain text. */
    chat: z.boolean().default(false),
    stop: z.array(z.string().min(1).max(100)).max(8).optional(),
    truncation: LabelTruncation.prefault({}),
    /** For queries without candidates: the top-n documents of this stored retrieval run. */
    candidateRun: z.object({ runId: Id, topN: z.number().int().min(1).max(1000).default(20) }).strict().optional(),
  })
  .strict();
export type UtilityLabelRequest = z.infer<typeof UtilityLabelRequest>;

/** The result of a `labels.utility` job. */
export const UtilityLabelReport = z.object({
  collectionId: z.number().int(),
  queries: z.number().int(),
  /** Queries that could not be labelled, with the reason (no candidates, no reference answer). */
  skipped: z.array(z.object({ queryId: z.string(), reason: z.string() })),
  calls: z.object({ total: z.number().int(), cached: z.number().int(), generated: z.number().int() }),
  judgments: z.object({
    written: z.number().int(),
    unchanged: z.number().int(),
    /** Manual overrides left as they are (their `previous` now holds this run's label). */
    keptManual: z.number().int(),
    /** Imported labels replaced (kept in the judgment's provenance.previous). */
    replacedImport: z.number().int(),
  }),
  minUseful: z.number().int(),
  /** Labelled queries with at least / fewer than minUseful useful documents. */
  kept: z.number().int(),
  dropped: z.number().int(),
  contentHash: z.string(),
  /** The prompts' length budget: unit, total and where it comes from, the rule, what was cut (absent with unit 'none'). */
  promptBudget: LabelPromptBudget.optional(),
});
export type UtilityLabelReport = z.infer<typeof UtilityLabelReport>;

export const UtilityQuerySummary = z.object({
  queryId: z.string(),
  task: z.string().nullable(),
  /** Utility judgments of the query. */
  n: z.number().int(),
  /** Judgments with a positive label (useful documents). */
  useful: z.number().int(),
  /** u_0, the no-document utility, when the labels carry it. */
  baseline: z.number().nullable(),
  /** Metric named in the labels' provenance. */
  metric: z.string().nullable(),
  /** Generator named in the labels' provenance. */
  generator: z.string().nullable(),
  sources: z.object({ import: z.number().int(), llm: z.number().int(), manual: z.number().int() }),
  /** useful ≥ minUseful: the query belongs to the filtered test collection. */
  kept: z.boolean(),
});
export type UtilityQuerySummary = z.infer<typeof UtilityQuerySummary>;

export const UtilitySummary = z.object({
  minUseful: z.number().int(),
  queries: z.array(UtilityQuerySummary),
  totals: z.object({ queries: z.number().int(), labelled: z.number().int(), kept: z.number().int(), dropped: z.number().int(), judgments: z.number().int(), useful: z.number().int() }),
});
export type UtilitySummary = z.infer<typeof UtilitySummary>;

export const LabelPreview = z.object({
  queryId: z.string(),
  task: z.string().nullable(),
  /** The metric this query would be labelled with, e.g. 'rougeL (pltrdy)'. */
  metric: z.string(),
  templateName: z.string(),
  templates: z.object({ augmented: z.string(), baseline: z.string() }),
  /** The baseline prompt and the prompt with the first candidate, as the model would get them. */
  baselinePrompt: z.string(),
  augmentedPrompt: z.string().nullable(),
  augmentedDocId: z.string().nullable(),
  /** Over the whole request: queries to label, skipped, and LLM calls (1 + candidates per query). */
  plan: z.object({ queries: z.number().int(), skipped: z.number().int(), calls: z.number().int() }),
});
export type LabelPreview = z.infer<typeof LabelPreview>;

export const LabelExportFormat = z.enum(['qrels', 'fairrag-mapping', 'fairrag-delta']);
export type LabelExportFormat = z.infer<typeof LabelExportFormat>;

export const labelingContract = lazyMethods(() => ({
  'labels.utility.start': method(UtilityLabelRequest, Job, 'Label every candidate of the chosen queries by its utility gain with a generator (Fair RAG Algorithm 1); a resumable job whose result is a UtilityLabelReport.'),
  'labels.utility.preview': method(
    UtilityLabelRequest.extend({ previewQueryId: z.string().min(1).optional() }),
    LabelPreview,
    'The prompts a labeling request would send for one query (default: the first), its metric, and the size of the whole job.',
  ),
  'labels.utility.summary': method(
    z.object({ collectionId: Id, minUseful: z.number().int().min(0).max(100_000).default(2) }).strict(),
    UtilitySummary,
    'Per query: utility judgments, useful documents, baseline utility, and whether the query is kept (≥ minUseful useful).',
  ),
  'labels.export': method(
    z.object({ collectionId: Id, format: LabelExportFormat, minUseful: z.number().int().min(0).max(100_000).default(2) }).strict(),
    z.object({ fileName: z.string(), content: z.string(), rows: z.number().int(), queries: z.number().int() }),
    'Utility labels of the kept queries (≥ minUseful useful; 0: all) as TREC qrels, Fair-RAG relevance mapping TSV or delta TSV.',
  ),
}));
