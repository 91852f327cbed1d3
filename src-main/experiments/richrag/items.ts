/**
 * The run items a RichRAG run writes (generic `run_items`, migration 0006). Keys are JSON arrays whose
 * first element names the type, so a type is a key prefix, and every key is a pure function of the
 * unit it stores:
 *
 *   ["q", qid]              query       the query as the run saw it: answers, golden sub-aspects with
 *                                       sub-answers and their weights δ_i, candidate set, roles, qrels
 *   ["x", qid]              explorer    the explorer's prompt, raw output and parsed sub-aspects
 *   ["d", qid]              documents   the retrieval of every setting (per-aspect lists, pool with
 *                                       aspect tags), the plain-query list, and a snapshot of every
 *                                       document seen with φ(d, a_i) per sub-answer (written at once)
 *   ["l", qid, condition]   list        one condition's top-k (and the list-wise ranker's steps)
 *   ["g", qid, condition]   generation  the generator's prompt, answer and its scores
 *   ["j", qid, condition]   judgment    the pairwise judge, both orders, against the baseline
 *   ["t", qid, sample]      preference  US³: sample 0 the greedy list, 1.. sampled lists; the response
 *                                       to each and its reward (Eq. 11)
 *
 * `condition` is the item's condition for l/g/j (views filter by it) and '' otherwise; `sample` is the
 * US³ sample index for t and NULL otherwise.
 */
import type { RichRagCondition, RichRagSetting } from '../../api/contract/richrag';
import type { RunItem } from '../../store/experimentsRepo';

export const KEY_PREFIX = { query: '["q",', explorer: '["x",', documents: '["d",', list: '["l",', generation: '["g",', judgment: '["j",', preference: '["t",' } as const;

export const queryKey = (qid: string): string => JSON.stringify(['q', qid]);
export const explorerKey = (qid: string): string => JSON.stringify(['x', qid]);
export const documentsKey = (qid: string): string => JSON.stringify(['d', qid]);
export const listKey = (qid: string, condition: string): string => JSON.stringify(['l', qid, condition]);
export const generationKey = (qid: string, condition: string): string => JSON.stringify(['g', qid, condition]);
export const judgmentKey = (qid: string, condition: string): string => JSON.stringify(['j', qid, condition]);
export const preferenceKey = (qid: string, sample: number): string => JSON.stringify(['t', qid, sample]);

export interface GoldenAspect {
  aspect: string;
  answer: string;
  /** δ_i: normalised length of the sub-answer (com-rouge weight). */
  weight: number;
}

export interface QueryPayload {
  type: 'query';
  text: string;
  answers: string[];
  golden: GoldenAspect[];
  /** The query's candidate set, when it has one (retrieval scope 'candidates'). */
  candidates: string[] | null;
  roles: { evaluate: boolean; train: boolean };
  /** Relevance labels of the collection (kind 'relevance'), for `analysis.relevance: 'qrels'`. */
  qrels: Record<string, number>;
}

export interface ExplorerPayload {
  type: 'explorer';
  prompt: string;
  constraint: 'grammar' | 'json-schema';
  raw: string;
  finishReason: string;
  /** Sub-aspects after parsing, normalised de-duplication and the cap. */
  aspects: string[];
  /** The output was not complete JSON (cut at maxTokens) and the lenient parser recovered what it could. */
  repaired: boolean;
  fromCache: boolean;
}

export interface RetrievedList {
  aspect: string;
  /** The retrieval text q ∘ s. */
  query: string;
  ids: string[];
  scores: number[];
}

export interface PoolPayload {
  setting: RichRagSetting;
  /** The sub-aspects retrieved with (the query itself when there were none). */
  aspects: string[];
  /** No usable sub-aspect: the query stood in for them. */
  fallback: boolean;
  lists: RetrievedList[];
  /** The pool in merge order, each document with s(d). */
  pool: { id: string; aspects: string[] }[];
}

export interface DocSnapshot {
  title: string;
  text: string;
  /** φ(d, a_i) for each golden sub-answer, over the document's RichRAG string (richRagDocString). */
  phi: number[];
}

export interface DocumentsPayload {
  type: 'documents';
  scope: 'candidates' | 'collection';
  pools: PoolPayload[];
  /** The plain query's top N (the 'retriever' framework). */
  plain: RetrievedList;
  docs: Record<string, DocSnapshot>;
}

export interface RankStep {
  window: number;
  raw: string;
  docId: string;
  /** The output named no valid id (never with a working constraint); the first remaining was taken. */
  fallback: boolean;
  fromCache: boolean;
}

export interface ListPayload extends RichRagCondition {
  type: 'list';
  ranking: string[];
  steps: RankStep[] | null;
  constraint: 'grammar' | 'json-schema' | null;
  /** With a token budget (promptBudget.ts): windows whose candidates' texts were cut, the most cut in one prompt, the largest step prompt, and whether the counts were an estimate. */
  budget?: { windowsCut: number; documentsCut: number; maxPromptTokens: number; total: number; estimated?: true };
}

export interface AnswerScores {
  f1: number;
  r2: number;
  rl: number;
  cr1: number;
  cr2: number;
  crl: number;
  /** φ(answer, a_i) per sub-answer (coverage φ). */
  coverage: number[];
}

export interface GenerationPayload extends RichRagCondition {
  type: 'generation';
  ranking: string[];
  prompt: string;
  output: string;
  finishReason: string;
  promptTokens: number;
  completionTokens: number;
  scores: AnswerScores;
  fromCache: boolean;
  /** With a token budget (promptBudget.ts): the prompt's tokens as counted, the budget, the sources cut to fit (to `cap` tokens each), and whether the counts were an estimate. */
  budget?: { tokens: number; total: number; documentsCut: number; cap?: number; estimated?: true };
}

export type Verdict = 'system' | 'baseline' | 'tie';

export interface JudgmentPayload {
  type: 'judgment';
  condition: string;
  baseline: string;
  /** [system shown as A, baseline shown as A]: what each order said, mapped to system/baseline/tie. */
  verdicts: Verdict[];
  raw: string[];
  outcome: 'win' | 'tie' | 'loss';
  note: string | null;
  fromCache: boolean;
}

export interface PreferencePayload {
  type: 'preference';
  setting: RichRagSetting;
  sample: number;
  greedy: boolean;
  ranking: string[];
  steps: RankStep[];
  prompt: string;
  response: string;
  reward: { answer: number; coverage: number; reward: number };
  fromCache: boolean;
}

/** A run's items, typed and indexed by query. */
export interface RichRagRunData {
  queries: Map<string, QueryPayload>;
  explorer: Map<string, ExplorerPayload>;
  documents: Map<string, DocumentsPayload>;
  /** qid → condition → payload. */
  lists: Map<string, Map<string, ListPayload>>;
  generations: Map<string, Map<string, GenerationPayload>>;
  judgments: Map<string, Map<string, JudgmentPayload>>;
  /** qid → samples in sample order. */
  preferences: Map<string, PreferencePayload[]>;
}

function nested<T>(map: Map<string, Map<string, T>>, qid: string, key: string, value: T): void {
  let inner = map.get(qid);
  if (!inner) map.set(qid, (inner = new Map()));
  inner.set(key, value);
}

export function indexRunItems(items: readonly RunItem[]): RichRagRunData {
  const data: RichRagRunData = { queries: new Map(), explorer: new Map(), documents: new Map(), lists: new Map(), generations: new Map(), judgments: new Map(), preferences: new Map() };
  for (const it of items) {
    const p = it.payload as { type?: string };
    switch (p.type) {
      case 'query':
        data.queries.set(it.queryId, p as QueryPayload);
        break;
      case 'explorer':
        data.explorer.set(it.queryId, p as ExplorerPayload);
        break;
      case 'documents':
        data.documents.set(it.queryId, p as DocumentsPayload);
        break;
      case 'list':
        nested(data.lists, it.queryId, it.condition, p as ListPayload);
        break;
      case 'generation':
        nested(data.generations, it.queryId, it.condition, p as GenerationPayload);
        break;
      case 'judgment':
        nested(data.judgments, it.queryId, it.condition, p as JudgmentPayload);
        break;
      case 'preference': {
        const list = data.preferences.get(it.queryId) ?? [];
        list.push(p as PreferencePayload);
        data.preferences.set(it.queryId, list);
        break;
      }
    }
  }
  for (const list of data.preferences.values()) list.sort((a, b) => a.sample - b.sample);
  return data;
}

/** Pool documents' prompt labels: D1, D2, … by pool position (stable across windows and exports). */
export const docLabel = (poolIndex: number): string => `D${poolIndex + 1}`;
