/**
 * The experiment-kind registry. A kind (fair-rag, moi, richrag; a fourth joins the same way) is one
 * object with:
 *
 *   schema            zod schema of its spec, with defaults (the API contract holds it, so the UI can use it)
 *   title(spec)       a job title
 *   execute(ctx)      compose the workspace's services (given as `ExperimentDeps`) into results:
 *                     plan the work, call the engines (always through the call cache), upsert
 *                     `run_items`; resumable — finished items are skipped, so running it again after
 *                     a crash or a cancel finishes the run without redoing work
 *   metrics(input)    pure: the kind's tables and figure data from the stored items (and the spec)
 *   items(...)        a page of drill-down items for views (itemsPage.ts pages them the same way
 *                     for every kind: stored rows of one type, or one per-query view per query)
 *   exportFile(...)   export files (CSV, TREC, LaTeX, ...) and what the manifest should record
 *   previewPrompt     optional: render one prompt for a real query without running anything
 *
 * Planning is the kind's own pure function (`plan(spec, data)` in its folder), used by `execute`
 * and by previews and tests. The service layer (services/experimentService.ts) owns persistence of
 * experiments and runs, jobs and manifests, and serves every kind through the generic `runs.*`
 * API, whose responses are the contract's unions on `kind` (api/contract/runs.ts): a kind's metrics
 * (M) and item rows (R) are the types the contract gives for its `kind`. A kind never touches
 * transports.
 */
import type { TestCalibration } from '../api/contract/kindParts';
import type { Database } from 'better-sqlite3';
import type { z } from 'zod';
import type { GeneratorRef } from '../api/contract/models';
import type { GeneratorSelector, PromptPreviewBudget } from '../api/contract/experiments';
import type { CallBound, DesignWarning } from '../api/contract/plans';
import type { CachedEngine } from '../engine/callCache';
import type { GenerateRequest } from '../engine/types';
import type { SimProfile } from '../engine/sim/profile';
import type { ManifestInput } from '../io/manifest/manifest';
import type { CollectionsRepo } from '../store/collectionsRepo';
import type { ExperimentsRepo, RunItem } from '../store/experimentsRepo';
import type { RetrievalRepo } from '../store/retrievalRepo';

/** What a kind may use of the workspace: repositories and engines, never transports. */
export interface ExperimentDeps {
  readonly db: Database;
  readonly collections: CollectionsRepo;
  readonly retrievalRuns: Pick<RetrievalRepo, 'run' | 'results'>;
  readonly experiments: ExperimentsRepo;
  /** A selector (ids or names) → a reference; an unknown name throws a DataError naming `field`. */
  resolveGenerator(selector: GeneratorSelector, field: string): GeneratorRef;
  /** The cached engine of a model (every call goes through the workspace's call cache). */
  engineFor(ref: GeneratorRef): CachedEngine;
  /** Manifest description of a model: name, file, SHA-256, quantization, settings; never secrets. */
  describeModel(ref: GeneratorRef): Record<string, unknown>;
}

/** Progress and cancellation, as a job provides them. */
export interface WorkContext {
  readonly signal: AbortSignal;
  progress(done: number, total?: number | null, message?: string): void;
}

export interface ExecuteContext<S> extends WorkContext {
  readonly runId: number;
  readonly spec: S;
  readonly deps: ExperimentDeps;
}

export interface MetricsInput<S> {
  runId: number;
  spec: S;
  /** All items of the run. */
  items: readonly RunItem[];
  /** Whether the run finished (metrics of an unfinished run are marked incomplete). */
  finished: boolean;
  /** Display names for tables and file names. */
  experimentName: string;
  generatorName: string;
  /** Queries the run skipped, with the reason (from the run's stats). */
  skipped: { queryId: string; reason: string }[];
  /** Fair RAG: the stored measured null rejection rate of Table 2's test for this spec (services/simulation/calibrationStore.ts), when it was checked. */
  calibration?: TestCalibration | undefined;
}

/**
 * What a kind's summary reads: the metrics' input with the run's items, or instead the store they are
 * in (`repo`), so a kind may read only what its summary needs, as it needs it.
 */
export type SummaryInput<S> = Omit<MetricsInput<S>, 'items'> & ({ items: readonly RunItem[] } | { repo: ExperimentsRepo });

/** The part of a run's metrics a summary shows (see ExperimentKind.summary). */
export interface RunSummary {
  kind: string;
  aggregates?: unknown;
  warnings?: string[];
  incomplete?: boolean;
}

export interface ItemsQuery {
  queryId?: string | undefined;
  condition?: string | undefined;
  offset: number;
  limit: number;
}

/** A page of drill-down items: `total` match the query, `items` is the page. */
export interface ItemsPage<R> {
  total: number;
  items: R[];
}

export interface ExportedFile {
  name: string;
  mediaType: string;
  text: string;
  /**
   * What the export's manifest should add about this file (the service puts it under `export`):
   * e.g. RichRAG's training records, `promptBudget` (the budget their prompts were fitted to, in the
   * ranker's tokens or marked 'estimated tokens').
   */
  manifest?: Record<string, unknown>;
  /** Warnings about this file, added to the export's manifest warnings (an estimated budget, prompts cut). */
  warnings?: string[];
}

/** What the service needs to write a manifest for a run of this kind. */
export type ManifestParts = Omit<ManifestInput, 'environment' | 'createdAt'>;

export interface ExperimentKind<S = unknown, M = unknown, R = unknown> {
  readonly kind: string;
  readonly title: string;
  readonly schema: z.ZodType<S>;
  jobTitle(spec: S): string;
  execute(ctx: ExecuteContext<S>): Promise<Record<string, unknown>>;
  metrics(input: MetricsInput<S>): M;
  /**
   * What a summary shows (the CLI's table after `run`, `experiment show`): the metrics' `aggregates`,
   * `warnings` and `incomplete`, the same values `metrics` computes, without the tables and tests no
   * summary prints. Optional: without it a summary takes them from `metrics`.
   */
  summary?(input: SummaryInput<S>): RunSummary;
  /** The CLI's table of a summary (after `run`, `experiment show`); without it the CLI points to `--json`. */
  summaryTable?(summary: RunSummary): string;
  /** The run's stats in sentences (de-duplication, cache); without it (or undefined) the CLI lists the counters as they are. */
  describeStats?(stats: Record<string, unknown>): string | undefined;
  items(runId: number, spec: S, repo: ExperimentsRepo, query: ItemsQuery): ItemsPage<R>;
  /** `deps`: for exports that need an engine (RichRAG's training records count their prompts with the ranker's tokenizer). */
  exportFile(input: MetricsInput<S> & { format: string; condition?: string | undefined }, deps?: ExperimentDeps): ExportedFile | Promise<ExportedFile>;
  manifest(runId: number, spec: S, deps: ExperimentDeps, stats: Record<string, unknown>): Promise<ManifestParts>;
  /**
   * Design checks (issue 23 item 5): what in this spec, on this data, cannot show an effect, naming the cause and the fix.
   * Pure over the spec and the collection; shown by the wizard's review, `run --dry-run` and atop the run's results.
   */
  designWarnings?(spec: S, deps: ExperimentDeps): Promise<DesignWarning[]>;
  /**
   * Every generate and scoring request this spec will send, by the field naming its model, so a spec
   * that needs what a model's engine lacks is refused before anything is written (specCapabilities.ts).
   * Optional: a kind without it is not checked.
   */
  modelNeeds?(spec: S): ModelNeeds;
  /**
   * A true upper bound on the calls a run of this spec asks for, shown beside the cost estimate
   * (`run --dry-run`, the wizard's review) where the estimate's later stages are only expected counts.
   * Optional: a kind without it shows the estimate alone.
   */
  callBound?(spec: S, deps: ExperimentDeps): CallBound;
  /** Study design by simulation (power of the spec's own test on a planted effect); without it a kind has none. */
  power?: KindPower;
  /** A measured calibration of the kind's test (needs `power`); shown with the run's metrics (`MetricsInput.calibration`). */
  calibration?: KindCalibration;
  /**
   * What the kind's run would refuse only after its run was written (a prompt template that does not
   * parse, a task no selected query has), checked with the references (specReferences.ts).
   */
  checkContent?(spec: S, deps: ContentCheckDeps): KindSpecIssue[];
  previewPrompt?(spec: S, deps: ExperimentDeps, queryId: string, retriever?: string): Promise<{ queryId: string; retriever: string; ranking: string[]; prompt: string; budget?: PromptPreviewBudget }>;
}

/** A generate request a spec will send, by the field naming its model (specCapabilities.ts). */
export interface GenerateNeed {
  /** The spec field that names the model (`generator`, `ranker.generator`, …). */
  path: string;
  selector: unknown;
  /** What the request is for, in words ('answer generation', 'the NLI judge …'). */
  why: string;
  /** The request as the run builds it for a server (its text a stand-in: only its shape matters). */
  request: GenerateRequest;
}

/** A model the spec asks to score with (prompt log-probabilities), by field. */
export interface ScoringNeed {
  path: string;
  selector: unknown;
  why: string;
}

/** What a spec needs of the models it names (checked against what their engines can do before anything is written). */
export interface ModelNeeds {
  generate: GenerateNeed[];
  scoring: ScoringNeed[];
}

/** A problem with a field of a spec (path relative to the spec). */
export interface KindSpecIssue {
  path: string;
  message: string;
}

/** What a kind's content checks may read of the workspace (specReferences.ts passes it). */
export interface ContentCheckDeps {
  collections: Pick<CollectionsRepo, 'byName' | 'getQuery' | 'counts' | 'list' | 'listQueries'>;
}

/** The simulated reader's profile a power simulation starts from (the spec's own reader's, without the per-run fields). */
export type PowerBaseProfile = Omit<SimProfile, 'seed' | 'utilityScale' | 'biasStrength'>;

/** What a kind's power simulation may use of the scratch workspace it runs in (services/simulation/power.ts). */
export interface PowerScratch {
  readonly collections: CollectionsRepo;
  /** Registers a simulated reader under `name`. */
  addSim(name: string, profile: SimProfile): void;
  /** The prompt a spec would send for a query, with the ranking it shows (the kind's prompt preview). */
  previewPrompt(spec: Record<string, unknown>, queryId: string): Promise<{ ranking: string[] }>;
  /** Runs a spec to its end in the scratch workspace; its run id. */
  runToEnd(spec: Record<string, unknown>): Promise<number>;
  metrics(runId: number): Record<string, unknown>;
  /** The stored items of a run in one condition, as (query id, parsed payload). */
  items(runId: number, condition: string): { queryId: string; payload: Record<string, unknown> }[];
}

/** The spec's own significance test as one simulated run's metrics report it. */
export interface PowerTestOutcome {
  /** The tested cell is significant after the table's correction (the star the table shows). */
  significant: boolean;
  /** The tested cell's raw p-value (before the correction; null: no test). */
  pValue: number | null;
  /** Any cell of the tested family (the column or row the correction runs over) is significant: the family-wise rejection. */
  familySignificant: boolean;
  difference: number | null;
  description: string;
  alpha: number;
  test: string;
  correction: string;
}

/**
 * A kind's study design by simulation (services/simulation/power.ts): which effect it plants in the
 * simulated reader so that effect 0 is the null of the spec's own test, and where that test is in the
 * metrics.
 */
export interface KindPower {
  /** What the planted effect is, in words. */
  effect: string;
  /** The kind has a grid over samples N per arm; the spec's own N. */
  samples?(spec: Record<string, unknown>): number;
  /**
   * Prepares the planted truth once for the selected queries (probe runs in the scratch workspace may
   * be made); returns the reader's profile fields for a planted effect e in [0, 1].
   */
  plant(scratch: PowerScratch, base: PowerBaseProfile, spec: Record<string, unknown>, selected: readonly string[]): Promise<(effect: number) => Partial<SimProfile>>;
  /** The spec's own test in a run's metrics. */
  primaryTest(metrics: Record<string, unknown>): PowerTestOutcome;
}

/**
 * A kind whose significance test's null rejection rate can be measured by simulation and shown beside its
 * table (services/simulation/calibration.ts, calibrationStore.ts).
 */
export interface KindCalibration {
  /** Which test, in words ("Table 2's test"). */
  test: string;
  /** What of the spec decides the null rejection rate (defaults filled in); null: the spec cannot be simulated. */
  basis(spec: Record<string, unknown>): Record<string, unknown> | null;
  /** The spec as the calibration simulates it (parts that do not enter the test may be left out). */
  simulated(spec: Record<string, unknown>): Record<string, unknown>;
}

/** A registry of kinds by name. */
export class ExperimentRegistry {
  private readonly kinds = new Map<string, ExperimentKind>();

  register<S, M, R>(kind: ExperimentKind<S, M, R>): void {
    if (this.kinds.has(kind.kind)) throw new Error(`experiment kind '${kind.kind}' is registered twice`);
    this.kinds.set(kind.kind, kind as unknown as ExperimentKind);
  }

  get(kind: string): ExperimentKind | undefined {
    return this.kinds.get(kind);
  }

  list(): { kind: string; title: string }[] {
    return [...this.kinds.values()].map((k) => ({ kind: k.kind, title: k.title }));
  }
}
