/**
 * Batch plans, job 5 (see index.ts): estimate — a dry run: what a run would compute (per model and
 * operation), what the cache already answers, prompt tokens, and a time from this engine's measured
 * throughput (the cache's recorded durations) and its queue's bound.
 */
import { randomUUID } from 'node:crypto';
import type { CallBound, DesignWarning } from '../../api/contract/plans';
import { ApiFailure } from '../../api/apiFailure';
import type { DeferredCall } from '../../engine/queue/callPolicy';
import type { EmbedRequest, GenerateRequest, ScoreRequest } from '../../engine/types';
import { SimEngine } from '../../engine/sim/simEngine';
import { estimateTokenCount } from '../../engine/tokenBudget';
import type { CallCacheRepo } from '../../store/callCacheRepo';
import { runWithPolicy, type BatchPlanDeps, type PolicyRunOutcome } from './runPolicy';

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
  /** At most this many calls in all, where the kind takes a bound (registry `callBound`; RichRAG). */
  bound?: CallBound;
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
export async function estimate(deps: BatchPlanDeps, experimentId: number, signal: AbortSignal): Promise<CostEstimate> {
  const experiment = deps.experiments.repo.experiment(experimentId);
  if (!experiment) throw new ApiFailure('not-found', `no experiment with id ${experimentId}`, 'id');
  const run = deps.experiments.repo.createRun({ experimentId, spec: experiment.spec, specVersion: experiment.version, throwaway: true });
  try {
    const standIns = new Map<string, unknown>();
    const stages: DeferredCall[][] = [];
    const hitKeys = new Set<string>();
    const placeholders = new Set<number>();
    let stoppedBy: string | null = null;
    for (;;) {
      let outcome: PolicyRunOutcome;
      try {
        outcome = await runWithPolicy(deps.experiments, run.id, { mode: 'estimate', standIns }, { signal, progress: () => {} });
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
    const warnings = await deps.experiments.designWarnings(experiment.spec);
    const bound = deps.experiments.callBound(experiment.spec);
    return { ...(await price(deps.cache, stages, hitKeys.size, stoppedBy, placeholders)), warnings, ...(bound ? { bound } : {}) };
  } finally {
    deps.experiments.repo.deleteRun(run.id);
  }
}

/**
 * The cost of a spec not stored yet (the wizard's review step): the spec is validated as
 * experiments.validateSpec does (an invalid one is refused naming its field), then priced like
 * estimate() through a throwaway experiment that is deleted afterwards with its run.
 */
export async function estimateSpec(deps: BatchPlanDeps, raw: unknown, signal: AbortSignal): Promise<CostEstimate> {
  const v = deps.experiments.validateSpec(raw);
  if (!v.ok || !v.spec) {
    const first = v.issues[0];
    const field = first?.path ? `spec.${first.path}` : 'spec';
    throw new ApiFailure('validation', `${field}: ${first?.message ?? 'invalid spec'}`, field);
  }
  const experiment = deps.experiments.repo.createExperiment({ kind: String(v.spec.kind), name: `(cost estimate ${randomUUID()})`, spec: v.spec, throwaway: true });
  try {
    return await estimate(deps, experiment.id, signal);
  } finally {
    deps.experiments.repo.deleteExperiment(experiment.id);
  }
}

async function price(cache: CallCacheRepo, stages: readonly DeferredCall[][], fromCache: number, stoppedBy: string | null, placeholders: ReadonlySet<number>): Promise<Omit<CostEstimate, 'warnings'>> {
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
      const meanCallMs = cache.meanDurationMs(modelKey, op);
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
            ? 'expected, not a bound: placeholder outputs stood in for the stage before (one short output per call); a model whose outputs fan out more (more sub-aspects, longer pools) makes the run ask for more'
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

function promptChars(call: DeferredCall): number {
  const r = call.request as { prompt?: string; messages?: { content: string }[]; texts?: string[]; continuations?: string[] };
  return (r.prompt?.length ?? 0) + (r.messages?.reduce((a, m) => a + m.content.length, 0) ?? 0) + (r.texts?.reduce((a, t) => a + t.length, 0) ?? 0) + (r.continuations?.reduce((a, t) => a + t.length, 0) ?? 0);
}
