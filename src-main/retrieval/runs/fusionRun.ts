/**
 * RRF of stored runs, query by query (core/retrieval/rrf.ts): a query present in any input run is
 * fused from the rankings of the runs that have it (a run without the query contributes nothing).
 * Queries come out in first-seen order over the inputs.
 */
import { compareRankOrder } from '../../core/ir/rankOrder';
import type { ScoredId } from '../../core/retrieval/ranking';
import { reciprocalRankFusion, type RrfOptions } from '../../core/retrieval/rrf';
import type { RunRankings } from './runTypes';

/**
 * With `ties: 'first-seen'` the fused order is not trec_eval's among equal scores; every such score
 * is lowered to the next double below its predecessor's, so that score descending then docno
 * descending (the export, the evaluation) reads exactly the stored order. `nudged` counts them.
 */
export function fuseRunsCounted(inputs: readonly RunRankings[], k: number, options: RrfOptions = {}): { rankings: RunRankings; nudged: number } {
  let nudged = 0;
  const queryIds = new Set<string>();
  for (const run of inputs) for (const q of run.keys()) queryIds.add(q);
  const out: RunRankings = new Map();
  for (const q of queryIds) {
    const lists = inputs.map((run) => (run.get(q) ?? []).map((h) => h.id));
    const fused = reciprocalRankFusion(lists, options).slice(0, k);
    if (options.ties === 'first-seen') nudged += strictlyInRankOrder(fused);
    if (fused.length > 0) out.set(q, fused);
  }
  return { rankings: out, nudged };
}

/** Lowers, in place, each score that the one rank order would put above its predecessor; returns how many. */
export function strictlyInRankOrder(ranking: ScoredId[]): number {
  let changed = 0;
  for (let i = 1; i < ranking.length; i++) {
    const prev = ranking[i - 1]!;
    const cur = ranking[i]!;
    if (compareRankOrder(prev.score, prev.id, cur.score, cur.id) > 0) {
      ranking[i] = { id: cur.id, score: nextDown(prev.score) };
      changed++;
    }
  }
  return changed;
}

/** The largest double below `x` (finite x). */
function nextDown(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  buf.setBigUint64(0, x > 0 ? bits - 1n : bits + 1n);
  return buf.getFloat64(0);
}
