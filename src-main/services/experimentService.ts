/**
 * Experiments as use cases: versioned specs (create, edit = new version, delete), validation with
 * field paths, prompt previews, runs executed as resumable jobs, and the read side views build on —
 * metrics, drill-down rows and exports with reproducibility manifests. Kind-specific work is the
 * kind's (src-main/experiments/); this service persists, schedules and wires the workspace's
 * services into the kind through `ExperimentDeps`. Every kind is read through the same methods
 * (metrics, items, export: the API's `runs.*`).
 *
 * Resuming: a run's job is registered by kind name ('experiments.run', params {runId}) so the job
 * tray's Resume (or `fairground run` again) re-executes it; the kind skips stored items and the call
 * cache answers any call that finished before a crash.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { ApiOutput } from '../api/contract/index';
import type { GeneratorSelector } from '../api/contract/experiments';
import type { Job } from '../api/contract/jobs';
import type { CallBound, DesignWarning } from '../api/contract/plans';
import type { GeneratorRef } from '../api/contract/models';
import { ApiFailure } from '../api/apiFailure';
import { DataError } from '../core/errors';
import { CallsDeferredError, COMPUTE, type CallPolicy } from '../engine/queue/callPolicy';
import { RunCalls } from '../engine/queue/runCalls';
import { isDeferred } from '../experiments/concurrency';
import type { ExperimentDeps, ExperimentKind, ExperimentRegistry, ExportedFile, ItemsQuery, MetricsInput, RunSummary, WorkContext } from '../experiments/registry';
import { designWarningNote, storedDesignWarnings } from '../experiments/designWarningText';
import { defaultExperimentRegistry } from '../experiments/kinds';
import { validateSpec } from '../experiments/specFile';
import { checkSpecContent, checkSpecReferences, MODEL_KEYS, walk } from '../experiments/specReferences';
import { checkSpecCapabilities, type ModelCapabilities } from '../experiments/specCapabilities';
import { collectEnvironment, type EnvironmentInfo } from '../io/manifest/environment';
import { buildManifest, type ReproducibilityManifest } from '../io/manifest/manifest';
import { redactSecrets } from '../io/manifest/redactSecrets';
import type { CollectionsRepo } from '../store/collectionsRepo';
import { ExperimentNameTakenError, ExperimentsRepo, type ExperimentRow, type RunItem, type RunRow } from '../store/experimentsRepo';
import { RetrievalRepo } from '../store/retrievalRepo';
import { readCalibration } from './simulation/calibrationStore';
import type { JobContext, JobRunner } from './jobRunner';
import type { ModelService } from './modelService';
import { currentOwner, ownerGone } from './processOwner';
import { generateRefusalOf, type StoredRemoteSettings } from './remoteModels';
import type { GenerateRequest } from '../engine/types';

export const RUN_JOB_KIND = 'experiments.run';

export interface ExperimentServiceOptions {
  registry?: ExperimentRegistry;
  /** The environment recorded in manifests (tests pin it). */
  environment?: () => EnvironmentInfo;
}

type ExperimentInfo = ApiOutput<'experiments.list'>[number];
type RunInfo = ApiOutput<'runs.list'>[number];

export class ExperimentService {
  readonly repo: ExperimentsRepo;
  readonly registry: ExperimentRegistry;
  readonly deps: ExperimentDeps;
  private readonly executing = new Set<number>();
  private environment: EnvironmentInfo | undefined;

  constructor(
    db: Database,
    private readonly jobs: JobRunner,
    private readonly models: ModelService,
    collections: CollectionsRepo,
    private readonly options: ExperimentServiceOptions = {},
  ) {
    this.repo = new ExperimentsRepo(db);
    this.registry = options.registry ?? defaultExperimentRegistry();
    // Runs left running by a process that died (on this machine) can be resumed; runs in progress
    // in another live process (the app and the CLI on one workspace) are left alone.
    this.repo.markInterrupted((owner) => ownerGone(owner));
    this.deps = {
      db,
      collections,
      retrievalRuns: new RetrievalRepo(db),
      experiments: this.repo,
      resolveGenerator: (selector, field) => this.resolveGenerator(selector, field),
      engineFor: (ref) => models.engineFor(ref),
      describeModel: (ref) => models.describe(ref),
    };
    jobs.registerKind<{ runId: number }>(RUN_JOB_KIND, {
      title: (p) => {
        const run = this.repo.run(p.runId);
        return run ? `${run.experimentName}: run ${run.id}` : `Experiment run ${p.runId}`;
      },
      run: (p, ctx) => this.executeRun(p.runId, ctx),
    });
  }

  kinds(): { kind: string; title: string }[] {
    return this.registry.list();
  }

  // ---- specs ---------------------------------------------------------------------------------

  validateSpec(raw: unknown): ApiOutput<'experiments.validateSpec'> {
    const v = validateSpec(this.registry, raw);
    if (!v.ok) return { ok: false, issues: v.issues, spec: null };
    // The schema is satisfied: check that what it names exists in this workspace (issue 17 item 2).
    const references = [...checkSpecReferences(v.spec, this.deps), ...checkSpecContent(v.kind, v.spec, this.deps)];
    // What the named models can do (issue 24 item 3): only once they all exist.
    const missing = references.length ? references : checkSpecCapabilities(v.kind, v.spec, { capabilitiesOf: (selector) => this.capabilitiesOf(selector) });
    return missing.length ? { ok: false, issues: missing, spec: null } : { ok: true, issues: [], spec: v.spec };
  }

  /** The validated spec or an ApiFailure naming `spec.<path>`. */
  private parse(raw: unknown): { kind: ExperimentKind; spec: Record<string, unknown> } {
    const v = validateSpec(this.registry, raw);
    if (v.ok) return v;
    const first = v.issues[0]!;
    const field = first.path ? `spec.${first.path}` : 'spec';
    throw new ApiFailure('validation', `${field}: ${first.message}`, field);
  }

  // ---- experiments ---------------------------------------------------------------------------

  list(): ExperimentInfo[] {
    return this.repo.experiments().map((e) => info(e, e.runs, e.lastRunId));
  }

  get(id: number): ApiOutput<'experiments.get'> {
    const e = this.requireExperiment(id);
    const runs = this.repo.runs(id);
    return {
      ...info(e, runs.length, runs[0]?.id ?? null),
      versions: this.repo.specVersions(id).map((v) => ({ version: v.version, spec: v.spec as Record<string, unknown>, createdAt: v.createdAt })),
    };
  }

  create(raw: unknown): ExperimentInfo {
    const { kind, spec } = this.parse(raw);
    try {
      return info(this.repo.createExperiment({ kind: kind.kind, name: String(spec.name), spec }), 0, null);
    } catch (err) {
      if (err instanceof ExperimentNameTakenError) throw new ApiFailure('conflict', err.message, 'spec.name');
      throw err;
    }
  }

  update(id: number, raw: unknown): ExperimentInfo & { changed: boolean } {
    const e = this.requireExperiment(id);
    const { kind, spec } = this.parse(raw);
    if (kind.kind !== e.kind) throw new ApiFailure('validation', `spec.kind: this experiment is of kind '${e.kind}', not '${kind.kind}'`, 'spec.kind');
    try {
      const { experiment, changed } = this.repo.updateExperiment(id, { name: String(spec.name), spec });
      const runs = this.repo.runs(id);
      return { ...info(experiment, runs.length, runs[0]?.id ?? null), changed };
    } catch (err) {
      if (err instanceof ExperimentNameTakenError) throw new ApiFailure('conflict', err.message, 'spec.name');
      throw err;
    }
  }

  /** Create the experiment of a spec, or store the spec as its new version when the name exists. */
  upsert(raw: unknown): { experiment: ExperimentInfo; created: boolean; changed: boolean } {
    const { spec } = this.parse(raw);
    let existing = this.repo.experimentByName(String(spec.name));
    if (!existing) {
      try {
        return { experiment: this.create(raw), created: true, changed: true };
      } catch (err) {
        // Another process (a second `fairground run` of the same spec started at once) created it between
        // the look-up and the insert: use that one, as if it had been there.
        existing = this.repo.experimentByName(String(spec.name));
        if (!existing) throw err;
      }
    }
    const { changed, ...experiment } = this.update(existing.id, raw);
    return { experiment, created: false, changed };
  }

  delete(id: number): { deleted: boolean } {
    if (this.repo.runs(id).some((r) => this.executing.has(r.id))) throw new ApiFailure('conflict', 'a run of this experiment is in progress; cancel it first');
    return { deleted: this.repo.deleteExperiment(id) };
  }

  async previewPrompt(raw: unknown, queryId: string, retriever?: string): Promise<ApiOutput<'experiments.previewPrompt'>> {
    const { kind, spec } = this.parse(raw);
    if (!kind.previewPrompt) throw new ApiFailure('validation', `experiments of kind '${kind.kind}' have no prompt preview`, 'spec.kind');
    return kind.previewPrompt(spec, this.deps, queryId, retriever);
  }

  /**
   * The spec's design warnings (issue 23 item 5): what in it, on this workspace's data, cannot show an
   * effect, naming the cause and the fix (ExperimentKind.designWarnings; [] for a kind without checks).
   */
  /** The kind's upper bound on the calls a run of this spec asks for, where it takes one (registry `callBound`). */
  callBound(raw: unknown): CallBound | undefined {
    const { kind, spec } = this.parse(raw);
    return kind.callBound?.(spec, this.deps);
  }

  async designWarnings(raw: unknown): Promise<DesignWarning[]> {
    const { kind, spec } = this.parse(raw);
    return [...(kind.designWarnings ? await kind.designWarnings(spec, this.deps) : []), ...this.reproducibilityWarnings(raw)];
  }

  /**
   * Before Run (issue 35 item 2): a llama.cpp server the user let take several requests at once on
   * several slots batches them, which changes greedy outputs; the spec's runs may then not repeat.
   */
  reproducibilityWarnings(raw: unknown): DesignWarning[] {
    const { spec } = this.parse(raw);
    const warnings: DesignWarning[] = [];
    const seen = new Set<number>();
    walk(spec, '', (key, value, path) => {
      if (!MODEL_KEYS.has(key) || value === null || typeof value !== 'object' || Array.isArray(value)) return;
      let ref: GeneratorRef;
      try {
        ref = this.resolveGenerator(value as GeneratorSelector, path);
      } catch {
        return; // named nothing: the reference check says so
      }
      if (ref.kind !== 'remote' || seen.has(ref.endpointId)) return;
      seen.add(ref.endpointId);
      const r = this.models.listRemotes().find((x) => x.id === ref.endpointId);
      if (!r || r.settings.serverKind !== 'llama.cpp' || !r.endpoints.some((e) => (e.effectiveConcurrency ?? e.maxConcurrency) > 1)) return;
      for (const note of r.reproducibility ?? []) {
        warnings.push({
          code: 'remote-concurrent-slots',
          field: path,
          message: `server '${r.name}': ${note}`,
          fix: `add the server again without --concurrent-slots (one request at a time per endpoint), or start llama-server with -np 1`,
        });
      }
    });
    return warnings;
  }

  /**
   * The design warnings of a run's spec on this workspace's data, stored with the run
   * (`stats.designWarnings`; kept when the run finishes) so that its metrics' warnings and its
   * manifest list them (issue 34 item 6). `fairground run` calls it before computing and prints them.
   */
  async recordDesignWarnings(runId: number): Promise<DesignWarning[]> {
    const run = this.requireRun(runId);
    const warnings = await this.designWarnings(run.spec);
    this.repo.setRunStats(runId, { ...run.stats, designWarnings: warnings });
    return warnings;
  }

  // ---- runs ----------------------------------------------------------------------------------

  /** Start a new run of the experiment's current spec. */
  startRun(experimentId: number): Job {
    const e = this.requireExperiment(experimentId);
    const run = this.repo.createRun({ experimentId: e.id, spec: e.spec, specVersion: e.version });
    return this.launch(run);
  }

  /**
   * Start a run of an experiment's current spec, once (issue 26 item 1; the one start-a-run policy,
   * issue 37 item 3): while a run of this spec version is pending or running in this process, a second
   * start (a double click, five rapid clicks, a retried request) returns that run's job instead of
   * starting another run of the same spec. Once the run has finished, failed or been cancelled, a start
   * makes a new run. (`fairground run` resumes instead: `runToContinue` below, the same decision about
   * which runs are open.)
   */
  startOrJoinRun(experimentId: number): Job {
    const experiment = this.requireExperiment(experimentId);
    const live = this.repo.runs(experimentId).find((r) => r.specVersion === experiment.version && (r.status === 'pending' || r.status === 'running') && r.jobId !== null && this.jobs.isLive(r.jobId));
    if (live?.jobId) return this.jobs.get(live.jobId);
    return this.startRun(experimentId);
  }

  /**
   * The run `fairground run` should (re)start for an experiment: the newest unfinished run of the
   * current spec version (interrupted, failed, cancelled or never started), else a new run.
   */
  runToContinue(experimentId: number, fresh = false): { run: RunRow; resumed: boolean } {
    const e = this.requireExperiment(experimentId);
    this.repo.markInterrupted((owner) => ownerGone(owner));
    if (!fresh) {
      const open = this.repo.runs(experimentId).find((r) => r.specVersion === e.version && r.status !== 'succeeded' && r.status !== 'running');
      if (open) return { run: open, resumed: true };
    }
    return { run: this.repo.createRun({ experimentId: e.id, spec: e.spec, specVersion: e.version }), resumed: false };
  }

  /** Start (or resume under its old job id) the job that executes a stored run. */
  launch(run: RunRow): Job {
    if (this.executing.has(run.id) || this.repo.run(run.id)?.status === 'running') throw new ApiFailure('conflict', `run ${run.id} is already in progress`);
    if (run.jobId) {
      try {
        const job = this.jobs.get(run.jobId);
        // A job row still 'running' belongs to a process that died (the run itself is not running).
        if (job.status !== 'succeeded') return this.jobs.resume(run.jobId);
      } catch (err) {
        if (!(err instanceof ApiFailure && err.code === 'not-found')) throw err;
      }
    }
    const job = this.jobs.startKind(RUN_JOB_KIND, { runId: run.id });
    this.repo.setRunJob(run.id, job.id);
    return job;
  }

  /**
   * Execute a run (the job body; also callable directly). Idempotent over finished items.
   *
   * Every engine the kind asks for is a view of that engine's one work queue with this run's
   * policy (engine/queue/callPolicy.ts) and counters. Under a defer or shard policy the calls the
   * cache cannot answer (and that are not this shard's) are left for later: the kind finishes every
   * other unit, the run stops as `interrupted` with the reason, and `CallsDeferredError` carries the
   * deferred calls (what `fairground plan export` writes and `run --dry-run` prices).
   */
  async executeRun(
    runId: number,
    ctx: WorkContext & Partial<Pick<JobContext, 'jobId'>>,
    options: { policy?: CallPolicy; calls?: RunCalls } = {},
  ): Promise<Record<string, unknown>> {
    const run = this.requireRun(runId);
    if (this.executing.has(runId)) throw new ApiFailure('conflict', `run ${runId} is already in progress`);
    const kind = this.requireKind(run.kind);
    const spec = kind.schema.parse(run.spec);
    const policy = options.policy ?? COMPUTE;
    const calls = options.calls ?? new RunCalls();
    const deps: ExperimentDeps = { ...this.deps, engineFor: (ref) => this.models.engineFor(ref).withPolicy(policy, calls) };
    this.executing.add(runId);
    // Remote endpoints prove their weights again before this run's first call on them (issue 24 item 4).
    this.models.recheckRemoteWeights();
    this.repo.setRunStarted(runId, ctx.jobId ?? null, currentOwner());
    try {
      let stats: Record<string, unknown> = {};
      // An answer is trusted only between two passing weights checks (issue 35 item 1): after the kind
      // has finished, every remote endpoint that answered since its last check is checked again. When
      // answers were distrusted meanwhile (their rows are gone from the cache), the run's items are
      // written again from the cache, the distrusted calls computed on the endpoints still trusted.
      // Counted across processes: a run killed after a caught swap and resumed still says how many
      // answers it took out (the count is stored with the run as soon as it is known).
      let distrusted = storedDistrusted(this.requireRun(runId).stats);
      for (let pass = 1; ; pass++) {
        const before = this.models.distrustedAnswers();
        try {
          stats = await kind.execute({ runId, spec, deps, signal: ctx.signal, progress: (d, t, m) => ctx.progress(d, t, m) });
        } catch (err) {
          if (!isDeferred(err) || ctx.signal.aborted) throw err;
          stats = {};
        }
        if (calls.deferredCount > 0) break;
        await this.models.confirmRemoteAnswers(ctx.signal);
        const now = this.models.distrustedAnswers() - before;
        if (now === 0) break;
        distrusted += now;
        this.repo.setRunStats(runId, { ...(this.requireRun(runId).stats as Record<string, unknown>), answersDistrusted: distrusted });
        if (pass >= MAX_TRUST_PASSES) {
          throw new Error(`${distrusted} answers were distrusted in ${pass} passes (endpoints kept failing their weights checks); the run stops, its trusted calls are kept in the call cache`);
        }
        ctx.progress(0, undefined, `${now} answers came from an endpoint that failed its weights check: computing them again elsewhere`);
        this.repo.clearItems(runId);
      }
      // The design warnings recorded before the run (recordDesignWarnings) stay with it.
      const recorded = storedDesignWarnings(this.requireRun(runId).stats);
      stats = { ...stats, callsInFlightMax: calls.maxInFlight, ...(recorded.length > 0 ? { designWarnings: recorded } : {}), ...(distrusted > 0 ? { answersDistrusted: distrusted } : {}) };
      if (calls.deferredCount > 0) throw new CallsDeferredError(calls.deferredCount, deferredMessage(policy, calls));
      this.repo.setRunStats(runId, stats);
      const manifest = await this.buildManifest(kind, run, spec, stats);
      if (distrusted > 0) manifest.warnings.push(distrustWarning(distrusted));
      this.repo.setRunManifest(runId, manifest);
      this.repo.setRunFinished(runId, 'succeeded');
      return { runId, ...stats };
    } catch (err) {
      const cancelled = ctx.signal.aborted;
      const waiting = err instanceof CallsDeferredError;
      this.repo.setRunFinished(runId, cancelled ? 'cancelled' : waiting ? 'interrupted' : 'failed', cancelled ? null : err instanceof Error ? err.message : String(err));
      throw err;
    } finally {
      this.executing.delete(runId);
    }
  }

  listRuns(experimentId?: number): RunInfo[] {
    return this.repo.runs(experimentId).map((r) => this.runInfo(r));
  }

  getRun(runId: number): ApiOutput<'runs.get'> {
    const r = this.requireRun(runId);
    return { ...this.runInfo(r), spec: r.spec as Record<string, unknown>, manifest: r.manifest };
  }

  deleteRun(runId: number): { deleted: boolean } {
    if (this.executing.has(runId)) throw new ApiFailure('conflict', `run ${runId} is in progress; cancel it first`);
    return { deleted: this.repo.deleteRun(runId) };
  }

  /**
   * The `runs.*` results of a run of any kind, as its kind computes them. Each kind's metrics and
   * item rows are the contract's types for its `kind` (the kinds declare them, ExperimentKind<S, M,
   * R>); the router checks every response against the union on `kind`.
   */
  metrics(runId: number): ApiOutput<'runs.metrics'> {
    const { kind, run, input } = this.metricsInput(runId);
    return withDesignWarnings(kind.metrics(input) as ApiOutput<'runs.metrics'>, run.stats);
  }

  /**
   * A run's metrics as its kind computes them under a changed analysis (e.g. `{ significance: { test:
   * 'randomization' } }`): the stored items with the run's spec shallow-merged with `patch` (validated by
   * the kind's schema). Nothing is stored; a simulation reads one run under several tests with it.
   */
  metricsWith(runId: number, patch: Record<string, unknown>): ApiOutput<'runs.metrics'> {
    const { kind, run, input } = this.metricsInput(runId);
    const spec = kind.schema.parse({ ...(run.spec as Record<string, unknown>), ...patch }) as Record<string, unknown>;
    return kind.metrics({ ...input, spec }) as ApiOutput<'runs.metrics'>;
  }

  /**
   * What a summary of a run shows (its metrics' `kind`, `aggregates`, `warnings`, `incomplete`), the
   * same values `metrics` returns; a kind with a `summary` computes only those.
   */
  summary(runId: number): RunSummary {
    // A kind with a summary reads the items from the store itself (only what it needs, parsed once).
    const { kind, run, input } = this.metricsInput(runId, false);
    if (kind.summary) return withDesignWarnings(kind.summary({ ...input, repo: this.repo }), run.stats);
    const m = kind.metrics({ ...input, items: this.repo.items(runId) }) as RunSummary;
    return withDesignWarnings({ kind: m.kind, aggregates: m.aggregates, warnings: m.warnings, incomplete: m.incomplete }, run.stats);
  }

  items(runId: number, query: ItemsQuery): ApiOutput<'runs.items'> {
    const run = this.requireRun(runId);
    const kind = this.requireKind(run.kind);
    return { kind: kind.kind, ...kind.items(runId, kind.schema.parse(run.spec), this.repo, query) } as ApiOutput<'runs.items'>;
  }

  async export(runId: number, format: string, condition?: string): Promise<ApiOutput<'runs.export'>> {
    const { kind, input, run } = this.metricsInput(runId);
    let manifest = (run.manifest as ReproducibilityManifest | null) ?? (await this.buildManifest(kind, run, input.spec, run.stats));
    if (input.calibration) manifest = withCalibration(manifest, input.calibration);
    const file =
      format === 'manifest'
        ? { name: `${input.experimentName}-run${runId}.manifest.json`.replace(/[^A-Za-z0-9._-]+/g, '_'), mediaType: 'application/json', text: `${JSON.stringify(manifest, null, 2)}\n` }
        : await kind.exportFile({ ...input, format, condition }, this.deps);
    const { manifest: about, warnings, ...exported } = file as ExportedFile;
    // metrics-json is everything `runs.metrics` returns, the design warnings recorded with the run included (issue 34 item 6).
    if (format === 'metrics-json' && storedRunNotes(run.stats).length > 0) {
      exported.text = `${JSON.stringify(withDesignWarnings(JSON.parse(exported.text) as { warnings?: string[] }, run.stats), null, 2)}\n`;
    }
    const bytes = Buffer.byteLength(exported.text, 'utf8');
    manifest = {
      ...manifest,
      ...(warnings && warnings.length > 0 ? { warnings: [...manifest.warnings, ...warnings] } : {}),
      export: { ...about, file: exported.name, sha256: createHash('sha256').update(exported.text, 'utf8').digest('hex'), bytes },
    };
    return { file: exported, manifest: redactSecrets(manifest) as unknown as Record<string, unknown> };
  }

  // ---- helpers -------------------------------------------------------------------------------

  private metricsInput(runId: number): { kind: ExperimentKind; run: RunRow; input: MetricsInput<Record<string, unknown>> };
  private metricsInput(runId: number, withItems: false): { kind: ExperimentKind; run: RunRow; input: Omit<MetricsInput<Record<string, unknown>>, 'items'> };
  private metricsInput(runId: number, withItems = true): { kind: ExperimentKind; run: RunRow; input: Omit<MetricsInput<Record<string, unknown>>, 'items'> & { items?: readonly RunItem[] } } {
    const run = this.requireRun(runId);
    const kind = this.requireKind(run.kind);
    const spec = kind.schema.parse(run.spec) as Record<string, unknown>;
    return {
      kind,
      run,
      input: {
        runId,
        spec,
        ...(withItems ? { items: this.repo.items(runId) } : {}),
        finished: run.status === 'succeeded',
        experimentName: run.experimentName,
        generatorName: this.generatorName(spec),
        skipped: Array.isArray(run.stats.skippedQueries) ? (run.stats.skippedQueries as { queryId: string; reason: string }[]) : [],
        // The kind's measured calibration (Fair RAG's Table 2), read (never computed) here: "Check calibration" measures it (issue 23).
        ...(kind.calibration ? { calibration: readCalibration(this.deps.db, run.spec as Record<string, unknown>, this.registry) } : {}),
      },
    };
  }

  private generatorName(spec: Record<string, unknown>): string {
    const selector = spec.generator as GeneratorSelector | undefined;
    if (!selector) return 'generator';
    if ('model' in selector) return selector.model;
    if ('remote' in selector) return selector.remote;
    try {
      return String(this.models.describe(selector).name ?? 'generator');
    } catch {
      return 'generator';
    }
  }

  private async buildManifest(kind: ExperimentKind, run: RunRow, spec: unknown, stats: Record<string, unknown>): Promise<ReproducibilityManifest> {
    const parts = await kind.manifest(run.id, spec, this.deps, stats);
    this.environment ??= this.options.environment?.() ?? collectEnvironment();
    const manifest = buildManifest({
      ...parts,
      environment: this.environment,
      run: { ...parts.run, command: `fairground experiment export ${run.id}` },
      extra: { ...parts.extra, experiment: { id: run.experimentId, name: run.experimentName, kind: run.kind, specVersion: run.specVersion }, spec: run.spec },
    });
    // The design warnings recorded with the run (issue 34 item 6), and what the run did to its inputs.
    const design = storedRunNotes(stats);
    return design.length > 0 ? { ...manifest, warnings: [...manifest.warnings, ...design] } : manifest;
  }

  /** What a remote model's server was found to do at `remote add` (a llama.cpp server never asked: what its kind is known to lack). */
  private capabilitiesOf(selector: GeneratorSelector): ModelCapabilities | undefined {
    let ref: GeneratorRef;
    try {
      ref = this.resolveGenerator(selector, '');
    } catch {
      return undefined;
    }
    if (ref.kind !== 'remote') return undefined;
    const r = this.models.listRemotes().find((x) => x.id === ref.endpointId);
    if (!r) return undefined;
    const serverKind = typeof r.settings.serverKind === 'string' ? r.settings.serverKind : 'openai';
    const label = `server '${r.name}' (${serverKind})`;
    // What its engine would refuse to send (a constraint transport the probe saw ignored, …).
    const refuseGenerate = (request: GenerateRequest) => generateRefusalOf(r.model, r.settings as StoredRemoteSettings, request);
    if (r.capabilities) {
      const e = r.capabilities.echoScoring;
      return { label, scoring: e.value, ...(e.detail ? { scoringDetail: `probed at remote add: ${e.detail}` } : {}), refuseGenerate };
    }
    if (serverKind === 'llama.cpp') return { label, scoring: 'no', scoringDetail: "llama.cpp's server returns no prompt log-probabilities", refuseGenerate };
    return { label, scoring: 'unknown', refuseGenerate };
  }

  private resolveGenerator(selector: GeneratorSelector, field: string): GeneratorRef {
    if ('kind' in selector) {
      if (selector.kind === 'local' && !this.models.models.get(selector.modelId)) throw new DataError(`no model with id ${selector.modelId} in the library`, { field });
      if (selector.kind === 'remote' && !this.models.listRemotes().some((r) => r.id === selector.endpointId)) throw new DataError(`no server with id ${selector.endpointId}`, { field });
      return selector;
    }
    if ('model' in selector) {
      const m = this.models.models.getByName(selector.model);
      if (!m) {
        // A spec names models by library name; a GGUF path is not opened from a spec (issue 36: no file is read by
        // a path a spec carries), so it is refused here, at validation, with the way to use that file.
        const hint = /\.gguf$/i.test(selector.model) ? ': a spec names a model by its library name; add the file in Models (Add model) and use its name' : '';
        throw new DataError(`no model named '${selector.model}' in the library${hint}`, { field });
      }
      return { kind: 'local', modelId: m.id };
    }
    const r = this.models.listRemotes().find((x) => x.name === selector.remote);
    if (!r) throw new DataError(`no server named '${selector.remote}'`, { field });
    return { kind: 'remote', endpointId: r.id };
  }

  private runInfo(r: RunRow): RunInfo {
    return {
      id: r.id,
      experimentId: r.experimentId,
      experimentName: r.experimentName,
      kind: r.kind,
      specVersion: r.specVersion,
      status: r.status,
      jobId: r.jobId,
      error: r.error,
      stats: r.stats,
      createdAt: r.createdAt,
      finishedAt: r.finishedAt,
      conditions: this.repo.conditions(r.id),
    };
  }

  private requireExperiment(id: number): ExperimentRow {
    const e = this.repo.experiment(id);
    if (!e) throw new ApiFailure('not-found', `no experiment with id ${id}`);
    return e;
  }

  private requireRun(id: number): RunRow {
    const r = this.repo.run(id);
    if (!r) throw new ApiFailure('not-found', `no run with id ${id}`);
    return r;
  }

  private requireKind(kind: string): ExperimentKind {
    const k = this.registry.get(kind);
    if (!k) throw new ApiFailure('conflict', `this version of Fairground cannot run experiments of kind '${kind}'`);
    return k;
  }
}

function info(e: ExperimentRow, runs: number, lastRunId: number | null): ExperimentInfo {
  return { id: e.id, kind: e.kind, name: e.name, version: e.version, spec: e.spec as Record<string, unknown>, createdAt: e.createdAt, updatedAt: e.updatedAt, runs, lastRunId };
}

function deferredMessage(policy: CallPolicy, calls: RunCalls): string {
  const n = calls.deferredCount;
  const done = `${calls.computed} computed, ${calls.hits} from the cache`;
  if (policy.mode === 'shard') return `shard ${policy.index + 1}/${policy.count} done (${done}); ${n} call(s) belong to other shards or wait for them — merge the shards' caches (fairground cache merge) and run again`;
  return `${n} call(s) are not in the cache (${done}); export them with fairground plan export, or run without --cache-only to compute them`;
}

/** A run's metrics (or summary) with the design warnings recorded with it first in `warnings` (issue 34 item 6). */
function withDesignWarnings<M extends { warnings?: string[] }>(metrics: M, stats: Record<string, unknown>): M {
  const design = storedRunNotes(stats);
  if (design.length === 0) return metrics;
  return { ...metrics, warnings: [...design, ...(metrics.warnings ?? []).filter((w) => !design.includes(w))] };
}

/** The manifest with a measured calibration of the run's test under evaluation.significance (issue 23: stored after the run, so added at export). */
function withCalibration(manifest: ReproducibilityManifest, cal: NonNullable<MetricsInput<unknown>['calibration']>): ReproducibilityManifest {
  const evaluation = manifest.evaluation;
  if (!evaluation?.significance) return manifest;
  return { ...manifest, evaluation: { ...evaluation, significance: { ...evaluation.significance, calibration: cal } } };
}

/** Passes of a run over its items before it gives up on endpoints that keep failing their weights checks. */
const MAX_TRUST_PASSES = 3;

/** The run warning for answers taken out of the cache (issue 35 item 1). */
export function distrustWarning(n: number): string {
  return `${n} answer${n === 1 ? '' : 's'} came from a remote endpoint that failed a later weights check (other weights behind the same name): taken out of the call cache and computed again on endpoints that passed; the stored items use only answers given between two passing checks`;
}

/** The answers a run took out in earlier processes (issue 35 item 1), as stored with it; 0 when none. */
function storedDistrusted(stats: unknown): number {
  const n = (stats as { answersDistrusted?: unknown } | null)?.answersDistrusted;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * The notes stored with a run that its metrics and manifest carry: the design warnings recorded before
 * it ran (issue 34 item 6), then what the run did to its inputs (texts cut to an embedding model's
 * context, `embeddingWarnings`; issue 34 item 8b), so the run page shows them with the other warnings.
 */
function storedRunNotes(stats: Record<string, unknown>): string[] {
  const embedding = Array.isArray(stats.embeddingWarnings) ? stats.embeddingWarnings.filter((w): w is string => typeof w === 'string') : [];
  return [...storedDesignWarnings(stats).map(designWarningNote), ...embedding];
}
