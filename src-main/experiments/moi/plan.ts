/**
 * The plan of a MoI run for one query (pure: same spec and query, same plan): the permutation set
 * MoI scores, the self-consistency permutations, the methods that run, and the calls each method
 * needs (the cost lever of Sec. 3.2–3.3):
 *
 *   method                score passes (requests)                 generations
 *   retriever             0                                       1
 *   moi, moi-reversed     M (M): random 3N / cyclic N / pruned N / random-pruned 3N / all N!   1
 *   random                0                                       K (the self-consistency answers; shared)
 *   self-consistency      0                                       K
 *   bayes-saliency        N (N): log P(q | p) + w·log P(p), one pass per passage          1
 *   bayes-saliency-plus   N + Σ_{k=1}^{N−2} (N−k)  (N + N−2): Eq. 2 greedy, step 0 = the pointwise pass,
 *                         each later step one request whose continuations share the prefix of the selected passages   1
 *   qg                    N (N): UPR prompt (or 0 extra: the pointwise pass's question term)   1
 *   longllmlingua(-code)  N (N): the pointwise pass (the code variant's suffix is scored in the same pass)   1
 *   retriever-reversed    0                                       1
 *   gold@j                0                                       1 (queries with a gold passage)
 *
 * Random permutation streams: `${seeds.permutations} \0 qid \0 moi` and `… \0 sc`, so changing K
 * leaves MoI's set unchanged and vice versa.
 */
import type { MoiSpec } from '../../api/contract/moi';
import { permutationSet, randomPermutationSet, type PermutationSet } from '../../core/moi/permutationSets';

export const METHOD_LABELS: Record<string, string> = {
  retriever: 'Retriever',
  random: 'Random',
  'self-consistency': 'Self-consistency',
  'bayes-saliency': 'Bayes saliency',
  'bayes-saliency-plus': 'Bayes saliency +',
  qg: 'QG',
  longllmlingua: 'LongLLMLingua',
  'longllmlingua-code': 'LongLLMLingua (code)',
  moi: 'MoI',
  'retriever-reversed': 'Retriever (reversed)',
  'moi-reversed': 'MoI (reversed)',
};

const ORDINAL = (j: number) => `${j}${j % 10 === 1 && j !== 11 ? 'st' : j % 10 === 2 && j !== 12 ? 'nd' : j % 10 === 3 && j !== 13 ? 'rd' : 'th'}`;

export const goldMethod = (position: number): string => `gold@${position}`;

export function methodLabel(method: string): string {
  const gold = /^gold@(\d+)$/.exec(method);
  if (gold) return `Gold at ${ORDINAL(Number(gold[1]))}`;
  return METHOD_LABELS[method] ?? method;
}

/** Table order of methods: retriever first (the baseline), rerankers, MoI, then reversed and gold rows. */
const TABLE_ORDER = ['retriever', 'random', 'self-consistency', 'bayes-saliency', 'bayes-saliency-plus', 'qg', 'longllmlingua', 'longllmlingua-code', 'moi', 'retriever-reversed', 'moi-reversed'];

export interface PlannedCost {
  scorePasses: number;
  scoreRequests: number;
  generations: number;
}

export interface QueryPlan {
  queryId: string;
  n: number;
  set: PermutationSet;
  /** Self-consistency / random permutations (null when neither runs). */
  sc: number[][] | null;
  methods: string[];
  needs: { pointwise: boolean; upr: boolean; bsp: boolean; llmlinguaCode: boolean };
  planned: Record<string, PlannedCost>;
}

type PlanSpec = Pick<MoiSpec, 'permutations' | 'baselines' | 'selfConsistency' | 'qg' | 'seeds'>;

export function permutationSetFor(spec: Pick<MoiSpec, 'permutations' | 'seeds'>, queryId: string, n: number): PermutationSet {
  const p = spec.permutations;
  switch (p.set) {
    case 'random3n':
      return permutationSet({ kind: 'random', n, seed: `${spec.seeds.permutations}\u0000${queryId}\u0000moi`, count: p.count ?? 3 * n });
    case 'cyclic':
      return permutationSet({ kind: 'cyclic', n });
    case 'pruned':
      return permutationSet({ kind: 'pruned-cyclic', n, length: Math.min(n, p.length ?? Math.ceil(n / 2)) });
    case 'random-pruned':
      return permutationSet({ kind: 'random-pruned', n, length: Math.min(n, p.length ?? Math.ceil(n / 2)), seed: `${spec.seeds.permutations}\u0000${queryId}\u0000moi`, count: p.count ?? 3 * n });
    case 'all':
      return permutationSet({ kind: 'all', n });
  }
}

export function selfConsistencySet(spec: PlanSpec, queryId: string, n: number): number[][] {
  return randomPermutationSet(n, `${spec.seeds.permutations}\u0000${queryId}\u0000sc`, spec.selfConsistency.samples).permutations;
}

/** Score passes of Bayes saliency+ (Eq. 2 greedy): step 0 = N pointwise passes, step k ≥ 1 scores the N − k remaining candidates. */
export function bayesSaliencyPlusPasses(n: number): { passes: number; requests: number } {
  let passes = n;
  let requests = n;
  for (let k = 1; k <= n - 2; k++) {
    passes += n - k;
    requests++;
  }
  return { passes, requests };
}

export function planQuery(spec: PlanSpec, queryId: string, n: number, hasGold: boolean): QueryPlan {
  const baselines = new Set(spec.baselines);
  const set = permutationSetFor(spec, queryId, n);
  const wantsSc = baselines.has('random') || baselines.has('self-consistency');
  const sc = wantsSc ? selfConsistencySet(spec, queryId, n) : null;
  const methods = TABLE_ORDER.filter((m) => m === 'retriever' || m === 'moi' || baselines.has(m as MoiSpec['baselines'][number]));
  if (baselines.has('gold-position') && hasGold) for (let j = 1; j <= n; j++) methods.push(goldMethod(j));
  const M = set.engineCalls;
  const K = sc?.length ?? 0;
  const bsp = bayesSaliencyPlusPasses(n);
  const planned: Record<string, PlannedCost> = {};
  for (const m of methods) {
    const c = { scorePasses: 0, scoreRequests: 0, generations: 1 };
    if (m === 'moi' || m === 'moi-reversed') Object.assign(c, { scorePasses: M, scoreRequests: M });
    else if (m === 'random' || m === 'self-consistency') c.generations = K;
    else if (m === 'bayes-saliency' || m === 'qg' || m === 'longllmlingua' || m === 'longllmlingua-code') Object.assign(c, { scorePasses: n, scoreRequests: n });
    else if (m === 'bayes-saliency-plus') Object.assign(c, { scorePasses: bsp.passes, scoreRequests: bsp.requests });
    planned[m] = c;
  }
  const needs = {
    pointwise: ['bayes-saliency', 'bayes-saliency-plus', 'longllmlingua', 'longllmlingua-code'].some((m) => baselines.has(m as MoiSpec['baselines'][number])) || (baselines.has('qg') && spec.qg.prompt === 'shared'),
    upr: baselines.has('qg') && spec.qg.prompt === 'upr',
    bsp: baselines.has('bayes-saliency-plus'),
    llmlinguaCode: baselines.has('longllmlingua-code'),
  };
  return { queryId, n, set, sc, methods, needs, planned };
}

/** Distinct engine calls of a query plan before generation (generations are known once the orders are). */
export function plannedScoreRequests(plan: QueryPlan): number {
  return plan.set.engineCalls + (plan.needs.pointwise ? plan.n : 0) + (plan.needs.upr ? plan.n : 0) + (plan.needs.bsp ? Math.max(0, plan.n - 2) : 0);
}
