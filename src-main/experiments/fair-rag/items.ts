/**
 * The run items a Fair RAG run writes (generic `run_items` rows; migration 0006) and how they are
 * read back. Keys are JSON arrays whose first element names the item type, so a type is a key
 * prefix and every key is a pure function of the unit's identity:
 *
 *   ["q", qid]                          type 'query'      condition ''      sample NULL
 *       the query as the run saw it: answers, metric, every candidate with its utility label and
 *       provider (a snapshot: later label edits do not change the run) and each retriever's scores
 *   ["s", qid, condition, sample]       type 'sample'     condition e.g. 'bm25/alpha=2'   sample 0..N-1
 *       one sampled top-k ranking and the hash of the prompt it gives
 *   ["g", qid, promptHash]              type 'generation' condition ''      sample NULL
 *       one distinct prompt (shared by every sample that renders to it), the generator's output,
 *       its utility, and (citation judge) the cited positions
 *   ["j", qid, outputHash, docId]       type 'judgment'   condition ''      sample NULL
 *       one NLI judgment: does document docId entail this output (shared by every sample whose
 *       output and top k agree)
 *
 * Conditions: `<retriever>/alpha=<α>`, `<retriever>/deterministic`, `oracle` (retriever-independent).
 */
import type { RunItem } from '../../store/experimentsRepo';

export const KEY_PREFIX = { query: '["q",', sample: '["s",', generation: '["g",', judgment: '["j",' } as const;

// Each key is exactly JSON.stringify of its array, built from its parts' own JSON (a run makes one
// key per sampled ranking and per retrieved document: the array and its walk were a measurable share).
export const queryKey = (qid: string): string => `["q",${JSON.stringify(qid)}]`;
export const sampleKey = (qid: string, condition: string, sample: number): string => `["s",${JSON.stringify(qid)},${JSON.stringify(condition)},${JSON.stringify(sample)}]`;
export const generationKey = (qid: string, promptHash: string): string => `["g",${JSON.stringify(qid)},${JSON.stringify(promptHash)}]`;
export const judgmentKey = (qid: string, outputHash: string, docId: string): string => `["j",${JSON.stringify(qid)},${JSON.stringify(outputHash)},${JSON.stringify(docId)}]`;
/** The prefix every key of one item type and one query starts with (a key range of the run's items). */
export const queryKeyPrefix = (type: keyof typeof KEY_PREFIX, qid: string): string => `${KEY_PREFIX[type]}${JSON.stringify(qid)},`;

export const ORACLE = 'oracle';
export const alphaCondition = (retriever: string, alpha: number): string => `${retriever}/alpha=${alpha}`;
export const deterministicCondition = (retriever: string): string => `${retriever}/deterministic`;

export type Policy = 'pl' | 'deterministic' | 'oracle';

export interface CandidateSnapshot {
  docId: string;
  useful: boolean;
  provider: string | null;
}

export interface QueryPayload {
  type: 'query';
  text: string;
  retrievalText: string;
  answers: string[];
  task: string | null;
  /** The utility metric used for this query (spec override or the query's own). */
  metric: string;
  lowerIsBetter: boolean;
  /** Lower-is-better only: u → worst − u. */
  worst: number | null;
  candidates: CandidateSnapshot[];
  /** Retriever name → scores aligned with `candidates`. */
  scores: Record<string, number[]>;
}

export interface SamplePayload {
  type: 'sample';
  retriever: string | null;
  alpha: number | null;
  policy: Policy;
  ranking: string[];
  promptHash: string;
}

/** A sample payload's JSON up to its ranking: the same for every sample of one arm. */
export interface SampleJsonHead {
  retriever: string | null;
  alpha: number | null;
  policy: Policy;
  head: string;
}

/**
 * JSON.stringify(payload) of a sample payload (the same text, byte for byte), with the part every
 * sample of an arm shares (`type`, `retriever`, `alpha`, `policy`) serialized once per arm: `heads`
 * keeps it by condition and is checked against the payload's own fields on each use.
 */
export function samplePayloadJson(p: SamplePayload, condition: string, heads: Map<string, SampleJsonHead>): string {
  let h = heads.get(condition);
  if (!h || h.retriever !== p.retriever || !Object.is(h.alpha, p.alpha) || h.policy !== p.policy) {
    const head = JSON.stringify({ type: p.type, retriever: p.retriever, alpha: p.alpha, policy: p.policy });
    heads.set(condition, (h = { retriever: p.retriever, alpha: p.alpha, policy: p.policy, head: `${head.slice(0, -1)},"ranking":` }));
  }
  return `${h.head}${JSON.stringify(p.ranking)},"promptHash":${JSON.stringify(p.promptHash)}}`;
}

export interface GenerationPayload {
  type: 'generation';
  promptHash: string;
  prompt: string;
  output: string;
  outputHash: string;
  promptTokens: number;
  completionTokens: number;
  finishReason: string;
  /** The metric's own value. */
  utilityRaw: number;
  /** Higher-is-better value (= utilityRaw unless the metric is lower-is-better). */
  utility: number;
  /** Citation judge: 1-based positions cited as [n] in the output (within the ranking). */
  citations?: number[];
  /** What the prompt budget cut in this prompt (absent when nothing was cut). */
  budgetCuts?: { documentsCut: number; documentsDropped: number; queryCut: boolean };
  /** The prompt budget was counted by an estimate (no tokenizer answered), not in the model's tokens. */
  budgetEstimated?: true;
  /** Whether the call cache answered (false: the engine computed it during this run). */
  fromCache: boolean;
}

export interface JudgmentPayload {
  type: 'judgment';
  docId: string;
  outputHash: string;
  /** The judge prompt (null when no call was needed, e.g. an empty output). */
  prompt: string | null;
  /** The judge's raw answer (text, or the two log-probabilities with a threshold). */
  raw: string | null;
  entails: boolean;
  /** With a threshold: P(entails) from the two continuations' log-probabilities. */
  pEntails?: number;
  note?: string;
  /** The premise (document) was cut to fit the judge's context: shortened, or left out entirely. */
  premiseCut?: 'shortened' | 'left out';
  fromCache: boolean;
}

export interface SampleRecord extends SamplePayload {
  queryId: string;
  condition: string;
  sample: number;
}

/** A run's items, typed and indexed. */
export interface FairRagRunData {
  queries: Map<string, QueryPayload>;
  /** qid → condition → samples in sample order. */
  samples: Map<string, Map<string, SampleRecord[]>>;
  /** generationKey → payload. */
  generations: Map<string, GenerationPayload>;
  /** judgmentKey → payload. */
  judgments: Map<string, JudgmentPayload>;
}

export function indexRunItems(items: readonly RunItem[]): FairRagRunData {
  const data = emptyRunData();
  // The payloads are the caller's: a sample record is a copy with its columns added.
  for (const it of items) addItem(data, it.key, it.queryId, it.condition, it.sample, it.payload, false);
  return sortSamples(data);
}

/**
 * The same index from raw item rows (`ExperimentsRepo.itemTexts`): each payload parsed once and, for a
 * sample, its columns added to the parsed object itself (no RunItem per row, no copy of 11,000 samples;
 * a summary reads every item of a run). Equal to `indexRunItems(repo.items(runId))`: the index does not
 * depend on the order of the rows (maps by key or query, samples sorted by their index).
 */
export function indexRunItemTexts(rows: readonly (readonly [key: string, queryId: string, condition: string, sample: number | null, payload: string])[]): FairRagRunData {
  const data = emptyRunData();
  for (const r of rows) addItem(data, r[0], r[1], r[2], r[3], JSON.parse(r[4]) as unknown, true);
  return sortSamples(data);
}

const emptyRunData = (): FairRagRunData => ({ queries: new Map(), samples: new Map(), generations: new Map(), judgments: new Map() });

function addItem(data: FairRagRunData, key: string, queryId: string, condition: string, sample: number | null, payload: unknown, owned: boolean): void {
  const p = payload as { type?: string };
  switch (p.type) {
    case 'query':
      data.queries.set(queryId, p as QueryPayload);
      break;
    case 'sample': {
      let byCondition = data.samples.get(queryId);
      if (!byCondition) data.samples.set(queryId, (byCondition = new Map()));
      let list = byCondition.get(condition);
      if (!list) byCondition.set(condition, (list = []));
      let record: SampleRecord;
      if (owned) {
        record = p as SampleRecord;
        record.queryId = queryId;
        record.condition = condition;
        record.sample = sample ?? 0;
      } else record = { ...(p as SamplePayload), queryId, condition, sample: sample ?? 0 };
      list.push(record);
      break;
    }
    case 'generation':
      data.generations.set(key, p as GenerationPayload);
      break;
    case 'judgment':
      data.judgments.set(key, p as JudgmentPayload);
      break;
  }
}

function sortSamples(data: FairRagRunData): FairRagRunData {
  for (const byCondition of data.samples.values()) for (const list of byCondition.values()) list.sort((a, b) => a.sample - b.sample);
  return data;
}
