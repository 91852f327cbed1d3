/**
 * Batch plans: Fairground as a client of distributed engines (issue 13): a run's calls can leave the process and
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
 *
 * One module per job (runPolicy.ts, export.ts, importEvidence.ts, merge.ts, estimate.ts);
 * BatchPlanService holds the workspace's database, experiments and call cache and hands them to each.
 */
import type { Database } from 'better-sqlite3';
import type { CallPolicy } from '../../engine/queue/callPolicy';
import type { BatchRoutes } from '../../engine/remote/batchCodec';
import type { WorkContext } from '../../experiments/registry';
import type { CallCacheRepo } from '../../store/callCacheRepo';
import type { ExperimentService } from '../experimentService';
import { estimate, estimateSpec } from './estimate';
import { exportPlan } from './export';
import { importResults } from './importEvidence';
import { mergeCaches } from './merge';
import { runWithPolicy, type BatchPlanDeps } from './runPolicy';

export type { PolicyRunOutcome } from './runPolicy';
export type { CostEstimate, CostLine, CostStage } from './estimate';
export { placeholderAnswer } from './estimate';
export type { ImportReport } from './importEvidence';
export { checkEvidence } from './importEvidence';

export class BatchPlanService {
  private readonly deps: BatchPlanDeps;

  constructor(db: Database, experiments: ExperimentService, cache: CallCacheRepo) {
    this.deps = { db, experiments, cache };
  }

  /** Execute a run under a policy; a run that deferred calls ends interrupted (resumable), not failed (runPolicy.ts). */
  runWithPolicy(runId: number, policy: CallPolicy, ctx: WorkContext): ReturnType<typeof runWithPolicy> {
    return runWithPolicy(this.deps.experiments, runId, policy, ctx);
  }

  /** The OpenAI-Batch lines of the run's next runnable stage that the cache cannot answer (export.ts). */
  exportPlan(runId: number, ctx: WorkContext, routes: BatchRoutes = 'completions'): ReturnType<typeof exportPlan> {
    return exportPlan(this.deps, runId, ctx, routes);
  }

  /** Fill the cache from an OpenAI-Batch output file, checked line by line (importEvidence.ts). */
  importResults(text: string, file: string): ReturnType<typeof importResults> {
    return importResults(this.deps, text, file);
  }

  /** Merge other workspaces' call caches into this one (merge.ts). */
  merge(files: readonly string[]): ReturnType<typeof mergeCaches> {
    return mergeCaches(this.deps.db, files);
  }

  /** What running the experiment would cost, without calling any engine (estimate.ts). */
  estimate(experimentId: number, signal: AbortSignal): ReturnType<typeof estimate> {
    return estimate(this.deps, experimentId, signal);
  }

  /** The cost of a spec not stored yet (estimate.ts). */
  estimateSpec(raw: unknown, signal: AbortSignal): ReturnType<typeof estimateSpec> {
    return estimateSpec(this.deps, raw, signal);
  }
}
