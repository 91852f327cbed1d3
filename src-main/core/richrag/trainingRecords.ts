/**
 * Training records for RichRAG's ranker, as plain objects an exporter writes one per JSONL line.
 *
 * SFT (Sec. 3.4.1, Eq. 10): the target of each query is its greedy coverage silver list (silverList.ts),
 *   `{prompt, completion}`.
 * DPO with US³ (Sec. 3.4.2, reference note richrag.md §1.5): per training query one greedy-decoded list and
 *   several sampled lists, each with its reward (Eq. 11, reward.ts). A pair is (greedy, sample) — never two
 *   samples ("unilaterality") — and only when |reward(sample) − reward(greedy)| > μ, strictly
 *   ("significance"; μ = 0.1 in the paper). The higher reward is `chosen`. A sampled list identical to an
 *   earlier sample of the same query is used once. `{prompt, chosen, rejected}`.
 * The prompt (the ranker's input x = {q, Ŝ, P}) is built by the caller; lists are rendered to the target
 * string by `render` (default: the ids joined by single spaces; pass e.g. `(l) => l.map((i) => `[D${i}]`).join('')`
 * for docid tokens).
 * The paper keeps 6,000 pairs without saying which; `sample` keeps a seeded uniform subset of `limit` pairs
 * in their original order.
 */
import { DataError } from '../errors';
import { createRng } from '../random/rng';

export type RenderList = (ranking: readonly string[]) => string;
export const joinIds: RenderList = (ranking) => ranking.join(' ');

export interface SftRecord {
  prompt: string;
  completion: string;
}

export function sftRecords(queries: readonly { prompt: string; silver: readonly string[] }[], render: RenderList = joinIds): SftRecord[] {
  return queries.map((q) => ({ prompt: q.prompt, completion: render(q.silver) }));
}

export interface ScoredList {
  ranking: readonly string[];
  reward: number;
}

export interface Us3Query {
  prompt: string;
  greedy: ScoredList;
  samples: readonly ScoredList[];
}

export interface PreferenceRecord {
  prompt: string;
  chosen: string;
  rejected: string;
}

export interface PreferenceOptions {
  /** μ: the reward gap a pair must exceed; default 0.1. */
  mu?: number;
  render?: RenderList;
  /** Keep at most `limit` pairs, a uniform subset drawn with createRng(seed). */
  sample?: { limit: number; seed: number | string };
}

export const DEFAULT_MU = 0.1;

export function us3PreferencePairs(queries: readonly Us3Query[], options: PreferenceOptions = {}): PreferenceRecord[] {
  const { mu = DEFAULT_MU, render = joinIds, sample } = options;
  if (!Number.isFinite(mu) || mu < 0) throw new RangeError(`mu must be a finite non-negative number, got ${mu}`);
  if (sample !== undefined && (!Number.isInteger(sample.limit) || sample.limit < 0)) {
    throw new RangeError(`sample.limit must be a non-negative integer, got ${sample.limit}`);
  }
  const pairs: PreferenceRecord[] = [];
  queries.forEach((q, i) => {
    checkReward(q.greedy.reward, `queries[${i}].greedy.reward`);
    const greedy = render(q.greedy.ranking);
    const seen = new Set<string>();
    q.samples.forEach((s, j) => {
      checkReward(s.reward, `queries[${i}].samples[${j}].reward`);
      const key = JSON.stringify(s.ranking);
      if (seen.has(key)) return;
      seen.add(key);
      const gap = s.reward - q.greedy.reward;
      if (Math.abs(gap) <= mu) return;
      const sampled = render(s.ranking);
      pairs.push(gap > 0 ? { prompt: q.prompt, chosen: sampled, rejected: greedy } : { prompt: q.prompt, chosen: greedy, rejected: sampled });
    });
  });
  if (sample === undefined || pairs.length <= sample.limit) return pairs;
  const keep = createRng(sample.seed)
    .shuffled(pairs.map((_, i) => i))
    .slice(0, sample.limit)
    .sort((a, b) => a - b);
  return keep.map((i) => pairs[i]!);
}

function checkReward(reward: number, field: string): void {
  if (!Number.isFinite(reward)) throw new DataError(`reward must be a finite number, got ${reward}`, { field });
}
