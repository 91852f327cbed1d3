/**
 * What a utility-labeling request will do, decided before any model runs: which queries, which
 * candidates each has, which metric and which templates, and so how many LLM calls (1 baseline +
 * 1 per candidate and query; the job's progress units). Problems with the request (a bad
 * template, an unknown query or metric override) are errors; problems with one query's data (no
 * candidates, no reference answer, no metric) skip that query with a reason.
 *
 * Prompts are rendered per query while the job runs (renderQueryPrompts), not here, so a large
 * collection's plan stays small.
 */
import { createHash } from 'node:crypto';
import type { UtilityLabelRequest } from '../../api/contract/labeling';
import { ApiFailure } from '../../api/router';
import {
  charCounter,
  contextBudget,
  GENERIC_QA_TEMPLATES,
  lampTemplates,
  ModelTokenCounter,
  parsePromptTemplate,
  PromptBudgetError,
  PromptTemplateError,
  renderPromptWithin,
  wordCounter,
  type PromptBudget,
  type PromptCuts,
  type PromptTemplate,
} from '../../core/prompts/index';
import type { RougeImpl } from '../../core/text/textMetrics';
import { lampTaskByName, lampTaskByPrompt } from '../../io/importers/lampTasks';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { DocumentRow, JsonObject, QueryRow } from '../../store/collectionTypes';
import type { RetrievalRepo } from '../../store/retrievalRepo';
import { metricNameFor, utilityMetric, type UtilityMetric } from './utilityMetric';

export interface ResolvedTemplates {
  name: string;
  augmented: PromptTemplate;
  baseline: PromptTemplate;
  /** {name, sha256 of both texts, and the texts themselves when they are not a built-in default}. */
  provenance: JsonObject;
}

export interface PlannedQuery {
  query: QueryRow;
  candidateIds: string[];
  metric: UtilityMetric;
  templates: ResolvedTemplates;
}

export interface LabelPlan {
  queries: PlannedQuery[];
  skipped: { queryId: string; reason: string }[];
  /** LLM calls: Σ (1 + candidates). */
  calls: number;
  /** The budgets in words or chars (none in 'tokens' until the generator's tokenizer is known: `labelBudgets`). */
  budgets: LabelBudgets;
}

/** The prompts' budgets, with the resolved total and where it comes from. */
export interface LabelBudgets {
  augmented: PromptBudget | undefined;
  baseline: PromptBudget | undefined;
  /** The generator's tokenizer, for a budget in 'tokens' (render inside `tokens.settle`). */
  tokens?: ModelTokenCounter;
  total?: number | undefined;
  origin?: string;
}

export interface PlanSources {
  collections: CollectionsRepo;
  retrieval: RetrievalRepo;
}

export function buildLabelPlan(src: PlanSources, req: UtilityLabelRequest): LabelPlan {
  const { collectionId } = req;
  if (!src.collections.get(collectionId)) throw new ApiFailure('not-found', `no collection with id ${collectionId}`, 'collectionId');
  if (req.candidateRun) {
    const run = src.retrieval.run(req.candidateRun.runId);
    if (!run || run.collectionId !== collectionId) throw new ApiFailure('not-found', `no retrieval run ${req.candidateRun.runId} in this collection`, 'candidateRun.runId');
  }
  const templates = templateResolver(req.template);
  const metrics = metricResolver(req.metric, req.rougeImpl);
  const plan: LabelPlan = { queries: [], skipped: [], calls: 0, budgets: labelBudgets(req.truncation, req.maxTokens) };
  for (const query of selectQueries(src.collections, req)) {
    const skip = (reason: string) => plan.skipped.push({ queryId: query.queryId, reason });
    if (query.answers.length === 0) {
      skip('no reference answer');
      continue;
    }
    const metric = metrics(query);
    if (typeof metric === 'string') {
      skip(metric);
      continue;
    }
    const candidateIds = candidatesOf(src, req, query);
    if (candidateIds.length === 0) {
      skip(req.candidateRun ? 'no candidates and no results in the retrieval run' : 'no candidates (choose a retrieval run for such queries)');
      continue;
    }
    const missing = candidateIds.find((id) => !src.collections.getDocument(collectionId, id));
    if (missing !== undefined) {
      skip(`candidate '${missing}' is not a document of the collection`);
      continue;
    }
    plan.queries.push({ query, candidateIds, metric, templates: templates(query) });
    plan.calls += 1 + candidateIds.length;
  }
  return plan;
}

/** What the budget cut in one query's prompts (undefined: nothing). */
export interface QueryPromptCuts {
  baseline: PromptCuts | undefined;
  augmented: (PromptCuts | undefined)[];
}

/**
 * The baseline prompt and one augmented prompt per document, as the model gets them, and what the
 * budget cut. With a budget in 'tokens', call it inside `budgets.tokens.settle(...)`.
 */
export function renderQueryPrompts(pq: PlannedQuery, docs: readonly DocumentRow[], budgets: LabelBudgets): { baseline: string; augmented: string[]; cuts: QueryPromptCuts } {
  const { query } = pq;
  const ctx = (documents: readonly DocumentRow[]) => ({
    query: query.text,
    answer: query.answers[0]!,
    documents: documents.map((d) => ({ id: d.docId, title: d.title, text: d.text, attrs: d.attrs })),
  });
  const cutOrNot = (c: PromptCuts) => (c.queryCut || c.endCut || c.documentsCut > 0 || c.documentsDropped > 0 ? c : undefined);
  try {
    const baseline = renderPromptWithin(pq.templates.baseline, ctx([]), budgets.baseline);
    const augmented = docs.map((d) => renderPromptWithin(pq.templates.augmented, ctx([d]), budgets.augmented));
    return {
      baseline: baseline.prompt,
      augmented: augmented.map((a) => a.prompt),
      cuts: { baseline: cutOrNot(baseline.cuts), augmented: augmented.map((a) => cutOrNot(a.cuts)) },
    };
  } catch (err) {
    if (err instanceof PromptTemplateError) throw new ApiFailure('invalid-data', `query '${query.queryId}' (${pq.templates.name}): ${err.reason}`, 'template');
    if (err instanceof PromptBudgetError) throw new ApiFailure('invalid-data', `query '${query.queryId}': ${err.reason}`, 'truncation');
    throw err;
  }
}

function selectQueries(repo: CollectionsRepo, req: UtilityLabelRequest): QueryRow[] {
  let queries: QueryRow[];
  if (req.queryIds) {
    queries = [...new Set(req.queryIds)].map((id) => {
      const q = repo.getQuery(req.collectionId, id);
      if (!q) throw new ApiFailure('not-found', `no query '${id}' in this collection`, 'queryIds');
      return q;
    });
  } else {
    const total = repo.listQueries(req.collectionId, { limit: 0 }).total;
    queries = repo.listQueries(req.collectionId, { limit: Math.max(1, total) }).items;
  }
  return req.task === undefined ? queries : queries.filter((q) => q.task === req.task);
}

function candidatesOf(src: PlanSources, req: UtilityLabelRequest, query: QueryRow): string[] {
  const ids = query.candidates ?? (req.candidateRun ? src.retrieval.results(req.candidateRun.runId, { queryId: query.queryId, perQuery: req.candidateRun.topN }).map((r) => r.docId) : []);
  return [...new Set(ids)];
}

/** Metric per query, memoised by name; a string is the reason to skip the query. */
function metricResolver(override: string | undefined, impl: RougeImpl): (q: QueryRow) => UtilityMetric | string {
  const byName = new Map<string, UtilityMetric | string>();
  const build = (name: string): UtilityMetric | string => {
    let m = byName.get(name);
    if (m === undefined) {
      try {
        m = utilityMetric(name, impl);
      } catch (err) {
        if (override !== undefined) throw new ApiFailure('validation', (err as Error).message, 'metric');
        m = (err as Error).message;
      }
      byName.set(name, m);
    }
    return m;
  };
  if (override !== undefined) build(override);
  return (q) => {
    const name = metricNameFor(q, override);
    return name === undefined ? 'no metric (the query names none; choose one)' : build(name);
  };
}

/** Templates per query: the request's, else the default of the query's LaMP task (by name, then by its question), else generic QA. */
function templateResolver(custom: UtilityLabelRequest['template']): (q: QueryRow) => ResolvedTemplates {
  const parse = (text: string, field: 'augmented' | 'baseline'): PromptTemplate => {
    try {
      return parsePromptTemplate(text);
    } catch (err) {
      if (err instanceof PromptTemplateError) throw new ApiFailure('validation', `template.${field}: ${err.reason}`, `template.${field}`);
      throw err;
    }
  };
  const customAugmented = custom?.augmented !== undefined ? parse(custom.augmented, 'augmented') : undefined;
  const customBaseline = custom?.baseline !== undefined ? parse(custom.baseline, 'baseline') : undefined;
  if (customAugmented && !customAugmented.usesDocuments) {
    throw new ApiFailure('validation', 'template.augmented: the template never shows the document (use {{documents}} or a {{#documents}}…{{/documents}} block)', 'template.augmented');
  }
  const cache = new Map<string, ResolvedTemplates>();
  return (q) => {
    const lamp = (q.task !== null ? lampTaskByName(q.task) : undefined) ?? lampTaskByPrompt(q.text);
    const defaults = lamp ? lampTemplates(lamp.number) : GENERIC_QA_TEMPLATES;
    let resolved = cache.get(defaults.name);
    if (!resolved) {
      const augmented = customAugmented ?? parse(defaults.augmented, 'augmented');
      const baseline = customBaseline ?? parse(defaults.baseline, 'baseline');
      const name = customAugmented && customBaseline ? 'custom' : customAugmented || customBaseline ? `${defaults.name} + custom` : defaults.name;
      const sha256 = createHash('sha256').update(`${augmented.source}\u0000${baseline.source}`).digest('hex');
      resolved = {
        name,
        augmented,
        baseline,
        provenance: { name, sha256, ...(customAugmented ? { augmented: augmented.source } : {}), ...(customBaseline ? { baseline: baseline.source } : {}) },
      };
      cache.set(defaults.name, resolved);
    }
    return resolved;
  };
}

/**
 * The budgets of a request. In words or chars: Fair-RAG's query 256, total 512 (or the request's).
 * In 'tokens' (pass the generator's `tokens`, its context size probed): every token the engine
 * evaluates (`countPrompt`), the total defaulting to the context size − maxTokens and lowered to it.
 * Without `tokens` a 'tokens' request has no budget yet (the plan's; the job builds the real one).
 */
export function labelBudgets(t: UtilityLabelRequest['truncation'], maxTokens: number, tokens?: ModelTokenCounter): LabelBudgets {
  if (t.unit === 'none' || (t.unit === 'tokens' && !tokens)) return { augmented: undefined, baseline: undefined };
  const counter = t.unit === 'tokens' ? tokens! : t.unit === 'words' ? wordCounter : charCounter;
  const { total, origin } =
    t.unit === 'tokens' ? contextBudget(t.total, tokens!.contextSize, maxTokens, 'truncation.total') : { total: t.total ?? 512, origin: t.total !== undefined ? 'truncation.total' : 'default (Fair-RAG: 512)' };
  const common = {
    counter,
    ...(total !== undefined ? { total } : {}),
    truncate: t.truncate,
    origin,
    ...(t.unit === 'tokens' ? { measure: (p: string) => tokens!.countPrompt(p) } : {}),
  };
  return { augmented: { ...common, queryMax: t.queryMax }, baseline: common, ...(tokens && t.unit === 'tokens' ? { tokens } : {}), total, origin };
}
