/**
 * Runs of any experiment kind: list, read, delete, and their results through one API whose
 * responses are discriminated unions on `kind`:
 *
 *   runs.metrics   the kind's tables and figure data (fair-rag: FairRagMetrics, moi: MoiMetrics,
 *                  richrag: RichRagMetrics)
 *   runs.items     a page of the kind's drill-down items: fair-rag one row per sampled ranking;
 *                  moi and richrag one per query (its full per-query view)
 *   runs.export    a file in one of the kind's formats with its reproducibility manifest
 *
 * A kind joins this API here: its metrics, its item row and its export formats (each defined in the
 * kind's own contract file) go into the three unions below.
 */
import { z } from 'zod';
import { lazyMethods, method } from './define';
import { ExportFormat, FairRagItemsPage, FairRagMetrics } from './fairRag';
import { Id, itemsPage } from './kindParts';
import { MoiExportFormat, MoiMetrics, MoiQueryDetail } from './moi';
import { RichRagExportFormat, RichRagMetrics, RichRagQueryView } from './richrag';

export const RunStatus = z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']);

export const RunStats = z
  .object({
    queries: z.number().int(),
    skippedQueries: z.array(z.object({ queryId: z.string(), reason: z.string() })),
    /** Sampled rankings (one generation each in a naive pipeline). */
    naiveGenerations: z.number().int(),
    /** Distinct prompts: the generations actually needed. */
    distinctGenerations: z.number().int(),
    /** Of those, answered by the call cache / computed by the engine (this run's sessions). */
    generationsFromCache: z.number().int(),
    generationsComputed: z.number().int(),
    naiveJudgments: z.number().int(),
    distinctJudgments: z.number().int(),
    judgmentsFromCache: z.number().int(),
    judgmentsComputed: z.number().int(),
    /** Embedding calls of dense retrievers (cached too). */
    embeddingCalls: z.number().int(),
    /** How each constrained LLM step held its output, by step (RichRAG: 'auto' resolves per engine). */
    constraints: z.record(z.string(), z.object({ setting: z.string(), mode: z.string(), engine: z.string(), means: z.string() })),
    elapsedMs: z.number(),
  })
  .partial()
  .loose();

export const RunInfo = z.object({
  id: z.number().int(),
  experimentId: z.number().int(),
  experimentName: z.string(),
  kind: z.string(),
  specVersion: z.number().int(),
  status: RunStatus,
  jobId: z.string().nullable(),
  error: z.string().nullable(),
  stats: RunStats,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Arms found in the run's items (e.g. `bm25/alpha=2`, `bm25/deterministic`, `oracle`). */
  conditions: z.array(z.string()),
});

export type RunInfo = z.infer<typeof RunInfo>;

// ---- results of every kind ------------------------------------------------------------------------

export const RunMetrics = z.discriminatedUnion('kind', [FairRagMetrics, MoiMetrics, RichRagMetrics]);
export type RunMetrics = z.infer<typeof RunMetrics>;
/** The kinds whose results the API carries. */
export type RunKind = RunMetrics['kind'];
export type MetricsOf<K extends RunKind> = Extract<RunMetrics, { kind: K }>;

export const RunItemsPage = z.discriminatedUnion('kind', [FairRagItemsPage, itemsPage('moi', MoiQueryDetail), itemsPage('richrag', RichRagQueryView)]);
export type RunItemsPage = z.infer<typeof RunItemsPage>;
export type ItemsOf<K extends RunKind> = Extract<RunItemsPage, { kind: K }>;

/** Every kind's export formats; a run refuses a format of another kind (invalid-data on `format`). */
export const RunExportFormat = z.enum([...new Set([...ExportFormat.options, ...MoiExportFormat.options, ...RichRagExportFormat.options])] as [
  ExportFormat | MoiExportFormat | RichRagExportFormat,
  ...(ExportFormat | MoiExportFormat | RichRagExportFormat)[],
]);
export type RunExportFormat = z.infer<typeof RunExportFormat>;
export const EXPORT_FORMATS = { 'fair-rag': ExportFormat.options, moi: MoiExportFormat.options, richrag: RichRagExportFormat.options } as const satisfies Record<RunKind, readonly string[]>;
export type ExportFormatOf<K extends RunKind> = (typeof EXPORT_FORMATS)[K][number];

export const ExportedFile = z.object({ name: z.string(), mediaType: z.string(), text: z.string() });
export const RunExport = z.object({ file: ExportedFile, manifest: z.record(z.string(), z.unknown()) });

export const runsContract = lazyMethods(() => ({
  'runs.list': method(z.object({ experimentId: Id.optional() }).strict(), z.array(RunInfo), 'Runs, newest first.'),
  'runs.get': method(
    z.object({ runId: Id }).strict(),
    RunInfo.extend({ spec: z.record(z.string(), z.unknown()), manifest: z.record(z.string(), z.unknown()).nullable() }),
    'One run with the exact spec it ran and its manifest.',
  ),
  'runs.delete': method(z.object({ runId: Id }).strict(), z.object({ deleted: z.boolean() }), 'Delete a run and its results.'),
  'runs.metrics': method(
    z.object({ runId: Id }).strict(),
    RunMetrics,
    'Metrics of a run as its kind computes them (fair-rag: per query, aggregates with 95% CIs, provider exposure, Tables 1-2, Fig. 3 data; moi: Tables 1/7/8 with paired tests, Fig. 6 position bias, calls per method; richrag: Tables 1 and 3 with paired tests, judge, explorer and preference summaries).',
  ),
  'runs.items': method(
    z
      .object({
        runId: Id,
        queryId: z.string().optional(),
        /** fair-rag: the arm's samples only; moi, richrag: each query's view narrowed to this method or condition. */
        condition: z.string().optional(),
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(50),
      })
      .strict(),
    RunItemsPage,
    "Drill-down items of a run, a page at a time (fair-rag: one row per sampled ranking with its prompt, output, utility and attribution judgments; moi: one per query with its permutations, fit and every method's order and answer; richrag: one per query with its sub-aspects, pools, lists, answers and coverage).",
  ),
  'runs.export': method(
    z.object({ runId: Id, format: RunExportFormat, condition: z.string().optional() }).strict(),
    RunExport,
    'An export file of a run in one of its kind’s formats (CSV, TREC run and qrels, LaTeX, JSONL training data, JSON) and its reproducibility manifest.',
  ),
}));
