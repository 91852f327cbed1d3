/**
 * The run items a MoI run writes (generic `run_items`, migration 0006). Keys are JSON arrays whose
 * first element names the item type, so a type is a key prefix, and every key is a pure function of
 * the unit's identity (never a counter), which makes resuming idempotent:
 *
 *   ["q", qid]               query     ''                     the query as the run saw it: passages in retriever
 *                                                                order (text snapshot, retriever score, gold), the
 *                                                                MoI permutation set and the self-consistency set
 *   ["s", qid, "2,0,1"]      perm      'moi'        i         one scored ordering (Eq. 3): s_i and its two terms
 *   ["pw", qid, p]           pointwise 'pointwise'  p         passage p alone: log P(q | p), log P(p), Σ P log P,
 *                                                                LongLLMLingua code-variant mean (one pass)
 *   ["upr", qid, p]          upr       'qg'         p         QG: log P(q | UPR prompt with p)
 *   ["bsp", qid, k]          bsp-step  'bayes-saliency-plus' k   greedy step k ≥ 1 of Eq. 2 (all candidates in one request)
 *   ["fit", qid]             fit       'moi'                  the fitted a, u, ranking, orientation, identifiability
 *   ["g", qid, promptHash]   generation ''                    one distinct final-answer prompt, its answer and values
 *   ["m", qid, method]       method    method                 a method's order(s), answer and cost for the query
 *
 * Passages are referred to by their 0-based index in retriever order (the query item maps them to ids).
 */
import type { RunItem } from '../../store/experimentsRepo';

export const KEY_PREFIX = {
  query: '["q",',
  perm: '["s",',
  pointwise: '["pw",',
  upr: '["upr",',
  bsp: '["bsp",',
  fit: '["fit",',
  generation: '["g",',
  method: '["m",',
} as const;

export const queryKey = (qid: string): string => JSON.stringify(['q', qid]);
export const permKey = (qid: string, order: readonly number[]): string => JSON.stringify(['s', qid, order.join(',')]);
export const pointwiseKey = (qid: string, p: number): string => JSON.stringify(['pw', qid, p]);
export const uprKey = (qid: string, p: number): string => JSON.stringify(['upr', qid, p]);
export const bspKey = (qid: string, step: number): string => JSON.stringify(['bsp', qid, step]);
export const fitKey = (qid: string): string => JSON.stringify(['fit', qid]);
export const generationKey = (qid: string, promptHash: string): string => JSON.stringify(['g', qid, promptHash]);
export const methodKey = (qid: string, method: string): string => JSON.stringify(['m', qid, method]);

export interface PassageSnapshot {
  docId: string;
  title: string;
  text: string;
  retrieverScore: number | null;
  gold: boolean | null;
}

export interface QueryPayload {
  type: 'query';
  text: string;
  answers: string[];
  task: string | null;
  /** Primary metric, then the extra metrics. */
  metrics: string[];
  passages: PassageSnapshot[];
  goldSource: 'utility' | 'relevance' | null;
  /** MoI's permutation set (passage indices in prompt order). */
  set: { kind: string; length: number; permutations: number[][]; note: string | null };
  /** Self-consistency / random permutations (null when neither baseline runs). */
  sc: number[][] | null;
  /** Methods of this query, in table order. */
  methods: string[];
}

/** Token counts of one score request. */
export interface ScoreCost {
  promptTokens: number;
  continuationTokens: number;
}

export interface PermPayload extends ScoreCost {
  type: 'perm';
  order: number[];
  /** s_i (Eq. 3, log domain): question + w · passages. */
  s: number;
  question: number;
  passages: number;
  questionTokens: number;
  passageTokens: number;
  /** Token texts matched the continuation exactly (false: positions estimated). */
  exactAlignment: boolean;
  fromCache: boolean;
}

export interface PointwisePayload extends ScoreCost {
  type: 'pointwise';
  passage: number;
  questionMean: number;
  questionSum: number;
  passageMean: number;
  passageSum: number;
  /** Σ_l P(q_l | p; q_<l) · log P(q_l | p; q_<l): LongLLMLingua as printed in MoI App. C. */
  pLogP: number;
  /** Mean log P of q + LLMLingua's suffix (the official code ranks by this, descending); null when not scored. */
  codeMean: number | null;
  exactAlignment: boolean;
  fromCache: boolean;
}

export interface UprPayload extends ScoreCost {
  type: 'upr';
  passage: number;
  mean: number;
  sum: number;
  fromCache: boolean;
}

export interface BspStepPayload extends ScoreCost {
  type: 'bsp-step';
  step: number;
  /** Passages selected before this step, in order. */
  head: number[];
  candidates: number[];
  /** Listwise saliency of each candidate (aligned with `candidates`). */
  scores: number[];
  chosen: number;
  /** Continuations scored (= candidates). */
  passes: number;
  exactAlignment: boolean;
  fromCache: boolean;
}

export interface FitPayload {
  type: 'fit';
  a: number[];
  u: number[];
  ranking: number[];
  objective: number;
  orientation: string;
  orientationRule: string;
  underdetermined: boolean;
  reasons: string[];
  biasSlope: number;
  retrieverTau: number | null;
  predictions: number[];
  converged: boolean;
  iterations: number;
  /** The bias profile the fit was held to (null: a was estimated). */
  fixedA: number[] | null;
  /** Why the fit is not certified (empty: certified) and how many starts / distinct optima (absent in runs before issue 23). */
  certificate?: { reasons: string[]; codes: string[]; distinctOptima: number; startsTried: number; bestCount: number; exactFit: boolean };
  /** Whether a position effect was detected (a distinguishable from uniform), its p-value and test. */
  positionEffect?: { detected: boolean; pValue: number | null; method: string };
}

/** The certificate and position-effect test of a fit as the views show them (null: a run before issue 23). */
export function fitChecks(fit: FitPayload): { certificate: { reasons: string[]; distinctOptima: number; startsTried: number; exactFit: boolean } | null; positionEffect: { detected: boolean; pValue: number | null; method: string } | null } {
  const c = fit.certificate;
  return {
    certificate: c ? { reasons: c.reasons, distinctOptima: c.distinctOptima, startsTried: c.startsTried, exactFit: c.exactFit } : null,
    positionEffect: fit.positionEffect ? { detected: fit.positionEffect.detected, pValue: fit.positionEffect.pValue, method: fit.positionEffect.method } : null,
  };
}

/** Full-length prompts: the mirror twins fit equally well, so the orientation rule, not the data, chose the curve and ranking. */
export function orientationByRule(fit: Pick<FitPayload, 'orientation'>): boolean {
  return fit.orientation === 'kept' || fit.orientation === 'mirrored';
}

/** The fit's uncertainty in words: '' when certified and a position effect was found (or the fit predates the checks). */
export function fitCaveats(fit: FitPayload): string[] {
  const out: string[] = [];
  if (!fit.converged) out.push(`not certified: ${(fit.certificate?.reasons ?? ['iteration cap reached']).join('; ')}`);
  if (fit.positionEffect && !fit.positionEffect.detected) out.push('no position effect detected');
  if (orientationByRule(fit)) out.push(`orientation set by the rule '${fit.orientationRule}', not by the data (full-length prompts: mirror twins fit equally)`);
  return out;
}

export interface GenerationPayload {
  type: 'generation';
  promptHash: string;
  prompt: string;
  /** The first order that rendered to this prompt. */
  order: number[];
  output: string;
  /** Metric name → value in the metric's own units. */
  values: Record<string, number>;
  promptTokens: number;
  completionTokens: number;
  finishReason: string;
  fromCache: boolean;
}

export interface MethodCost {
  scorePasses: number;
  scoreRequests: number;
  generations: number;
  scoredTokens: number;
  generationPromptTokens: number;
  completionTokens: number;
}

export interface MethodPayload {
  type: 'method';
  method: string;
  /** The order fed to the generator (null: several, e.g. random / self-consistency). */
  order: number[] | null;
  /** The generations the method's value comes from (one, or K for random / self-consistency). */
  promptHashes: string[];
  /** Per-passage score of a pointwise reranker (index = passage). */
  scores: number[] | null;
  /** Self-consistency: the chosen answer's index in promptHashes and how many answers agreed. */
  chosen: { index: number; support: number; rule: string } | null;
  planned: Pick<MethodCost, 'scorePasses' | 'scoreRequests' | 'generations'>;
  cost: MethodCost;
  note: string | null;
}

export interface MoiRunData {
  queries: Map<string, QueryPayload>;
  /** qid → permutation key → payload. */
  perms: Map<string, Map<string, PermPayload>>;
  pointwise: Map<string, Map<number, PointwisePayload>>;
  upr: Map<string, Map<number, UprPayload>>;
  bsp: Map<string, Map<number, BspStepPayload>>;
  fits: Map<string, FitPayload>;
  /** generationKey → payload. */
  generations: Map<string, GenerationPayload>;
  /** qid → method → payload. */
  methods: Map<string, Map<string, MethodPayload>>;
}

function nested<K, V>(map: Map<string, Map<K, V>>, qid: string): Map<K, V> {
  let m = map.get(qid);
  if (!m) map.set(qid, (m = new Map()));
  return m;
}

export function indexRunItems(items: readonly RunItem[]): MoiRunData {
  const d: MoiRunData = { queries: new Map(), perms: new Map(), pointwise: new Map(), upr: new Map(), bsp: new Map(), fits: new Map(), generations: new Map(), methods: new Map() };
  for (const it of items) {
    const p = it.payload as { type?: string };
    switch (p.type) {
      case 'query':
        d.queries.set(it.queryId, p as QueryPayload);
        break;
      case 'perm':
        nested(d.perms, it.queryId).set((p as PermPayload).order.join(','), p as PermPayload);
        break;
      case 'pointwise':
        nested(d.pointwise, it.queryId).set((p as PointwisePayload).passage, p as PointwisePayload);
        break;
      case 'upr':
        nested(d.upr, it.queryId).set((p as UprPayload).passage, p as UprPayload);
        break;
      case 'bsp-step':
        nested(d.bsp, it.queryId).set((p as BspStepPayload).step, p as BspStepPayload);
        break;
      case 'fit':
        d.fits.set(it.queryId, p as FitPayload);
        break;
      case 'generation':
        d.generations.set(it.key, p as GenerationPayload);
        break;
      case 'method':
        nested(d.methods, it.queryId).set((p as MethodPayload).method, p as MethodPayload);
        break;
    }
  }
  return d;
}
