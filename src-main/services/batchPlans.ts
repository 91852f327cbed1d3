/**
 * Fairground as a client of distributed engines (issue 13): a run's calls can leave the process and
 * come back as cache entries, and a workspace's cache can absorb another's.
 *
 *   run with a policy   execute a run where uncached calls are computed, deferred, or computed only
 *                       for one shard (engine/queue/callPolicy.ts); reports what was deferred
 *   export              the deferred calls of the next runnable stage as OpenAI-Batch JSONL (vLLM
 *                       `run-batch`, one GPU or a Ray cluster); each exported call is remembered with
 *                       its request lines so the results can be checked on import
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
import { ApiFailure } from '../api/router';
import { DataError } from '../core/errors';
import { CallsDeferredError, type CallPolicy, type DeferredCall } from '../engine/queue/callPolicy';
import { RunCalls } from '../engine/queue/runCalls';
import { batchRequestLines, resultFromBatch, type BatchRequestLine, type BatchSettings } from '../engine/remote/batchCodec';
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
}

interface ImportLine {
  line: number;
  key: string;
  part: number;
  body: unknown;
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
   * from the cache.
   */
  async exportPlan(runId: number, ctx: WorkContext): Promise<{ outcome: PolicyRunOutcome; lines: BatchRequestLine[]; calls: number }> {
    const outcome = await this.runWithPolicy(runId, { mode: 'defer' }, ctx);
    const deferred = outcome.calls.deferred();
    const exported = deferred.map((call) => ({ call, lines: batchRequestLines(call.key, call.op, call.request, batchSettingsOf(call)) }));
    const now = new Date().toISOString();
    const remember = this.db.prepare(
      `INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET lines = excluded.lines, exported_at = excluded.exported_at`,
    );
    this.db.transaction(() => {
      for (const { call, lines } of exported) remember.run(call.key, call.modelKey, call.op, JSON.stringify(call.request), JSON.stringify(lines), now);
    })();
    return { outcome, lines: exported.flatMap((e) => e.lines), calls: exported.length };
  }

  /** Fill the cache from an OpenAI-Batch output file; all or nothing. */
  importResults(text: string, file: string): { calls: number; lines: number; incomplete: number } {
    const name = basename(file);
    const parsed: ImportLine[] = [];
    const seen = new Set<string>();
    const rows = new Map<string, { model_key: string; op: 'generate' | 'score' | 'embed'; request: unknown; lines: BatchRequestLine[] }>();
    const getRow = this.db.prepare(`SELECT model_key, op, request, lines FROM batch_calls WHERE key = ?`);
    const lines = text.split('\n');
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
      if (typeof obj !== 'object' || obj === null) throw new DataError('expected a JSON object (an OpenAI-Batch output line)', at);
      const customId = obj.custom_id;
      if (typeof customId !== 'string' || !/^[0-9a-f]{64}(#\d+)?$/.test(customId)) throw new DataError(`custom_id must be a call key exported by fairground plan export, got ${JSON.stringify(customId)}`, { ...at, field: 'custom_id' });
      if (seen.has(customId)) throw new DataError(`custom_id ${customId} appears twice`, { ...at, field: 'custom_id' });
      seen.add(customId);
      const [key, part] = customId.split('#') as [string, string | undefined];
      let row = rows.get(key);
      if (!row) {
        const r = getRow.get(key) as { model_key: string; op: 'generate' | 'score' | 'embed'; request: string; lines: string } | undefined;
        if (!r) {
          if (this.cache.get(key)) continue; // imported before: nothing to do
          throw new DataError(`custom_id ${customId} was not exported from this workspace (fairground plan export)`, { ...at, field: 'custom_id' });
        }
        row = { model_key: r.model_key, op: r.op, request: JSON.parse(r.request) as unknown, lines: JSON.parse(r.lines) as BatchRequestLine[] };
        rows.set(key, row);
      }
      const request = row.lines.find((l) => l.custom_id === customId);
      if (!request) throw new DataError(`custom_id ${customId} is not one of the call's exported requests`, { ...at, field: 'custom_id' });
      if (obj.error !== null && obj.error !== undefined) throw new DataError(`the batch engine reported an error: ${JSON.stringify(obj.error).slice(0, 300)}`, { ...at, field: 'error' });
      const status = obj.response?.status_code;
      if (status !== 200) throw new DataError(`response status ${String(status)} (expected 200)`, { ...at, field: 'response.status_code' });
      const body = obj.response?.body;
      const model = (body as { model?: unknown } | null | undefined)?.model;
      if (typeof model === 'string' && model !== request.body.model) throw new DataError(`answered by model '${model}', but the request asked for '${String(request.body.model)}'`, { ...at, field: 'response.body.model' });
      parsed.push({ line: i + 1, key, part: part === undefined ? 0 : Number(part), body });
    }

    // Assemble whole calls; a call with every part answered becomes a cache entry.
    const byKey = new Map<string, ImportLine[]>();
    for (const p of parsed) {
      const list = byKey.get(p.key) ?? [];
      list.push(p);
      byKey.set(p.key, list);
    }
    const entries: { key: string; modelKey: string; op: 'generate' | 'score' | 'embed'; request: unknown; response: unknown }[] = [];
    let incomplete = 0;
    for (const [key, parts] of byKey) {
      const row = rows.get(key)!;
      if (parts.length < row.lines.length) {
        incomplete++;
        continue;
      }
      parts.sort((a, b) => a.part - b.part);
      try {
        const response = resultFromBatch(row.op, row.request, row.lines, parts.map((p) => p.body));
        entries.push({ key, modelKey: row.model_key, op: row.op, request: row.request, response });
      } catch (err) {
        throw new DataError(`the response does not answer its request: ${(err as Error).message}`, { file, line: parts[0]!.line, field: 'response.body' });
      }
    }
    const forget = this.db.prepare(`DELETE FROM batch_calls WHERE key = ?`);
    this.db.transaction(() => {
      for (const e of entries) {
        this.cache.put({ ...e, durationMs: 0, servedBy: `batch:${name}` });
        forget.run(e.key);
      }
    })();
    return { calls: entries.length, lines: parsed.length, incomplete };
  }

  /** Merge other workspaces' call caches into this one (all or nothing). */
  merge(files: readonly string[]): { added: number; alreadyHere: number } {
    let added = 0;
    let alreadyHere = 0;
    for (const file of files) {
      this.db.prepare(`ATTACH DATABASE ? AS other`).run(file);
      try {
        const isWorkspace = this.db.prepare(`SELECT 1 FROM other.sqlite_master WHERE type = 'table' AND name = 'llm_call_cache'`).get();
        if (!isWorkspace) throw new DataError('not a Fairground workspace (no call cache)', { file });
        const columns = (this.db.prepare(`SELECT name FROM pragma_table_info('llm_call_cache', 'other')`).all() as { name: string }[]).map((c) => c.name);
        if (!columns.includes('computations')) throw new DataError('written by an older Fairground: open it once with this version (fairground workspace migrate) before merging', { file });
        // In SQL, one transaction: the disagreeing call first (nothing is written if there is one).
        this.db.transaction(() => {
          const conflict = this.db
            .prepare(`SELECT o.key FROM other.llm_call_cache o JOIN main.llm_call_cache m ON m.key = o.key WHERE m.response <> o.response LIMIT 1`)
            .get() as { key: string } | undefined;
          if (conflict) throw new DataError(`call ${conflict.key} has a different response here than in this file: the caches disagree (a nondeterministic engine, or different weights behind one model name)`, { file, field: 'llm_call_cache' });
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
   * current spec under the defer policy (items and run are deleted afterwards; nothing is computed).
   */
  async estimate(experimentId: number, signal: AbortSignal): Promise<CostEstimate> {
    const experiment = this.experiments.repo.experiment(experimentId);
    if (!experiment) throw new ApiFailure('not-found', `no experiment with id ${experimentId}`, 'id');
    const run = this.experiments.repo.createRun({ experimentId, spec: experiment.spec, specVersion: experiment.version });
    try {
      const outcome = await this.runWithPolicy(run.id, { mode: 'defer' }, { signal, progress: () => {} });
      const warnings = await this.experiments.designWarnings(experiment.spec);
      return { ...(await this.price(null, outcome)), warnings };
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
    const experiment = this.experiments.repo.createExperiment({ kind: String(v.spec.kind), name: `(cost estimate ${randomUUID()})`, spec: v.spec });
    try {
      return await this.estimate(experiment.id, signal);
    } finally {
      this.experiments.repo.deleteExperiment(experiment.id);
    }
  }

  private async price(runId: number | null, outcome: PolicyRunOutcome): Promise<Omit<CostEstimate, 'warnings'>> {
    const groups = new Map<string, { calls: DeferredCall[]; name: string; concurrency: number }>();
    for (const call of outcome.calls.deferred()) {
      const id = `${call.modelKey}\n${call.op}`;
      let g = groups.get(id);
      if (!g) {
        const identity = await call.engine.identity();
        const capacity = (call.engine as { capacity?: () => number }).capacity?.() ?? 1;
        g = { calls: [], name: identity.modelName, concurrency: capacity };
        groups.set(id, g);
      }
      g.calls.push(call);
    }
    const lines: CostLine[] = [...groups.values()].map((g) => {
      const { op, modelKey } = g.calls[0]!;
      const meanCallMs = this.cache.meanDurationMs(modelKey, op);
      const concurrency = Math.max(1, g.concurrency);
      return {
        model: g.name,
        op,
        toCompute: g.calls.length,
        promptChars: g.calls.reduce((a, c) => a + promptChars(c), 0),
        meanCallMs,
        concurrency,
        etaSeconds: meanCallMs === null ? null : Math.round((meanCallMs * g.calls.length) / concurrency / 1000),
      };
    });
    const eta = lines.every((l) => l.etaSeconds !== null) ? lines.reduce((a, l) => a + l.etaSeconds!, 0) : null;
    const toCompute = lines.reduce((a, l) => a + l.toCompute, 0);
    return {
      runId,
      fromCache: outcome.calls.hits,
      toCompute,
      lines,
      etaSeconds: toCompute === 0 ? 0 : eta,
      complete: outcome.finished || toCompute === 0,
      note: outcome.finished
        ? 'every call is in the cache'
        : 'calls of later stages (e.g. attribution judgments of outputs not generated yet) are priced once the outputs they need exist',
    };
  }
}

function batchSettingsOf(call: DeferredCall): BatchSettings {
  const settings = (call.engine as { batchSettings?: () => BatchSettings }).batchSettings;
  if (typeof settings !== 'function') {
    throw new DataError(`calls of '${call.modelKey}' cannot go to a batch engine: plan export needs an OpenAI-compatible (remote) model; a local model's calls run with fairground run`, { field: 'generator' });
  }
  return settings.call(call.engine);
}

function promptChars(call: DeferredCall): number {
  const r = call.request as { prompt?: string; messages?: { content: string }[]; texts?: string[]; continuations?: string[] };
  return (r.prompt?.length ?? 0) + (r.messages?.reduce((a, m) => a + m.content.length, 0) ?? 0) + (r.texts?.reduce((a, t) => a + t.length, 0) ?? 0) + (r.continuations?.reduce((a, t) => a + t.length, 0) ?? 0);
}

