/**
 * RRF of stored runs, query by query (core/retrieval/rrf.ts): a query present in any input run is
 * fused from the rankings of the runs that have it (a run without the query contributes nothing).
 * Queries come out in first-seen order over the inputs.
 */
import { reciprocalRankFusion, type RrfOptions } from '../../core/retrieval/rrf';
import type { RunRankings } from './runTypes';

export function fuseRuns(inputs: readonly RunRankings[], k: number, options: RrfOptions = {}): RunRankings {
  const queryIds = new Set<string>();
  for (const run of inputs) for (const q of run.keys()) queryIds.add(q);
  const out: RunRankings = new Map();
  for (const q of queryIds) {
    const lists = inputs.map((run) => (run.get(q) ?? []).map((h) => h.id));
    const fused = reciprocalRankFusion(lists, options).slice(0, k);
    if (fused.length > 0) out.set(q, fused);
  }
  return out;
}
