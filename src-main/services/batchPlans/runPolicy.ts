/**
 * Batch plans, job 1 (see index.ts): run with a call policy — execute a run where uncached calls are
 * computed, deferred, or computed only for one shard (engine/queue/callPolicy.ts), and report what was
 * deferred. Also the dependencies every job of a batch plan shares.
 */
import type { Database } from 'better-sqlite3';
import { CallsDeferredError, type CallPolicy } from '../../engine/queue/callPolicy';
import { RunCalls } from '../../engine/queue/runCalls';
import type { CallCacheRepo } from '../../store/callCacheRepo';
import type { WorkContext } from '../../experiments/registry';
import type { ExperimentService } from '../experimentService';

/** What the jobs of a batch plan work on: the workspace's database, its experiments and its call cache. */
export interface BatchPlanDeps {
  db: Database;
  experiments: ExperimentService;
  cache: CallCacheRepo;
}

export interface PolicyRunOutcome {
  runId: number;
  /** Whether the run finished (nothing deferred). */
  finished: boolean;
  message: string;
  calls: RunCalls;
}

/** Execute a run under a policy; a run that deferred calls ends interrupted (resumable), not failed. */
export async function runWithPolicy(experiments: ExperimentService, runId: number, policy: CallPolicy, ctx: WorkContext): Promise<PolicyRunOutcome> {
  const calls = new RunCalls();
  try {
    await experiments.executeRun(runId, ctx, { policy, calls });
    return { runId, finished: true, message: `finished (${calls.computed} computed, ${calls.hits} from the cache)`, calls };
  } catch (err) {
    if (err instanceof CallsDeferredError) return { runId, finished: false, message: err.message, calls };
    throw err;
  }
}
