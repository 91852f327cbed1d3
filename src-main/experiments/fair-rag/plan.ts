/**
 * The plan of a Fair RAG run (pure: same spec and data, same plan). For every query, retriever and
 * arm it draws the sampled top-k rankings (Sec. 3.2), renders each ranking's prompt (Sec. 3) and
 * de-duplicates the prompts: samples that render to the same prompt text share one generation, so
 * the engine is called once per distinct prompt instead of once per sample. High α repeats
 * rankings (α = 8 is deterministic in practice) and k-prefixes of a small candidate set repeat
 * too, which is where the savings come from.
 *
 * Arms per query: for every retriever, α ∈ spec.alphas (N rankings from the α-controlled
 * Plackett–Luce policy) and the deterministic top k (one ranking); once per query the oracle
 * (N rankings, useful items first; it does not depend on the retriever).
 *
 * Seeds: each arm draws from its own stream, createRng(seeds.sampling).fork(label) with label
 * `qid \0 retriever \0 alpha=α` or `qid \0 oracle`, so adding an α or a retriever leaves every
 * other arm's rankings (and so its prompts, cached calls and results) unchanged.
 */
import { createHash } from 'node:crypto';
import type { FairRagSpec } from '../../api/contract/fairRag';
import { createRng } from '../../core/random/rng';
import { deterministicTopK } from '../../core/sampling/deterministicTopK';
import { sampleOracle } from '../../core/sampling/oracleRetriever';
import { samplePlackettLuce } from '../../core/sampling/plackettLuce';
import type { CandidateDoc } from './data';
import {
  alphaCondition,
  deterministicCondition,
  generationKey,
  ORACLE,
  queryKey,
  sampleKey,
  type Policy,
  type QueryPayload,
  type SamplePayload,
} from './items';
import type { PromptQuery } from './prompt';

export type PlanSpec = Pick<FairRagSpec, 'retrievers' | 'alphas' | 'k' | 'samples' | 'oracle' | 'deterministic' | 'normalization' | 'seeds'>;

/** What planning needs of a query. */
export interface PlanQuery extends PromptQuery {
  queryId: string;
  retrievalText: string;
  answers: string[];
  candidates: CandidateDoc[];
  metric: string;
  lowerIsBetter: boolean;
  worst: number | null;
  /** Retriever name → scores aligned with `candidates`. */
  scores: Record<string, number[]>;
}

export interface PlannedSample {
  key: string;
  queryId: string;
  condition: string;
  sample: number;
  payload: SamplePayload;
}

export interface PlannedGeneration {
  key: string;
  queryId: string;
  promptHash: string;
  prompt: string;
  /** The ranking of the first sample that rendered to this prompt (attribution needs the positions). */
  ranking: string[];
}

export interface QueryPlan {
  queryId: string;
  queryItem: { key: string; payload: QueryPayload };
  samples: PlannedSample[];
  /** Distinct prompts of the query, in first-use order. */
  generations: PlannedGeneration[];
}

export function promptHash(prompt: string): string {
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

/** The arms of one query, in a fixed order: per retriever its α's then deterministic; then the oracle. */
export function armsOf(spec: PlanSpec): { condition: string; retriever: string | null; alpha: number | null; policy: Policy }[] {
  const arms: { condition: string; retriever: string | null; alpha: number | null; policy: Policy }[] = [];
  for (const r of spec.retrievers) {
    for (const alpha of spec.alphas) arms.push({ condition: alphaCondition(r.name, alpha), retriever: r.name, alpha, policy: 'pl' });
    if (spec.deterministic) arms.push({ condition: deterministicCondition(r.name), retriever: r.name, alpha: null, policy: 'deterministic' });
  }
  if (spec.oracle) arms.push({ condition: ORACLE, retriever: null, alpha: null, policy: 'oracle' });
  return arms;
}

/** The rankings of one arm of one query. */
export function armRankings(spec: PlanSpec, q: Pick<PlanQuery, 'queryId' | 'candidates' | 'scores'>, arm: { retriever: string | null; alpha: number | null; policy: Policy }): string[][] {
  const root = createRng(spec.seeds.sampling);
  if (arm.policy === 'oracle') {
    return sampleOracle({ items: q.candidates.map((c) => ({ id: c.docId, useful: c.useful })), k: spec.k, samples: spec.samples, rng: root.fork(`${q.queryId}\u0000oracle`) });
  }
  const scores = q.scores[arm.retriever!];
  if (!scores) throw new Error(`no scores of retriever '${arm.retriever}' for query '${q.queryId}'`);
  const items = q.candidates.map((c, i) => ({ id: c.docId, score: scores[i]! }));
  if (arm.policy === 'deterministic') return [deterministicTopK(items, spec.k)];
  return samplePlackettLuce({
    items,
    alpha: arm.alpha!,
    k: spec.k,
    samples: spec.samples,
    rng: root.fork(`${q.queryId}\u0000${arm.retriever}\u0000alpha=${arm.alpha}`),
    normalization: spec.normalization,
  });
}

/** Plan one query: its query item, every sample, and its distinct prompts. */
export function planQuery(spec: PlanSpec, q: PlanQuery, render: (query: PromptQuery, ranking: readonly string[]) => string): QueryPlan {
  const queryItem = {
    key: queryKey(q.queryId),
    payload: {
      type: 'query' as const,
      text: q.text,
      retrievalText: q.retrievalText,
      answers: q.answers,
      task: q.task,
      metric: q.metric,
      lowerIsBetter: q.lowerIsBetter,
      worst: q.worst,
      candidates: q.candidates.map((c) => ({ docId: c.docId, useful: c.useful, provider: c.provider })),
      scores: q.scores,
    },
  };
  const samples: PlannedSample[] = [];
  const generations = new Map<string, PlannedGeneration>();
  // The same ranking always renders to the same prompt: render each distinct ranking once.
  const byRanking = new Map<string, string>();
  for (const arm of armsOf(spec)) {
    armRankings(spec, q, arm).forEach((ranking, s) => {
      const rankingKey = ranking.join('\u0000');
      let hash = byRanking.get(rankingKey);
      if (hash === undefined) {
        const prompt = render(q, ranking);
        hash = promptHash(prompt);
        byRanking.set(rankingKey, hash);
        if (!generations.has(hash)) generations.set(hash, { key: generationKey(q.queryId, hash), queryId: q.queryId, promptHash: hash, prompt, ranking });
      }
      samples.push({
        key: sampleKey(q.queryId, arm.condition, s),
        queryId: q.queryId,
        condition: arm.condition,
        sample: s,
        payload: { type: 'sample', retriever: arm.retriever, alpha: arm.alpha, policy: arm.policy, ranking, promptHash: hash },
      });
    });
  }
  return { queryId: q.queryId, queryItem, samples, generations: [...generations.values()] };
}

export interface PlanCounts {
  queries: number;
  /** One generation per sampled ranking (the naive pipeline). */
  naiveGenerations: number;
  /** Distinct prompts per query, summed: the generations needed. */
  distinctGenerations: number;
}

export function planCounts(plans: readonly QueryPlan[]): PlanCounts {
  return {
    queries: plans.length,
    naiveGenerations: plans.reduce((s, p) => s + p.samples.length, 0),
    distinctGenerations: plans.reduce((s, p) => s + p.generations.length, 0),
  };
}
