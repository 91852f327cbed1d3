/**
 * The Fair RAG wizard's form and the spec it stands for (FairRagSpec in the API contract). The form
 * holds what the inputs edit (numbers may be empty, alphas are text); `formToSpec` leaves out what
 * is empty or at its default-by-omission so the service fills the schema's defaults, and
 * `specToForm` reads any valid or partial spec back (an imported file, or a stored version to edit).
 */
import type { FairRagSpec } from '$contract';
import { generatorSelector, generatorValue } from '../kindWizard';
import { emptyBasics, type BasicsForm } from '../wizardState.svelte';
import type { FlowStepId } from '../wizardSteps';

type Metric = NonNullable<NonNullable<FairRagSpec['utilityMetric']>['name']>;

/** Every utility metric of the contract (a missing or extra key is a type error). */
export const UTILITY_METRICS: Record<Metric, string> = {
  rouge1: 'ROUGE-1',
  rouge2: 'ROUGE-2',
  rougeL: 'ROUGE-L',
  rougeLsum: 'ROUGE-Lsum',
  f1: 'token F1',
  em: 'exact match',
  accuracy: 'accuracy (label match)',
  mae: 'MAE (lower is better)',
  rmse: 'RMSE (lower is better)',
};

export type Num = number | null | undefined | '';

export interface RetrieverForm {
  name: string;
  method: FairRagSpec['retrievers'][number]['method'];
  k1: Num;
  b: Num;
  idf: 'robertson' | 'lucene' | 'rank_bm25';
  epsilon: Num;
  tokenizer: 'whitespace' | 'words';
  model: string;
  metric: 'cosine' | 'dot';
  /** Candidate texts longer than the embedding model's context: refused (the default, left out of the spec) or cut. */
  overlong: 'refuse' | 'cut';
  fuse: string[];
  rrfK: Num;
  rankBase: 0 | 1;
  runId: Num;
}

/** The basics (name, collection, query subset, generator) as every kind's wizard has them, and Fair RAG's own fields. */
export interface WizardForm extends BasicsForm {
  minUseful: Num;
  retrievalQuery: 'text' | 'lamp';
  retrievers: RetrieverForm[];
  /** `model:<name>`, `remote:<name>`, `local-id:<id>` or `remote-id:<id>`. */
  generator: string;
  maxTokens: Num;
  temperature: Num;
  chat: boolean;
  stop: string;
  promptTemplate: string;
  budgetUnit: '' | 'words' | 'chars' | 'tokens';
  /** How a prompt over its budget is cut: documents from the end of the ranking, or the released code's end cut. */
  budgetTruncate: 'documents' | 'paper-end';
  queryMax: Num;
  total: Num;
  k: Num;
  samples: Num;
  alphas: string;
  oracle: boolean;
  deterministic: boolean;
  normalization: 'paper' | 'code';
  target: 'paper' | 'code';
  utilityName: '' | Metric;
  utilityImpl: '' | 'rouge-score' | 'pltrdy';
  utilityStem: '' | 'yes' | 'no';
  utilityWorst: Num;
  providerAttribute: string;
  judge: 'none' | 'nli-llm' | 'citation';
  judgeGenerator: string;
  judgeThreshold: Num;
  judgeTemplate: string;
  judgeFormat: 'json' | 'yes-no';
  judgeMaxTokens: Num;
  seedSampling: Num;
  seedGeneration: Num;
}

export const BM25_PRESETS = {
  fairrag: { label: 'BM25 — rank_bm25 as Fair-RAG (k1 1.5, b 0.75, whitespace, case kept)', k1: 1.5, b: 0.75, idf: 'rank_bm25', epsilon: 0.25, tokenizer: 'whitespace' },
  lucene: { label: 'BM25 — Lucene (k1 0.9, b 0.4, lower-cased words)', k1: 0.9, b: 0.4, idf: 'lucene', epsilon: 0.25, tokenizer: 'words' },
  robertson: { label: 'BM25 — Robertson idf (k1 1.2, b 0.75, words)', k1: 1.2, b: 0.75, idf: 'robertson', epsilon: 0.25, tokenizer: 'words' },
} as const;

export function newRetriever(method: RetrieverForm['method'], name: string, preset: keyof typeof BM25_PRESETS = 'fairrag'): RetrieverForm {
  const p = BM25_PRESETS[preset];
  return { name, method, k1: p.k1, b: p.b, idf: p.idf, epsilon: p.epsilon, tokenizer: p.tokenizer, model: '', metric: 'cosine', overlong: 'refuse', fuse: [], rrfK: 60, rankBase: 1, runId: '' };
}

export function defaultForm(): WizardForm {
  return {
    ...emptyBasics(),
    minUseful: 2,
    retrievalQuery: 'text',
    retrievers: [newRetriever('bm25', 'bm25')],
    maxTokens: 32,
    temperature: 0,
    chat: false,
    stop: '',
    promptTemplate: '',
    budgetUnit: '',
    budgetTruncate: 'documents',
    queryMax: '',
    total: '',
    k: 5,
    samples: 100,
    alphas: '1, 2, 4, 8',
    oracle: true,
    deterministic: true,
    normalization: 'paper',
    target: 'paper',
    utilityName: '',
    utilityImpl: '',
    utilityStem: '',
    utilityWorst: '',
    providerAttribute: 'provider',
    judge: 'none',
    judgeGenerator: '',
    judgeThreshold: '',
    judgeTemplate: '',
    judgeFormat: 'json',
    judgeMaxTokens: 32,
    seedSampling: 42,
    seedGeneration: 0,
  };
}

const isSet = (v: Num): v is number => typeof v === 'number' && !Number.isNaN(v);
/** A number field: omitted when empty (the schema's default applies). */
const num = <K extends string>(key: K, v: Num): Partial<Record<K, number>> => (isSet(v) ? ({ [key]: v } as Record<K, number>) : {});

/** "1, 2 4;8" → [1, 2, 4, 8]; a token that is not a number stays as NaN (reported by validation). */
export function parseAlphas(text: string): number[] {
  return text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((t) => (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : Number.NaN));
}

function retrieverSpec(r: RetrieverForm): Record<string, unknown> {
  const base = { name: r.name.trim(), method: r.method };
  switch (r.method) {
    case 'bm25':
      return { ...base, params: { ...num('k1', r.k1), ...num('b', r.b), idf: r.idf, ...num('epsilon', r.epsilon), tokenizer: r.tokenizer } };
    case 'dense':
      return { ...base, params: { model: r.model, metric: r.metric, ...(r.overlong === 'cut' ? { overlong: 'cut' } : {}) } };
    case 'rrf':
      return { ...base, params: { fuse: r.fuse, ...num('k', r.rrfK), rankBase: r.rankBase } };
    case 'run':
      return { ...base, params: { runId: isSet(r.runId) ? r.runId : null } };
  }
}

/** The spec the form stands for (sent to experiments.validateSpec / create / update). */
export function formToSpec(f: WizardForm): Record<string, unknown> {
  const gen = generatorSelector(f.generator);
  const judgeGen = generatorSelector(f.judgeGenerator);
  const utility = {
    ...(f.utilityName ? { name: f.utilityName } : {}),
    ...(f.utilityImpl ? { impl: f.utilityImpl } : {}),
    ...(f.utilityStem ? { stem: f.utilityStem === 'yes' } : {}),
    ...num('worst', f.utilityWorst),
  };
  const stop = f.stop
    .split('\n')
    .map((s) => s.replace(/\\n/g, '\n'))
    .filter((s) => s.length > 0);
  return {
    kind: 'fair-rag',
    name: f.name,
    ...(f.description.trim() ? { description: f.description } : {}),
    collection: f.collection,
    queries: f.queryMode === 'ids' ? f.queryIds : 'all',
    ...(f.queryMode === 'tasks' ? { tasks: f.tasks } : {}),
    ...num('minUseful', f.minUseful),
    retrievalQuery: f.retrievalQuery,
    retrievers: f.retrievers.map(retrieverSpec),
    generator: gen ?? null,
    decoding: { ...num('maxTokens', f.maxTokens), ...num('temperature', f.temperature), chat: f.chat, ...(stop.length ? { stop } : {}) },
    ...(f.promptTemplate.trim() ? { promptTemplate: f.promptTemplate } : {}),
    ...(f.budgetUnit
      ? { promptBudget: { unit: f.budgetUnit, ...num('queryMax', f.queryMax), ...num('total', f.total), ...(f.budgetTruncate === 'paper-end' ? { truncate: 'paper-end' } : {}) } }
      : {}),
    ...num('k', f.k),
    ...num('samples', f.samples),
    alphas: parseAlphas(f.alphas),
    oracle: f.oracle,
    deterministic: f.deterministic,
    normalization: f.normalization,
    target: f.target,
    ...(Object.keys(utility).length ? { utilityMetric: utility } : {}),
    providerAttribute: f.providerAttribute,
    attribution: {
      judge: f.judge,
      ...(f.judge === 'nli-llm' && judgeGen ? { generator: judgeGen } : {}),
      ...(f.judge === 'nli-llm' ? num('threshold', f.judgeThreshold) : {}),
      ...(f.judge !== 'none' && f.judgeTemplate.trim() ? { template: f.judgeTemplate } : {}),
      format: f.judgeFormat,
      ...num('maxTokens', f.judgeMaxTokens),
    },
    seeds: { ...num('sampling', f.seedSampling), ...num('generation', f.seedGeneration) },
  };
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const numOr = (v: unknown, fallback: Num): Num => (typeof v === 'number' ? v : fallback);
const oneOf = <T extends string>(v: unknown, options: readonly T[], fallback: T): T => (options.includes(v as T) ? (v as T) : fallback);

/** The form of a spec (imported or stored); fields the spec leaves out take the wizard's defaults. */
export function specToForm(raw: unknown): WizardForm {
  const s = obj(raw);
  const d = defaultForm();
  const dec = obj(s.decoding);
  const budget = s.promptBudget === undefined ? undefined : obj(s.promptBudget);
  const util = obj(s.utilityMetric);
  const att = obj(s.attribution);
  const seeds = obj(s.seeds);
  const queries = s.queries;
  const tasks = Array.isArray(s.tasks) ? s.tasks.map(String) : [];
  const retrievers = Array.isArray(s.retrievers)
    ? s.retrievers.map((x, i): RetrieverForm => {
        const r = obj(x);
        const p = obj(r.params);
        const method = oneOf(r.method, ['bm25', 'dense', 'rrf', 'run'] as const, 'bm25');
        const base = newRetriever(method, str(r.name, `r${i + 1}`));
        return {
          ...base,
          k1: numOr(p.k1, base.k1),
          b: numOr(p.b, base.b),
          idf: oneOf(p.idf, ['robertson', 'lucene', 'rank_bm25'] as const, base.idf),
          epsilon: numOr(p.epsilon, base.epsilon),
          tokenizer: oneOf(p.tokenizer, ['whitespace', 'words'] as const, base.tokenizer),
          model: str(p.model),
          metric: oneOf(p.metric, ['cosine', 'dot'] as const, 'cosine'),
          overlong: oneOf(p.overlong, ['refuse', 'cut'] as const, 'refuse'),
          fuse: Array.isArray(p.fuse) ? p.fuse.map(String) : [],
          rrfK: method === 'rrf' ? numOr(p.k, 60) : 60,
          rankBase: p.rankBase === 0 ? 0 : 1,
          runId: numOr(p.runId, ''),
        };
      })
    : d.retrievers;
  return {
    name: str(s.name),
    description: str(s.description),
    collection: str(s.collection),
    queryMode: Array.isArray(queries) ? 'ids' : tasks.length ? 'tasks' : 'all',
    tasks,
    queryIds: Array.isArray(queries) ? queries.map(String) : [],
    minUseful: numOr(s.minUseful, 0),
    retrievalQuery: oneOf(s.retrievalQuery, ['text', 'lamp'] as const, 'text'),
    retrievers,
    generator: generatorValue(s.generator),
    maxTokens: numOr(dec.maxTokens, d.maxTokens),
    temperature: numOr(dec.temperature, d.temperature),
    chat: dec.chat === true,
    stop: Array.isArray(dec.stop) ? dec.stop.map((x) => String(x).replace(/\n/g, '\\n')).join('\n') : '',
    promptTemplate: str(s.promptTemplate),
    budgetUnit: budget ? oneOf(budget.unit, ['words', 'chars', 'tokens'] as const, 'words') : '',
    budgetTruncate: budget?.truncate === 'paper-end' ? 'paper-end' : 'documents',
    queryMax: budget ? numOr(budget.queryMax, '') : '',
    total: budget ? numOr(budget.total, '') : '',
    k: numOr(s.k, d.k),
    samples: numOr(s.samples, d.samples),
    alphas: Array.isArray(s.alphas) ? s.alphas.join(', ') : d.alphas,
    oracle: s.oracle === undefined ? d.oracle : s.oracle === true,
    deterministic: s.deterministic === undefined ? d.deterministic : s.deterministic === true,
    normalization: oneOf(s.normalization, ['paper', 'code'] as const, 'paper'),
    target: oneOf(s.target, ['paper', 'code'] as const, 'paper'),
    utilityName: oneOf(util.name, Object.keys(UTILITY_METRICS) as Metric[], '' as Metric) || '',
    utilityImpl: oneOf(util.impl, ['rouge-score', 'pltrdy'] as const, '' as 'pltrdy') || '',
    utilityStem: util.stem === true ? 'yes' : util.stem === false ? 'no' : '',
    utilityWorst: numOr(util.worst, ''),
    providerAttribute: str(s.providerAttribute, d.providerAttribute),
    judge: oneOf(att.judge, ['none', 'nli-llm', 'citation'] as const, 'none'),
    judgeGenerator: generatorValue(att.generator),
    judgeThreshold: numOr(att.threshold, ''),
    judgeTemplate: str(att.template),
    judgeFormat: oneOf(att.format, ['json', 'yes-no'] as const, 'json'),
    judgeMaxTokens: numOr(att.maxTokens, d.judgeMaxTokens),
    seedSampling: numOr(seeds.sampling, d.seedSampling),
    seedGeneration: numOr(seeds.generation, d.seedGeneration),
  };
}

/** Which step of the experiment flow (wizardSteps.ts) owns a spec field path (validation issues are counted per step). */
export const STEP_FIELDS: Partial<Record<FlowStepId, string[]>> = {
  data: ['kind', 'name', 'description', 'collection', 'queries', 'tasks', 'minUseful', 'retrievalQuery'],
  generator: ['generator', 'decoding', 'promptTemplate', 'promptBudget'],
  design: ['retrievers', 'k', 'samples', 'alphas', 'oracle', 'deterministic', 'normalization', 'target', 'seeds'],
  metrics: ['utilityMetric', 'providerAttribute', 'attribution'],
};
