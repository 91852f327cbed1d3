/**
 * Utility labeling (Fair RAG Sec. 3.1, App. B, Algorithm 1) as a resumable job, `labels.utility`:
 *
 *   for each query q with reference answers y and candidates d_1..d_n:
 *     u_0 = μ(y, G(baseline prompt of q))           the "no documents" template
 *     u_j = μ(y, G(augmented prompt of q with d_j)) one document at a time
 *     δ_j = u_j − u_0,  label_j = 1 if δ_j > 0 else 0
 *
 * G is the chosen generator with greedy decoding through `ModelService.engineFor`, whose call
 * cache makes the job idempotent: a resumed or repeated run gets every finished call back from the
 * cache and rewrites nothing that is already stored. Progress counts LLM calls (total known up
 * front); cancellation is checked between calls (and aborts the call in flight, which is not
 * cached). Each query's labels are written in one transaction once its calls are done.
 *
 * Filtering (Fair RAG keeps queries with ≥ 2 useful items, fair-rag.md §5): nothing is deleted
 * and nothing is stored as a flag. Whether a query is kept is read from its stored labels with
 * `minUseful` whenever it is needed (summary, exports, the job report), so a manual override that
 * changes a label changes the filtering with it.
 */
import type { Database } from 'better-sqlite3';
import type { Job } from '../../api/contract/jobs';
import type { LabelExportFormat, LabelPreview, LabelPromptBudget, UtilityLabelReport, UtilityLabelRequest, UtilitySummary } from '../../api/contract/labeling';
import { ModelTokenCounter, type PromptCuts } from '../../core/prompts/index';
import { ApiFailure } from '../../api/router';
import type { CachedEngine } from '../../engine/callCache';
import type { GenerateRequest } from '../../engine/types';
import { RetrievalRepo } from '../../store/retrievalRepo';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { DocumentRow, JsonObject } from '../../store/collectionTypes';
import { forEachUnit, isDeferred, lanesFor, settleAll } from '../../experiments/concurrency';
import { JobCancelledError, type JobContext, type JobRunner } from '../jobRunner';
import type { ModelService } from '../modelService';
import { exportUtilityLabels, measuredProvenance, type LabelExport } from './labelExports';
import { buildLabelPlan, labelBudgets, renderQueryPrompts, type LabelBudgets, type LabelPlan, type PlannedQuery } from './labelPlan';
import { emptyWriteCounts, queriesInOrder, upsertLlmUtilityLabels, usefulCounts, utilityJudgments, type LlmLabel } from './utilityJudgments';

export const UTILITY_JOB_KIND = 'labels.utility';

/** What the job needs of a JobContext (the CLI and tests can pass their own). */
export type LabelingContext = Pick<JobContext, 'signal' | 'progress' | 'throwIfCancelled'>;

export class LabelingService {
  private readonly retrieval: RetrievalRepo;

  constructor(
    private readonly db: Database,
    private readonly jobs: JobRunner,
    private readonly models: ModelService,
    private readonly collections: CollectionsRepo,
  ) {
    this.retrieval = new RetrievalRepo(db);
    jobs.registerKind<UtilityLabelRequest>(UTILITY_JOB_KIND, {
      title: (p) => `Utility labels: ${this.collections.get(p.collectionId)?.name ?? `collection ${p.collectionId}`} with ${this.generatorName(p)}`,
      run: (p, ctx) => this.run(p, ctx),
    });
  }

  /** Check the request (collection, generator, templates, metric, at least one query) and start the job. */
  start(req: UtilityLabelRequest): Job {
    this.models.describe(req.generator);
    this.requireWork(this.plan(req));
    return this.jobs.startKind(UTILITY_JOB_KIND, req);
  }

  /**
   * The prompts of one query (default: the first to label) and the size of the whole request.
   * A budget in 'tokens' needs the generator's tokenizer: use `previewPrompts` (the API does).
   */
  preview(req: UtilityLabelRequest & { previewQueryId?: string | undefined }): LabelPreview {
    if (req.truncation.unit === 'tokens') throw new ApiFailure('validation', "a budget in 'tokens' is counted by the generator's tokenizer: use previewPrompts", 'truncation.unit');
    return this.previewWith(req, this.plan(req), (render) => render());
  }

  /** `preview` for every unit, 'tokens' counted by the generator's tokenizer. */
  async previewPrompts(req: UtilityLabelRequest & { previewQueryId?: string | undefined }): Promise<LabelPreview> {
    const plan = this.plan(req);
    const budgets = await this.budgets(req, plan, this.models.engineFor(req.generator));
    let pending: (() => ReturnType<typeof renderQueryPrompts>) | undefined;
    const preview = this.previewWith(req, { ...plan, budgets }, (render) => {
      pending = render;
      return budgets.tokens ? { baseline: '', augmented: [], cuts: { baseline: undefined, augmented: [] } } : render();
    });
    if (!budgets.tokens || !pending) return preview;
    const prompts = await budgets.tokens.settle(pending);
    return { ...preview, baselinePrompt: prompts.baseline, augmentedPrompt: prompts.augmented[0] ?? null };
  }

  private previewWith(
    req: UtilityLabelRequest & { previewQueryId?: string | undefined },
    plan: LabelPlan,
    renderWith: (render: () => ReturnType<typeof renderQueryPrompts>) => ReturnType<typeof renderQueryPrompts>,
  ): LabelPreview {
    const pq = req.previewQueryId !== undefined ? plan.queries.find((q) => q.query.queryId === req.previewQueryId) : plan.queries[0];
    if (!pq) {
      const skipped = plan.skipped.find((s) => s.queryId === req.previewQueryId);
      if (skipped) throw new ApiFailure('invalid-data', `query '${skipped.queryId}' would be skipped: ${skipped.reason}`, 'previewQueryId');
      this.requireWork(plan);
      throw new ApiFailure('not-found', `query '${req.previewQueryId}' is not among the queries to label`, 'previewQueryId');
    }
    const first = this.documents(req.collectionId, pq.query.queryId, pq.candidateIds.slice(0, 1));
    const prompts = renderWith(() => renderQueryPrompts(pq, first, plan.budgets));
    return {
      queryId: pq.query.queryId,
      task: pq.query.task,
      metric: pq.metric.label,
      templateName: pq.templates.name,
      templates: { augmented: pq.templates.augmented.source, baseline: pq.templates.baseline.source },
      baselinePrompt: prompts.baseline,
      augmentedPrompt: prompts.augmented[0] ?? null,
      augmentedDocId: first[0]?.docId ?? null,
      plan: { queries: plan.queries.length, skipped: plan.skipped.length, calls: plan.calls },
    };
  }

  /** Algorithm 1 over the planned queries; idempotent (see the module comment). */
  async run(req: UtilityLabelRequest, ctx: LabelingContext): Promise<UtilityLabelReport> {
    const plan = this.plan(req);
    const engine = this.models.engineFor(req.generator);
    const generator = this.models.describe(req.generator) as JsonObject;
    const budgets = await this.budgets(req, plan, engine, ctx.signal);
    const budget = budgetTally(req, budgets);
    const counts = emptyWriteCounts();
    const calls = { total: plan.calls, cached: 0, generated: 0 };
    const runSettings = {
      maxTokens: req.maxTokens,
      chat: req.chat,
      ...(req.stop ? { stop: req.stop } : {}),
      truncation: budget.report() === undefined ? null : { ...req.truncation, unit: budget.report()!.unit, total: budgets.total ?? null, origin: budgets.origin ?? null },
      rule: 'delta > 0',
    };
    let done = 0;
    ctx.progress(0, plan.calls, `${plan.queries.length} queries, ${plan.calls} LLM calls`);
    const generate = async (pq: PlannedQuery, position: number, docId: string | null, prompt: string): Promise<string> => {
      ctx.throwIfCancelled();
      const { text, fromCache } = await this.generate(engine, req, prompt, ctx.signal, pq.query.queryId, docId);
      if (fromCache) calls.cached++;
      else calls.generated++;
      done++;
      ctx.progress(done, plan.calls, `query ${pq.query.queryId} (${position}/${plan.queries.length})`);
      return text;
    };
    try {
      // Every query's baseline and augmented prompts go to the engine's work queue at once, queries
      // side by side (the queue bounds what is in flight); a query's labels are written together.
      await forEachUnit(plan.queries.entries(), lanesFor(engine), ctx.signal, async ([qi, pq]) => {
        const { query } = pq;
        const utilityOf = (output: string) => {
          try {
            return pq.metric.utility(output, query.answers);
          } catch (err) {
            throw new ApiFailure('invalid-data', `query '${query.queryId}': ${(err as Error).message}`);
          }
        };
        const docs = this.documents(req.collectionId, query.queryId, pq.candidateIds);
        const prompts = await budget.render(() => renderQueryPrompts(pq, docs, budgets));
        budget.add(prompts.cuts.baseline);
        prompts.cuts.augmented.forEach((c) => budget.add(c));
        const [baselineOutput, ...outputs] = await settleAll([
          generate(pq, qi + 1, null, prompts.baseline),
          ...docs.map((doc, i) => generate(pq, qi + 1, doc.docId, prompts.augmented[i]!)),
        ]);
        const baseline = utilityOf(baselineOutput!);
        const labels: LlmLabel[] = docs.map((doc, i) => {
          const output = outputs[i]!;
          const utility = utilityOf(output);
          const delta = utility - baseline;
          return {
            docId: doc.docId,
            label: delta > 0 ? 1 : 0,
            provenance: {
              generator,
              template: pq.templates.provenance,
              ...pq.metric.provenance,
              baseline,
              utility,
              delta,
              output,
              baselineOutput: baselineOutput!,
              ...runSettings,
              ...promptCutProvenance(prompts.cuts.baseline, prompts.cuts.augmented[i]),
            },
          };
        });
        this.collections.inTransaction(() => upsertLlmUtilityLabels(this.db, req.collectionId, query.queryId, labels, counts));
      });
    } finally {
      // Always, not only when this run wrote: a run killed between its last write and this line
      // leaves a stale hash that the resumed (write-free) run must still fix.
      this.collections.refreshContentHash(req.collectionId);
    }
    const useful = usefulCounts(this.db, req.collectionId, plan.queries.map((q) => q.query.queryId));
    const kept = [...useful.values()].filter((n) => n >= req.minUseful).length;
    const dropped = plan.queries.length - kept;
    ctx.progress(done, plan.calls, `labelled ${plan.queries.length} queries (${calls.generated} calls generated, ${calls.cached} cached): ${kept} kept, ${dropped} with fewer than ${req.minUseful} useful dropped${plan.skipped.length ? `, ${plan.skipped.length} skipped` : ''}`);
    return {
      collectionId: req.collectionId,
      queries: plan.queries.length,
      skipped: plan.skipped,
      calls,
      judgments: counts,
      minUseful: req.minUseful,
      kept,
      dropped,
      contentHash: this.collections.get(req.collectionId)!.contentHash,
      ...(budget.report() ? { promptBudget: budget.report()! } : {}),
    };
  }

  summary(collectionId: number, minUseful: number): UtilitySummary {
    this.requireCollection(collectionId);
    const byQuery = new Map<string, ReturnType<typeof utilityJudgments>>();
    for (const j of utilityJudgments(this.db, collectionId)) {
      const list = byQuery.get(j.queryId) ?? [];
      list.push(j);
      byQuery.set(j.queryId, list);
    }
    const queries: UtilitySummary['queries'] = [];
    const order = queriesInOrder(this.db, collectionId);
    for (const q of order) {
      const list = byQuery.get(q.queryId);
      if (!list) continue;
      const useful = list.filter((j) => j.label > 0).length;
      const sources = { import: 0, llm: 0, manual: 0 };
      for (const j of list) sources[j.source]++;
      // The first label with a measurement names baseline, metric and generator (all labels of a query share them).
      const prov = list.map(measuredProvenance).find((p) => p !== undefined) ?? list[0]!.provenance;
      queries.push({
        queryId: q.queryId,
        task: q.task,
        n: list.length,
        useful,
        baseline: typeof prov.baseline === 'number' ? prov.baseline : null,
        metric: typeof prov.metric === 'string' ? (typeof prov.metricImpl === 'string' ? `${prov.metric} (${prov.metricImpl})` : prov.metric) : null,
        generator: generatorLabel(prov.generator),
        sources,
        kept: useful >= minUseful,
      });
    }
    const kept = queries.filter((q) => q.kept).length;
    return {
      minUseful,
      queries,
      totals: {
        queries: order.length,
        labelled: queries.length,
        kept,
        dropped: queries.length - kept,
        judgments: queries.reduce((s, q) => s + q.n, 0),
        useful: queries.reduce((s, q) => s + q.useful, 0),
      },
    };
  }

  export(collectionId: number, format: LabelExportFormat, minUseful: number): LabelExport {
    const c = this.requireCollection(collectionId);
    return exportUtilityLabels(format, { collectionName: c.name, queries: queriesInOrder(this.db, collectionId), judgments: utilityJudgments(this.db, collectionId), minUseful });
  }

  // ---- internals ---------------------------------------------------------------------------

  private plan(req: UtilityLabelRequest): LabelPlan {
    return buildLabelPlan({ collections: this.collections, retrieval: this.retrieval }, req);
  }

  /** The plan's budgets, or with unit 'tokens' the generator's tokenizer (its context size probed) and the budgets it counts. */
  private async budgets(req: UtilityLabelRequest, plan: LabelPlan, engine: Pick<CachedEngine, 'tokenize'>, signal?: AbortSignal): Promise<LabelBudgets> {
    if (req.truncation.unit !== 'tokens') return plan.budgets;
    const tokens = new ModelTokenCounter(
      (texts, maxTokens, asPrompt) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }, signal),
      undefined,
      req.chat ? 'chat' : 'text',
    );
    await tokens.probe();
    return labelBudgets(req.truncation, req.maxTokens, tokens);
  }

  private requireWork(plan: LabelPlan): void {
    if (plan.queries.length > 0) return;
    const reasons = [...new Set(plan.skipped.map((s) => s.reason))];
    throw new ApiFailure('invalid-data', plan.skipped.length ? `nothing to label: every query is skipped (${reasons.join('; ')})` : 'nothing to label: no queries match');
  }

  private async generate(engine: CachedEngine, req: UtilityLabelRequest, prompt: string, signal: AbortSignal, queryId: string, docId: string | null): Promise<{ text: string; fromCache: boolean }> {
    const request: GenerateRequest = {
      ...(req.chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
      maxTokens: req.maxTokens,
      sampling: { temperature: 0 },
      ...(req.stop ? { stop: req.stop } : {}),
    };
    let result;
    let fromCache;
    try {
      ({ result, fromCache } = await engine.generateTracked(request, signal));
    } catch (err) {
      if (signal.aborted) throw new JobCancelledError();
      if (isDeferred(err)) throw err;
      const where = docId === null ? `query '${queryId}' (baseline)` : `query '${queryId}', document '${docId}'`;
      throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
    }
    if (result.finishReason === 'aborted') throw new JobCancelledError();
    return { text: result.text, fromCache };
  }

  /** The documents of `ids`, in order (the plan checked they exist). */
  private documents(collectionId: number, queryId: string, ids: readonly string[]): DocumentRow[] {
    return ids.map((id) => {
      const d = this.collections.getDocument(collectionId, id);
      if (!d) throw new ApiFailure('invalid-data', `query '${queryId}': candidate '${id}' is no longer in the collection`);
      return d;
    });
  }

  private requireCollection(collectionId: number) {
    const c = this.collections.get(collectionId);
    if (!c) throw new ApiFailure('not-found', `no collection with id ${collectionId}`, 'collectionId');
    return c;
  }

  private generatorName(p: UtilityLabelRequest): string {
    try {
      return String(this.models.describe(p.generator).name);
    } catch {
      return p.generator.kind === 'local' ? `model ${p.generator.modelId}` : `server ${p.generator.endpointId}`;
    }
  }
}

/** What the budget cut in one label's prompts, for its provenance (nothing when nothing was cut). */
function promptCutProvenance(baseline: PromptCuts | undefined, augmented: PromptCuts | undefined): JsonObject {
  const out: JsonObject = {};
  if (augmented) {
    out.promptCut = {
      document: augmented.documentsDropped > 0 ? 'left out' : augmented.documentsCut > 0 ? 'shortened' : 'kept',
      queryCut: augmented.queryCut,
      endCut: augmented.endCut,
    };
  }
  if (baseline) out.baselinePromptCut = { queryCut: baseline.queryCut, endCut: baseline.endCut };
  return out;
}

/**
 * Renders a job's prompts within its budgets (one query at a time through the token counter, whose
 * settle passes must not interleave) and counts what the budget cut, for the report.
 */
function budgetTally(req: UtilityLabelRequest, budgets: LabelBudgets) {
  const tokens = budgets.tokens;
  const all: PromptCuts[] = [];
  let prompts = 0;
  return {
    render<T>(compute: () => T): Promise<T> {
      return tokens ? tokens.settleInTurn(compute) : Promise.resolve(compute());
    },
    add(c: PromptCuts | undefined): void {
      prompts++;
      if (c) all.push(c);
    },
    report(): LabelPromptBudget | undefined {
      const t = req.truncation;
      if (t.unit === 'none') return undefined;
      const estimated = tokens?.sources.has('estimate') === true;
      return {
        unit: estimated ? 'estimated tokens' : t.unit,
        total: budgets.total ?? null,
        origin: budgets.origin ?? 'none',
        queryMax: t.queryMax,
        truncate: t.truncate,
        counts: tokens
          ? `every token the engine evaluates for the prompt: ${tokens.promptMode === 'chat' ? 'the chat template around one user message' : 'the beginning-of-sequence token'} (maxTokens are left free)`
          : `the rendered prompt in ${t.unit} (not checked against the context size)`,
        ...(estimated && tokens?.estimate ? { estimate: tokens.estimate } : {}),
        prompts,
        promptsCut: all.length,
        documentsCut: all.reduce((a, c) => a + c.documentsCut, 0),
        documentsDropped: all.reduce((a, c) => a + c.documentsDropped, 0),
        queriesCut: all.filter((c) => c.queryCut).length,
      };
    },
  };
}

function generatorLabel(g: unknown): string | null {
  if (typeof g === 'string') return g;
  if (g && typeof g === 'object' && typeof (g as { name?: unknown }).name === 'string') return (g as { name: string }).name;
  return null;
}
