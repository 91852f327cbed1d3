/**
 * Fairground as a client of distributed engines (issue 13): a run's calls can leave the process and
 * come back as cache entries, and a workspace's cache can absorb another's.
 *
 *   run with a policy   execute a run where uncached calls are computed, deferred, or computed only
 *                       for one shard (engine/queue/callPolicy.ts); reports what was deferred
 *   export              the deferred calls of the next runnable stage as OpenAI-Batch JSONL (vLLM
 *                       `run-batch`, one GPU or a Ray cluster); each exported call is remembered with
 *                       its request lines (and a generation's prompt token count, where the server
 *                       can tokenize) so the results can be checked on import
 *   import              an OpenAI-Batch output file: every response is checked against its request
 *                       (custom_id, model, status, readable body), a bad line refuses the whole file
 *                       naming the line, and the good calls fill the cache in one transaction
 *   merge               other workspaces' call caches (shards): same key with another response is an
 *                       error naming the key; nothing is written unless everything merges
 *   estimate            a dry run: what a run would compute (per model and operation), what the
 *                       cache already answers, prompt tokens, and a time from this engine's measured
 *                       throughput (the cache's recorded durations) and its queue's bound
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { DesignWarning } from '../api/contract/plans';
import { ApiFailure } from '../api/apiFailure';
import { canonicalJson } from '../core/canonicalJson';
import { DataError, quoteValue } from '../core/errors';
import { CallsDeferredError, type CallPolicy, type DeferredCall } from '../engine/queue/callPolicy';
import { RunCalls } from '../engine/queue/runCalls';
import { BatchRouteError, batchRequestLines, resultFromBatch, type BatchRequestLine, type BatchRoutes, type BatchSettings } from '../engine/remote/batchCodec';
import { EngineError, type EmbedRequest, type GenerateRequest, type ScoreRequest } from '../engine/types';
import { SimEngine } from '../engine/sim/simEngine';
import { estimateTokenCount } from '../engine/tokenBudget';
import { claimedByLiveRun } from '../store/callCacheRepo';
import { checkMergeSource } from '../store/mergeSource';
import type { CallCacheRepo } from '../store/callCacheRepo';
import type { ExperimentService } from './experimentService';
import type { WorkContext } from '../experiments/registry';

export interface PolicyRunOutcome {
  runId: number;
  /** Whether the run finished (nothing deferred). */
  finished: boolean;
  message: string;
  calls: RunCalls;
}

export interface CostLine {
  model: string;
  op: 'generate' | 'score' | 'embed';
  toCompute: number;
  /** Prompt characters of the calls to compute (÷ 4 ≈ tokens for English text). */
  promptChars: number;
  /** Mean engine time per call measured on this model (recent cached calls), or null when never measured. */
  meanCallMs: number | null;
  /** Calls the engine's queue keeps in flight. */
  concurrency: number;
  etaSeconds: number | null;
  /** The stage of the plan (1: prompts known before anything runs; later: after the answers they depend on). */
  stage?: number;
  /** What the calls are for, read from the requests (answers, constrained answers, scoring, embeddings). */
  purpose?: string;
  /** A later stage's count: an estimate (its prompts depend on outputs not computed yet). */
  estimated?: boolean;
}

export interface CostStage {
  stage: number;
  toCompute: number;
  estimated: boolean;
  /** How the stage was counted, in words. */
  basis: string;
}

export interface CostEstimate {
  runId: number | null;
  fromCache: number;
  toCompute: number;
  lines: CostLine[];
  etaSeconds: number | null;
  /** False when later stages depend on outputs not computed yet (they are priced once those exist). */
  complete: boolean;
  note: string;
  /** The spec's design warnings (issue 23 item 5); [] when none. */
  warnings: DesignWarning[];
  /** Calls per stage of the plan (issue 26 item 2): stage 1 exact, later stages estimates. */
  stages?: CostStage[];
}

interface ImportLine {
  line: number;
  key: string;
  part: number;
  body: unknown;
}

interface BatchRow {
  model_key: string;
  op: 'generate' | 'score' | 'embed';
  request: unknown;
  lines: BatchRequestLine[];
  /** Prompt tokens per custom_id as counted at export (lines whose prompt a tokenizer counted). */
  promptTokens: Record<string, number>;
}

export interface ImportReport {
  /** New cache entries. */
  calls: number;
  /** Lines read (answered or failed). */
  lines: number;
  /** Calls that still miss some of their lines. */
  incomplete: number;
  /** Calls the cache already held with the same answer. */
  alreadyHere: number;
  /** Calls of the file answered in the cache whose export record is gone (workspaces before issue 24): not compared. */
  notCompared: number;
  /** Calls the cache already held with another answer (the stored one stays). */
  disagreements: { key: string; line: number }[];
  /** Calls a live run is computing now (it withdrew the export): left to it. */
  computingElsewhere: number;
  /** Lines the batch engine answered with an error: their calls stay exported. */
  failed: { line: number; customId: string; message: string }[];
  /** Generation lines whose prompt no tokenizer counted at export: their usage.prompt_tokens proved nothing. */
  uncounted: number;
}

export class BatchPlanService {
  constructor(
    private readonly db: Database,
    private readonly experiments: ExperimentService,
    private readonly cache: CallCacheRepo,
  ) {}

  /** Execute a run under a policy; a run that deferred calls ends interrupted (resumable), not failed. */
  async runWithPolicy(runId: number, policy: CallPolicy, ctx: WorkContext): Promise<PolicyRunOutcome> {
    const calls = new RunCalls();
    try {
      await this.experiments.executeRun(runId, ctx, { policy, calls });
      return { runId, finished: true, message: `finished (${calls.computed} computed, ${calls.hits} from the cache)`, calls };
    } catch (err) {
      if (err instanceof CallsDeferredError) return { runId, finished: false, message: err.message, calls };
      throw err;
    }
  }

  /**
   * The OpenAI-Batch lines of every call of the run's next runnable stage that the cache cannot
   * answer. Remembers each call with its lines (for import); an empty list means the run can finish
   * from the cache. With `vllm-run-batch` routes, calls that vLLM's run-batch cannot express
   * (plain-prompt generation, scoring) refuse the whole export, counted by reason, before anything
   * is remembered or written.
   */
  async exportPlan(runId: number, ctx: WorkContext, routes: BatchRoutes = 'completions'): Promise<{ outcome: PolicyRunOutcome; lines: BatchRequestLine[]; calls: number }> {
    const outcome = await this.runWithPolicy(runId, { mode: 'defer' }, ctx);
    const deferred = outcome.calls.deferred();
    const refused = new Map<string, { count: number; example: string }>();
    const exported: { call: DeferredCall; lines: BatchRequestLine[] }[] = [];
    for (const call of deferred) {
      try {
        exported.push({ call, lines: batchRequestLines(call.key, call.op, call.request, batchSettingsOf(call), routes) });
      } catch (err) {
        if (!(err instanceof BatchRouteError) && !(routes === 'vllm-run-batch' && err instanceof EngineError && err.code === 'unsupported')) throw err;
        const reason = err.message;
        const r = refused.get(reason) ?? { count: 0, example: call.key };
        r.count++;
        refused.set(reason, r);
      }
    }
    if (refused.size > 0) {
      const reasons = [...refused.entries()].map(([reason, r]) => `${r.count} call(s) (e.g. ${r.example.slice(0, 12)}…): ${reason}`);
      throw new DataError(
        `--format openai-batch writes only lines vLLM's run-batch accepts, and ${deferred.length - exported.length} of this stage's ${deferred.length} call(s) have none: ${reasons.join('; ')}. Nothing was written. What works instead: serve the model with \`vllm serve\` and add it as an endpoint pool (fairground remote add NAME --url http://HOST:8000/v1 --model M, more endpoints with fairground remote endpoints), whose /v1/completions takes raw prompts and echo scoring, then fairground run SPEC; or --format openai-batch-completions for a server that takes /v1/completions lines (llama.cpp's llama-server, a vllm serve endpoint behind an OpenAI-Batch gateway); or a spec with chat: true where its kind has it (the prompt then goes through the model's chat template: a different prompt)`,
        { field: 'format' },
      );
    }
    // Each generation's prompt counted by the server's own tokenizer, as the answer's usage will count it.
    const counts: (Record<string, number> | null)[] = [];
    for (const { call, lines } of exported) counts.push(await exportedPromptTokens(call, lines, ctx.signal));
    const now = new Date().toISOString();
    const remember = this.db.prepare(
      `INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at, prompt_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET lines = excluded.lines, exported_at = excluded.exported_at, prompt_tokens = excluded.prompt_tokens`,
    );
    this.db.transaction(() => {
      exported.forEach(({ call, lines }, i) => remember.run(call.key, call.modelKey, call.op, JSON.stringify(call.request), JSON.stringify(lines), now, counts[i] ? JSON.stringify(counts[i]) : null));
    })();
    return { outcome, lines: exported.flatMap((e) => e.lines), calls: exported.length };
  }

  /**
   * Fill the cache from an OpenAI-Batch output file (vLLM run-batch's lines: `{id, custom_id,
   * response: {status_code, request_id, body} | null, error}`).
   *
   * A line that is not what its request asked for refuses the whole file, naming file:line and
   * custom_id: not JSON, a custom_id this workspace did not export, another model, or a response the
   * evidence it carries contradicts (see checkEvidence: an echoed prompt that is not the request's,
   * token counts that do not add up, more tokens than max_tokens, one prompt counted two ways, a
   * usage.prompt_tokens other than the count the server's tokenizer gave the request's prompt at
   * export).
   * A line the batch engine answered with an error is reported and its call left for the next
   * export. A call already in the cache is compared, not counted again: the same answer is "already
   * here", another answer is a disagreement reported per call (the stored answer stays). A call a
   * live `fairground run` is computing at this moment (it withdrew the export) is left to that run.
   */
  importResults(text: string, file: string): ImportReport {
    const name = basename(file);
    const parsed: ImportLine[] = [];
    const failed: ImportReport['failed'] = [];
    const seen = new Set<string>();
    const rows = new Map<string, BatchRow>();
    const promptTokens = new Map<string, { tokens: number; line: number; customId: string }>();
    const getRow = this.db.prepare(`SELECT model_key, op, request, lines, prompt_tokens FROM batch_calls WHERE key = ?`);
    const lines = text.split('\n');
    let unknownDone = 0;
    let uncounted = 0;
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!.replace(/\r$/, '');
      if (raw.trim() === '') continue;
      const at = { file, line: i + 1 };
      let obj: { custom_id?: unknown; response?: { status_code?: unknown; body?: unknown } | null; error?: unknown };
      try {
        obj = JSON.parse(raw) as typeof obj;
      } catch (err) {
        throw new DataError(`not JSON: ${(err as Error).message.split('\n')[0]}`, at);
      }
      if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new DataError('expected a JSON object (an OpenAI-Batch output line)', at);
      const customId = obj.custom_id;
      if (typeof customId !== 'string' || !/^[0-9a-f]{64}(#\d+)?$/.test(customId)) throw new DataError(`custom_id must be a call key exported by fairground plan export, got ${quoteValue(customId)}`, { ...at, field: 'custom_id' });
      if (seen.has(customId)) throw new DataError(`custom_id ${customId} appears twice`, { ...at, field: 'custom_id' });
      seen.add(customId);
      const id = { ...at, field: `custom_id ${customId}` };
      const [key, part] = customId.split('#') as [string, string | undefined];
      let row = rows.get(key);
      if (!row) {
        const r = getRow.get(key) as { model_key: string; op: 'generate' | 'score' | 'embed'; request: string; lines: string; prompt_tokens: string | null } | undefined;
        if (!r) {
          if (this.cache.get(key)) {
            unknownDone++;
            continue; // imported before: nothing to do
          }
          throw new DataError(`custom_id ${customId} was not exported from this workspace (fairground plan export)`, { ...at, field: 'custom_id' });
        }
        row = { model_key: r.model_key, op: r.op, request: JSON.parse(r.request) as unknown, lines: JSON.parse(r.lines) as BatchRequestLine[], promptTokens: r.prompt_tokens ? (JSON.parse(r.prompt_tokens) as Record<string, number>) : {} };
        rows.set(key, row);
      }
      const request = row.lines.find((l) => l.custom_id === customId);
      if (!request) throw new DataError(`custom_id ${customId} is not one of the call's exported requests`, { ...at, field: 'custom_id' });
      const status = obj.response?.status_code;
      const body = obj.response?.body;
      if ((obj.error !== null && obj.error !== undefined) || status !== 200 || body === null || body === undefined) {
        failed.push({ line: i + 1, customId, message: batchErrorText(obj.error, status) });
        continue;
      }
      const model = (body as { model?: unknown }).model;
      if (typeof model === 'string' && model !== request.body.model) throw new DataError(`answered by model ${quoteValue(model)}, but the request asked for ${quoteValue(String(request.body.model))}`, { ...id, field: 'response.body.model' });
      const problem = checkEvidence(request, body);
      if (problem) throw new DataError(`${customId}: the response does not answer its request: ${problem}`, { ...at, field: 'response.body' });
      const tokens = (body as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
      const counted = row.promptTokens[customId];
      if (counted === undefined && row.op === 'generate') uncounted++;
      if (counted !== undefined && tokens !== counted) {
        const said = typeof tokens === 'number' ? `usage.prompt_tokens is ${tokens}` : 'it carries no usage.prompt_tokens';
        throw new DataError(`${customId}: the response does not answer its request: ${said}, but the request's prompt was counted ${counted} tokens at export (by the server's tokenizer)`, { ...at, field: 'response.body.usage.prompt_tokens' });
      }
      if (typeof tokens === 'number') {
        const promptId = `${request.url}\n${JSON.stringify(request.body.messages ?? request.body.prompt ?? null)}`;
        const before = promptTokens.get(promptId);
        if (before && before.tokens !== tokens) {
          throw new DataError(`${customId}: the response does not answer its request: usage.prompt_tokens is ${tokens}, but line ${before.line} (${before.customId}) sent the same prompt and was counted ${before.tokens} tokens`, { ...at, field: 'response.body.usage.prompt_tokens' });
        }
        if (!before) promptTokens.set(promptId, { tokens, line: i + 1, customId });
      }
      parsed.push({ line: i + 1, key, part: part === undefined ? 0 : Number(part), body });
    }

    // Assemble whole calls; a call with every part answered becomes a cache entry.
    const byKey = new Map<string, ImportLine[]>();
    for (const p of parsed) {
      const list = byKey.get(p.key) ?? [];
      list.push(p);
      byKey.set(p.key, list);
    }
    const failedKeys = new Set(failed.map((f) => f.customId.split('#')[0]!));
    const entries: { key: string; line: number; modelKey: string; op: 'generate' | 'score' | 'embed'; request: unknown; response: unknown }[] = [];
    let incomplete = 0;
    for (const [key, parts] of byKey) {
      const row = rows.get(key)!;
      if (parts.length < row.lines.length) {
        if (!failedKeys.has(key)) incomplete++;
        continue;
      }
      parts.sort((a, b) => a.part - b.part);
      try {
        const response = resultFromBatch(row.op, row.request, row.lines, parts.map((p) => p.body));
        entries.push({ key, line: parts[0]!.line, modelKey: row.model_key, op: row.op, request: row.request, response });
      } catch (err) {
        throw new DataError(`${key}: the response does not answer its request: ${(err as Error).message}`, { file, line: parts[0]!.line, field: 'response.body' });
      }
    }

    // One write transaction: a live run claims a call (withdrawing its export) in a transaction of
    // its own, so each call ends with exactly one answer whichever comes first.
    const report: ImportReport = { calls: 0, lines: parsed.length + failed.length, incomplete, alreadyHere: 0, notCompared: unknownDone, disagreements: [], computingElsewhere: 0, failed, uncounted };
    const stored = this.db.prepare(`SELECT response FROM llm_call_cache WHERE key = ?`);
    const state = this.db.prepare(`SELECT exported_at FROM batch_calls WHERE key = ?`);
    const insert = this.db.prepare(
      `INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms, served_by) VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
    );
    // The export records stay (a later import of the same calls is compared against the cache).
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const e of entries) {
        const here = stored.get(e.key) as { response: string } | undefined;
        const response = JSON.stringify(e.response);
        if (here) {
          if (sameJson(here.response, response)) report.alreadyHere++;
          else report.disagreements.push({ key: e.key, line: e.line });
          continue;
        }
        const st = state.get(e.key) as { exported_at: string } | undefined;
        if (st && claimedByLiveRun(st.exported_at)) {
          report.computingElsewhere++;
          continue;
        }
        insert.run(e.key, e.modelKey, e.op, JSON.stringify(e.request), response, now, `batch:${name}`);
        report.calls++;
      }
    }).immediate();
    return report;
  }

  /**
   * Merge other workspaces' call caches into this one. Each source is checked first and refused
   * whole, naming it: not a Fairground workspace, a newer schema than this Fairground knows, damaged
   * (what `fairground workspace check` finds: quick_check, foreign keys), or cache rows that are not
   * valid JSON (named by key). Calls with another answer here are listed, every one of them, and
   * nothing of that source is merged.
   */
  merge(files: readonly string[]): { added: number; alreadyHere: number } {
    let added = 0;
    let alreadyHere = 0;
    for (const file of files) checkMergeSource(file);
    for (const file of files) {
      this.db.prepare(`ATTACH DATABASE ? AS other`).run(file);
      try {
        const isWorkspace = this.db.prepare(`SELECT 1 FROM other.sqlite_master WHERE type = 'table' AND name = 'llm_call_cache'`).get();
        if (!isWorkspace) throw new DataError('not a Fairground workspace (no call cache)', { file });
        const columns = (this.db.prepare(`SELECT name FROM pragma_table_info('llm_call_cache', 'other')`).all() as { name: string }[]).map((c) => c.name);
        if (!columns.includes('computations')) throw new DataError('written by an older Fairground: open it once with this version (fairground workspace migrate) before merging', { file });
        // In SQL, one transaction: every disagreeing call is named and nothing is written if there is one.
        this.db.transaction(() => {
          const conflicts = (
            this.db.prepare(`SELECT o.key AS key, o.response AS theirs, m.response AS ours FROM other.llm_call_cache o JOIN main.llm_call_cache m ON m.key = o.key WHERE m.response <> o.response`).all() as {
              key: string;
              theirs: string;
              ours: string;
            }[]
          ).filter((c) => !sameJson(c.theirs, c.ours));
          if (conflicts.length > 0) {
            const shown = conflicts.slice(0, 20).map((c) => c.key);
            throw new DataError(
              `${shown.map((k) => `call ${k} has a different response here than in this file`).join('; ')}${conflicts.length > shown.length ? `; and ${conflicts.length - shown.length} more call(s)` : ''}: the caches disagree on ${conflicts.length} call(s) (a nondeterministic engine, or different weights behind one model name); nothing of this file was merged`,
              { file, field: 'llm_call_cache' },
            );
          }
          alreadyHere += (this.db.prepare(`SELECT count(*) AS n FROM other.llm_call_cache o JOIN main.llm_call_cache m ON m.key = o.key`).get() as { n: number }).n;
          added += this.db
            .prepare(
              `INSERT INTO main.llm_call_cache(key, model_key, op, request, response, created_at, duration_ms, computations, served_by)
               SELECT key, model_key, op, request, response, created_at, duration_ms, computations, served_by FROM other.llm_call_cache o
               WHERE NOT EXISTS (SELECT 1 FROM main.llm_call_cache m WHERE m.key = o.key)`,
            )
            .run().changes;
        })();
      } finally {
        this.db.prepare(`DETACH DATABASE other`).run();
      }
    }
    return { added, alreadyHere };
  }

  /**
   * What running the experiment would cost, without calling any engine: a throwaway run of the
   * current spec (items and run are deleted afterwards; nothing is computed, nothing is cached),
   * walked stage by stage (issue 26 item 2). Stage 1 is the calls the plan asks for before any
   * answer exists (their prompts are known: exact). Each uncached call then gets a stand-in answer
   * — the simulated reader's own (deterministic, so exactly what the run will get), for any other
   * engine a well-formed placeholder (a distinct text per call; the first choice of a constraint) —
   * and the run goes on to the calls that depend on those answers: stage 2, and so on until the
   * plan finishes. Later stages are marked as estimates.
   */
  async estimate(experimentId: number, signal: AbortSignal): Promise<CostEstimate> {
    const experiment = this.experiments.repo.experiment(experimentId);
    if (!experiment) throw new ApiFailure('not-found', `no experiment with id ${experimentId}`, 'id');
    const run = this.experiments.repo.createRun({ experimentId, spec: experiment.spec, specVersion: experiment.version, throwaway: true });
    try {
      const standIns = new Map<string, unknown>();
      const stages: DeferredCall[][] = [];
      const hitKeys = new Set<string>();
      const placeholders = new Set<number>();
      let stoppedBy: string | null = null;
      for (;;) {
        let outcome: PolicyRunOutcome;
        try {
          outcome = await this.runWithPolicy(run.id, { mode: 'estimate', standIns }, { signal, progress: () => {} });
        } catch (err) {
          // A first stage that fails is the spec's error; a later one may fail on a placeholder answer.
          if (stages.length === 0 || signal.aborted) throw err;
          stoppedBy = `stage ${stages.length + 1} could not be walked with stand-in answers (${(err as Error).message.slice(0, 200)})`;
          break;
        }
        for (const k of outcome.calls.hitKeys) hitKeys.add(k);
        if (outcome.finished) break;
        const fresh = outcome.calls.deferred().filter((c) => !standIns.has(c.key));
        if (fresh.length === 0) {
          stoppedBy = `the run stopped after stage ${stages.length} without asking for new calls (${outcome.message})`;
          break;
        }
        stages.push(fresh);
        if (stages.length >= MAX_ESTIMATE_STAGES) {
          stoppedBy = `the plan has more than ${MAX_ESTIMATE_STAGES} stages; later ones are not priced`;
          break;
        }
        for (const call of fresh) {
          const answer = await standInAnswer(call, signal);
          if (answer.placeholder) placeholders.add(stages.length);
          standIns.set(call.key, answer.result);
        }
      }
      // Hits of calls a later stage found in the cache are counted once (a resumed unit asks again).
      const warnings = await this.experiments.designWarnings(experiment.spec);
      return { ...(await this.price(stages, hitKeys.size, stoppedBy, placeholders)), warnings };
    } finally {
      this.experiments.repo.deleteRun(run.id);
    }
  }


  /**
   * The cost of a spec not stored yet (the wizard's review step): the spec is validated as
   * experiments.validateSpec does (an invalid one is refused naming its field), then priced like
   * estimate() through a throwaway experiment that is deleted afterwards with its run.
   */
  async estimateSpec(raw: unknown, signal: AbortSignal): Promise<CostEstimate> {
    const v = this.experiments.validateSpec(raw);
    if (!v.ok || !v.spec) {
      const first = v.issues[0];
      const field = first?.path ? `spec.${first.path}` : 'spec';
      throw new ApiFailure('validation', `${field}: ${first?.message ?? 'invalid spec'}`, field);
    }
    const experiment = this.experiments.repo.createExperiment({ kind: String(v.spec.kind), name: `(cost estimate ${randomUUID()})`, spec: v.spec, throwaway: true });
    try {
      return await this.estimate(experiment.id, signal);
    } finally {
      this.experiments.repo.deleteExperiment(experiment.id);
    }
  }

  private async price(stages: readonly DeferredCall[][], fromCache: number, stoppedBy: string | null, placeholders: ReadonlySet<number>): Promise<Omit<CostEstimate, 'warnings'>> {
    const lines: CostLine[] = [];
    const stageSummaries: CostStage[] = [];
    for (const [index, calls] of stages.entries()) {
      const stage = index + 1;
      const groups = new Map<string, { calls: DeferredCall[]; name: string; concurrency: number }>();
      for (const call of calls) {
        const id = `${call.modelKey}\n${call.op}\n${callPurpose(call)}`;
        let g = groups.get(id);
        if (!g) {
          const identity = await call.engine.identity();
          const capacity = (call.engine as { capacity?: () => number }).capacity?.() ?? 1;
          g = { calls: [], name: identity.modelName, concurrency: capacity };
          groups.set(id, g);
        }
        g.calls.push(call);
      }
      for (const g of groups.values()) {
        const { op, modelKey } = g.calls[0]!;
        const meanCallMs = this.cache.meanDurationMs(modelKey, op);
        const concurrency = Math.max(1, g.concurrency);
        lines.push({
          model: g.name,
          op,
          toCompute: g.calls.length,
          promptChars: g.calls.reduce((a, c) => a + promptChars(c), 0),
          meanCallMs,
          concurrency,
          etaSeconds: meanCallMs === null ? null : Math.round((meanCallMs * g.calls.length) / concurrency / 1000),
          stage,
          purpose: callPurpose(g.calls[0]!),
          estimated: stage > 1,
        });
      }
      stageSummaries.push({
        stage,
        toCompute: calls.length,
        estimated: stage > 1,
        basis:
          stage === 1
            ? 'the prompts are known: exact'
            : placeholders.has(stage - 1)
              ? 'estimated: the outputs of the stage before are not known, placeholders stood in for them (one distinct output per call, so calls that depend on distinct outputs are counted at most)'
              : "estimated: counted with the simulated reader's own answers to the stage before (deterministic, so the run asks for these)",
      });
    }
    const eta = lines.every((l) => l.etaSeconds !== null) ? lines.reduce((a, l) => a + l.etaSeconds!, 0) : null;
    const toCompute = lines.reduce((a, l) => a + l.toCompute, 0);
    const later = stageSummaries.filter((st) => st.estimated).reduce((a, st) => a + st.toCompute, 0);
    const complete = stoppedBy === null;
    return {
      runId: null,
      fromCache,
      toCompute,
      lines,
      etaSeconds: toCompute === 0 ? 0 : eta,
      complete,
      note:
        toCompute === 0
          ? 'every call is in the cache'
          : `${stages.length} stage(s); ${stageSummaries[0]?.toCompute ?? 0} call(s) of stage 1 are exact${later > 0 ? `, the ${later} call(s) of later stages are estimates (their prompts depend on outputs not computed yet)` : ''}${complete ? '' : `; not priced further: ${stoppedBy}`}`,
      stages: stageSummaries,
    };
  }
}

/** More stages than any kind has (RichRAG's list-wise ranker takes one stage per chosen document). */
const MAX_ESTIMATE_STAGES = 40;

/** What a call is for, read from its request's shape (a cost line per model, operation and purpose). */
function callPurpose(call: DeferredCall): string {
  const r = call.request as { jsonSchema?: unknown; grammar?: unknown; continuations?: unknown; texts?: unknown };
  if (call.op === 'embed') return 'embeddings';
  if (call.op === 'score') return 'scoring';
  if (r.jsonSchema !== undefined || r.grammar !== undefined) return 'constrained answers (judgments, choices)';
  return 'answers';
}

/**
 * The answer a cost estimate lets a call have, so that the stages after it can be walked: the
 * simulated reader computes its own (in memory, not stored: it is deterministic and free); any
 * other engine's call gets a well-formed placeholder.
 */
async function standInAnswer(call: DeferredCall, signal: AbortSignal): Promise<{ result: unknown; placeholder: boolean }> {
  if (call.engine instanceof SimEngine) {
    const e = call.engine;
    const result = call.op === 'generate' ? await e.generate(call.request as GenerateRequest, signal) : call.op === 'score' ? await e.score(call.request as ScoreRequest, signal) : await e.embed(call.request as EmbedRequest, signal);
    return { result, placeholder: false };
  }
  return { result: placeholderAnswer(call), placeholder: true };
}

/**
 * A placeholder answer of the right shape: a generation is a text distinct per call (so stages that
 * count distinct outputs count at most), or the first value its JSON schema or grammar allows; a
 * score gives every continuation log-probability −1 per token; an embedding is a unit vector from
 * the call's key.
 */
export function placeholderAnswer(call: Pick<DeferredCall, 'key' | 'op' | 'request'>): unknown {
  if (call.op === 'score') {
    const r = call.request as ScoreRequest;
    return {
      promptTokens: estimateTokenCount(r.prompt),
      scores: r.continuations.map((c) => {
        const tokens = c.match(/\s+|\S+/g) ?? [c];
        return { tokens, logprobs: tokens.map(() => -1), sum: -tokens.length, mean: -1 };
      }),
    };
  }
  if (call.op === 'embed') {
    const r = call.request as EmbedRequest;
    const dims = 8;
    return { dimensions: dims, vectors: r.texts.map((_t, i) => Array.from({ length: dims }, (_v, j) => (j === (i + parseInt(call.key.slice(0, 4), 16)) % dims ? 1 : 0))) };
  }
  const r = call.request as GenerateRequest & { jsonSchema?: Record<string, unknown>; grammar?: string };
  let text = `(placeholder ${call.key.slice(0, 12)})`;
  if (r.jsonSchema) text = JSON.stringify(schemaInstance(r.jsonSchema));
  else if (typeof r.grammar === 'string') text = /^\s*root\s*::=\s*"((?:[^"\\]|\\.)*)"/m.exec(r.grammar)?.[1] ?? '';
  return { text, promptTokens: estimateTokenCount(r.prompt ?? ''), completionTokens: 1, finishReason: 'stop' };
}

function schemaInstance(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object') {
    const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, schemaInstance(v)]));
  }
  if (type === 'array') {
    const n = typeof schema.minItems === 'number' ? schema.minItems : 1;
    const items = (schema.items ?? {}) as Record<string, unknown>;
    return Array.from({ length: n }, () => schemaInstance(items));
  }
  if (type === 'string') return typeof schema.minLength === 'number' && schema.minLength > 0 ? 'x'.repeat(schema.minLength) : 'x';
  if (type === 'number' || type === 'integer') return typeof schema.minimum === 'number' ? schema.minimum : 0;
  if (type === 'boolean') return false;
  return null;
}

/**
 * The prompt token count of a generation's request line as the answering server will count it
 * (`usage.prompt_tokens`), from the engine's tokenizer: a plain prompt with the beginning token the
 * server adds, a chat line of one user message through the model's chat template. Null when no
 * tokenizer counted it (an estimate proves nothing), for other operations (scoring lines echo their
 * prompt, checked on import) and for chats of several messages (no endpoint counts those).
 */
async function exportedPromptTokens(call: DeferredCall, lines: readonly BatchRequestLine[], signal: AbortSignal): Promise<Record<string, number> | null> {
  if (call.op !== 'generate' || lines.length !== 1) return null;
  const r = call.request as GenerateRequest;
  const user = r.messages?.length === 1 && r.messages[0]!.role === 'user' ? r.messages[0]!.content : undefined;
  const text = r.prompt ?? user;
  if (text === undefined) return null;
  const counted = await call.engine.tokenize({ texts: [text], asPrompt: r.prompt !== undefined ? 'text' : 'chat' }, signal);
  if (counted.source !== 'server') return null;
  return { [lines[0]!.custom_id]: counted.counts[0]! };
}

function batchSettingsOf(call: DeferredCall): BatchSettings {
  const settings = (call.engine as { batchSettings?: () => BatchSettings }).batchSettings;
  if (typeof settings !== 'function') {
    throw new DataError(`calls of '${call.modelKey}' cannot go to a batch engine: plan export needs an OpenAI-compatible (remote) model; a local model's calls run with fairground run`, { field: 'generator' });
  }
  return settings.call(call.engine);
}

/** The batch engine's error of a line, in one line of text. */
function batchErrorText(error: unknown, status: unknown): string {
  const inner = (error as { error?: { message?: unknown } } | null | undefined)?.error?.message ?? (error as { message?: unknown } | null | undefined)?.message;
  const text = typeof error === 'string' ? error : typeof inner === 'string' ? inner : error === null || error === undefined ? 'no response body' : JSON.stringify(error);
  return `${status === undefined || status === null ? '' : `status ${String(status)}: `}${text.replace(/\s+/g, ' ').slice(0, 300)}`;
}

/** Two stored JSON texts with the same value (key order aside). */
function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * What a response body says about the request it answers, checked against the request line:
 * - an echoed /completions response (scoring) must begin with the request's prompt, and its echoed
 *   tokens must be the prompt's (usage.prompt_tokens) plus the generated ones (completion_tokens);
 * - no response may report more generated tokens than the request's max_tokens.
 * A generation's body carries no echo of its prompt: only the model, the token limit and the
 * prompt-token count (the same prompt counted the same way within one file) can be checked.
 * Returns the contradiction, or null.
 */
export function checkEvidence(request: BatchRequestLine, body: unknown): string | null {
  const b = body as { choices?: { text?: unknown; logprobs?: { tokens?: unknown } | null }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
  const usage = b.usage;
  const completion = typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : undefined;
  const maxTokens = request.body.max_tokens;
  if (completion !== undefined && typeof maxTokens === 'number' && completion > maxTokens) return `usage.completion_tokens is ${completion}, more than the request's max_tokens ${maxTokens}`;
  if (request.body.echo === true && typeof request.body.prompt === 'string') {
    const prompt = request.body.prompt;
    const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
    const text = choice?.text;
    if (typeof text !== 'string') return 'an echoed completion without text';
    if (!text.startsWith(prompt)) {
      let at = 0;
      while (at < prompt.length && text[at] === prompt[at]) at++;
      const from = Math.max(0, at - 20);
      return `the echoed prompt is not the request's (from character ${at}: the response has ${JSON.stringify(text.slice(from, at + 40))}, the request ${JSON.stringify(prompt.slice(from, at + 40))})`;
    }
    const tokens = choice?.logprobs?.tokens;
    const promptTokens = usage?.prompt_tokens;
    if (Array.isArray(tokens) && typeof promptTokens === 'number' && completion !== undefined && tokens.length !== promptTokens + completion) {
      return `${tokens.length} echoed tokens, but usage counts ${promptTokens} prompt and ${completion} generated token(s)`;
    }
  }
  return null;
}

function promptChars(call: DeferredCall): number {
  const r = call.request as { prompt?: string; messages?: { content: string }[]; texts?: string[]; continuations?: string[] };
  return (r.prompt?.length ?? 0) + (r.messages?.reduce((a, m) => a + m.content.length, 0) ?? 0) + (r.texts?.reduce((a, t) => a + t.length, 0) ?? 0) + (r.continuations?.reduce((a, t) => a + t.length, 0) ?? 0);
}

