/**
 * RichRAG (Wang et al.) as an experiment kind: spec schema (API contract), execution, metrics,
 * drill-down, exports, manifest and prompt preview. See execute.ts for the pipeline and items.ts for
 * what a run stores.
 */
import { createHash } from 'node:crypto';
import { richRagConditions, RichRagSpec, type RichRagMetrics, type RichRagQueryView } from '../../api/contract/richrag';
import type { PromptPreviewBudget } from '../../api/contract/experiments';
import { DataError } from '../../core/errors';
import type { ModelRecord } from '../../io/manifest/manifest';
import { CollectionFtsIndex } from '../../retrieval/fts5/collectionIndex';
import type { ExperimentsRepo } from '../../store/experimentsRepo';
import { pageOfQueries } from '../itemsPage';
import type { ExperimentDeps, ExperimentKind, ItemsPage, ItemsQuery, ManifestParts } from '../registry';
import { analysisBaseline, judgeBaseline, promptAspects } from './conditions';
import { richRagCallBound } from './callBound';
import { richRagDesignWarnings } from './designWarnings';
import { loadRichRagData } from './data';
import { executeRichRag } from './execute';
import { normalizeAspects } from './explorer';
import { exportRichRag } from './exports';
import { generationPromptWithin, generationRequest } from './generation';
import { stepPrompt, windowBodies } from './listwiseRanker';
import { generatorBudget, rankerBudget, type PromptFit, type RichRagBudget } from './promptBudget';
import { ANSWER_MEASURES, richRagMetrics } from './metrics';
import { richRagModelNeeds } from './modelNeeds';
import { richRagPower } from './power';
import { preferenceSetting, rankerCandidates } from './preferences';
import { poolOf, staticRanking } from './rankers';
import { rankingMeasureNames, relevanceDefinition, ncomDeparture } from './rankingMetrics';
import { buildDocuments, candidateDocuments, candidateSearcher, collectionSearcher, usesCandidates } from './retrieval';
import { HIGHLIGHT_RULE } from './highlight';
import { KEY_PREFIX } from './items';
import { TIE_RULE } from './judge';
import { richRagQueryView } from './queryView';
import { manifestRuntime } from '../manifestRuntime';
import { constraintTransports } from './constraints';

export const richRagKind: ExperimentKind<RichRagSpec, RichRagMetrics, RichRagQueryView> = {
  kind: 'richrag',
  title: 'RichRAG: sub-aspect explorer, multi-faceted pool and list-wise ranking for rich answers (Wang et al.)',
  schema: RichRagSpec,
  jobTitle: (spec) => `RichRAG: ${spec.name}`,
  execute: executeRichRag,
  metrics: (input) => richRagMetrics(input),
  items: richRagItems,
  exportFile: (input, deps) => exportRichRag(input, () => richRagMetrics(input), deps),
  manifest: richRagManifest,
  previewPrompt,
  designWarnings: richRagDesignWarnings,
  callBound: (spec, deps) => {
    const { total, explorer, ranker, answers, judge, basis } = richRagCallBound(spec, deps.collections);
    return { total, parts: { explorer, ranker, answers, judge }, basis };
  },
  modelNeeds: richRagModelNeeds,
  power: richRagPower,
};

/** Drill-down items: one per query, its view (with `condition`, only that condition's list and judgments). */
function richRagItems(runId: number, spec: RichRagSpec, repo: ExperimentsRepo, query: ItemsQuery): ItemsPage<RichRagQueryView> {
  return pageOfQueries(repo, runId, KEY_PREFIX.query, query, (qid, items, condition) => {
    const view = richRagQueryView(spec, items, qid);
    if (condition === undefined) return view;
    return { ...view, conditions: view.conditions.filter((c) => c.condition === condition), judge: view.judge.filter((j) => j.condition === condition || j.baseline === condition) };
  });
}

/**
 * The prompt of one condition for a real query without any LLM call: the generator's prompt for
 * conditions whose list needs no LLM, the ranker's first step for 'listwise'. Predicted sub-aspects
 * need the explorer, so those conditions cannot be previewed. The prompt is fitted to the token
 * budget the run applies, by the same code and the same model's tokenizer (only `tokenize` is
 * called): it is the prompt the run sends, token for token, and `budget` says how it was counted.
 */
async function previewPrompt(spec: RichRagSpec, deps: ExperimentDeps, queryId: string, condition?: string) {
  const conditions = richRagConditions(spec);
  const c = condition === undefined ? conditions.find((x) => x.setting !== 'predicted') : conditions.find((x) => x.condition === condition);
  if (!c) throw new DataError(condition === undefined ? 'every condition of this spec needs predicted sub-aspects (the explorer LLM)' : `no condition '${condition}' in the spec`, { field: 'retriever' });
  if (c.setting === 'predicted') throw new DataError(`'${c.condition}' needs the explorer's sub-aspects: run the experiment, or preview a golden or aspect-free condition`, { field: 'retriever' });
  const data = loadRichRagData({ ...spec, queries: [queryId], tasks: undefined, preferences: { ...spec.preferences, enabled: false } }, deps.collections);
  const q = data.queries[0];
  if (!q) throw new DataError(`query '${queryId}' cannot be used: ${data.skipped[0]?.reason ?? 'unknown reason'}`, { field: 'queryId' });
  const index = usesCandidates(spec.retrieval.scope, q.candidates) ? undefined : CollectionFtsIndex.build(deps.db, data.collection.id);
  try {
    const searcher = index ? collectionSearcher(index) : candidateSearcher(candidateDocuments(deps.collections, data.collection.id, q.candidates ?? [], q.queryId), spec.retrieval.bm25);
    const golden = normalizeAspects(
      q.golden.map((g) => g.aspect),
      '',
      Number.MAX_SAFE_INTEGER,
    );
    const docs = buildDocuments({ ...spec, settings: ['golden'] }, searcher, (id) => deps.collections.getDocument(data.collection.id, id), {
      query: q.text,
      subAnswers: q.golden.map((g) => g.answer),
      aspects: new Map([['golden', golden]]),
    });
    const ranking = staticRanking(spec, docs, c.framework, c.setting);
    if (ranking === null) {
      // The ranker's first step of the first window, fitted as rankListwise fits it.
      const ref = deps.resolveGenerator(spec.ranker.generator ?? spec.generator, spec.ranker.generator ? 'ranker.generator' : 'generator');
      const engine = deps.engineFor(ref);
      const budget = await rankerBudget(spec, ref, (r) => engine.tokenize(r));
      const pool = poolOf(docs, 'golden');
      const window = rankerCandidates(docs, pool).slice(0, spec.ranker.window);
      const input = { query: q.text, aspects: pool.aspects, k: spec.k };
      const settings = { template: spec.ranker.template, docWords: spec.ranker.docWords, budget };
      const fitted = await windowBodies(input, settings, window, Math.min(spec.k, window.length), 0);
      const step = await stepPrompt(input, settings, window, fitted.bodies, [], 0, 0);
      // What was cut: the window's fit (its candidates are shown cut alike at every step), or the step's own refit.
      const fit = step.documentsCut > 0 ? step : { ...step, documentsCut: fitted.documentsCut, ...(fitted.cap !== undefined ? { cap: fitted.cap } : {}) };
      return { queryId, retriever: c.condition, ranking: window.map((x) => x.id), prompt: fit.prompt, budget: previewBudget(budget, fit) };
    }
    const engine = deps.engineFor(deps.resolveGenerator(spec.generator, 'generator'));
    const budget = await generatorBudget(spec, (r) => engine.tokenize(r));
    const shown = c.framework === 'closed-book' ? null : ranking.map((id) => docs.docs[id]!);
    const aspects = c.setting ? promptAspects(poolOf(docs, c.setting)) : [];
    const fit = await generationPromptWithin(spec.generation, budget, q.text, shown, aspects, `the answer prompt (${c.framework}${c.setting ? `, ${c.setting}` : ''})`);
    return { queryId, retriever: c.condition, ranking, prompt: fit.prompt, budget: previewBudget(budget, fit) };
  } finally {
    index?.drop();
  }
}

/** A previewed prompt's budget as the contract shows it (unit 'estimated tokens' where no tokenizer answered). */
function previewBudget(budget: RichRagBudget, fit: PromptFit): PromptPreviewBudget {
  const r = budget.report();
  return {
    field: budget.field,
    unit: r.unit,
    tokens: fit.tokens ?? null,
    total: r.total,
    origin: r.origin,
    documentsCut: fit.documentsCut,
    ...(fit.cap !== undefined ? { cap: fit.cap } : {}),
    ...(r.estimate ? { estimate: r.estimate } : {}),
  };
}

async function richRagManifest(runId: number, spec: RichRagSpec, deps: ExperimentDeps, stats: Record<string, unknown>): Promise<ManifestParts> {
  const models: ModelRecord[] = [];
  const described: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  const addModel = (role: string, selector: RichRagSpec['generator'] | undefined, field: string) => {
    const ref = deps.resolveGenerator(selector ?? spec.generator, selector ? field : 'generator');
    const d = deps.describeModel(ref);
    described.push({ role, ...d });
    if (d.kind === 'local' && typeof d.sha256 === 'string' && !seen.has(`${role}:${d.sha256}`)) {
      seen.add(`${role}:${d.sha256}`);
      models.push({ role, file: String(d.file), sha256: d.sha256, ...(typeof d.quantization === 'string' ? { quantization: d.quantization } : {}) });
    }
    return { ref, d };
  };
  const gen = addModel('generator', spec.generator, 'generator');
  const explorer = spec.settings.includes('predicted') ? addModel('sub-aspect explorer', spec.explorer.generator, 'explorer.generator') : undefined;
  const ranker = spec.frameworks.includes('listwise') || spec.preferences.enabled ? addModel('list-wise ranker', spec.ranker.generator, 'ranker.generator') : undefined;
  const judge = spec.judge.enabled ? addModel('pairwise judge', spec.judge.generator, 'judge.generator') : undefined;
  // 'auto' is a grammar locally and a JSON schema on a server: the transport each step used, named.
  const constraints = constraintTransports({
    ...(explorer ? { explorer: { setting: spec.explorer.constraint, ref: explorer.ref } } : {}),
    ...(ranker ? { ranker: { setting: spec.ranker.constraint, ref: ranker.ref } } : {}),
    ...(judge ? { judge: { setting: spec.judge.constraint, ref: judge.ref } } : {}),
  });
  let versions: Record<string, string> = {};
  try {
    versions = (await deps.engineFor(gen.ref).identity()).versions;
  } catch {
    // The manifest is still written; it says less about the runtime.
  }
  const collection = deps.collections.byName(spec.collection);
  const settings = (gen.d.settings ?? {}) as Record<string, unknown>;
  const subAnswers = JSON.stringify(
    deps.experiments.items(runId, { keyPrefix: '["q",' }).map((it) => [it.queryId, (it.payload as { golden?: unknown }).golden]),
  );
  return {
    run: { tag: spec.name, description: spec.description ?? `RichRAG run ${runId}` },
    ...manifestRuntime(versions, settings, spec.generation, { explorer: 'greedy, constrained', ranker: 'greedy, constrained (US³ samples: temperature and a seed per step)' }),
    models,
    seeds: { us3Sampling: spec.seeds.sampling, generation: spec.seeds.generation, randomizationTest: spec.seeds.sampling },
    parameters: {
      k: spec.k,
      settings: spec.settings,
      frameworks: spec.frameworks,
      conditions: richRagConditions(spec).map((c) => c.condition),
      queries: spec.queries,
      tasks: spec.tasks ?? null,
      explorer: spec.explorer,
      retrieval: spec.retrieval,
      ragFusion: spec.ragFusion,
      coverage: spec.coverage,
      ranker: { ...spec.ranker, windowRule: 'first W candidates; then the previous picks plus the next W − k unread (stride W − k); k constrained steps per window' },
      generation: spec.generation,
      // The token budgets as the run applied them: unit ('estimated tokens' where no tokenizer answered), total, origin, what was cut.
      promptBudget: stats.promptBudget ?? null,
      generationRequestExample: generationRequest(spec, '<prompt>'),
      judge: { ...spec.judge, baseline: judgeBaseline(spec), tieRule: TIE_RULE },
      preferences: { ...spec.preferences, setting: preferenceSetting(spec), reward: 'Eq. 11: mean pltrdy ROUGE-2/L, F for φ(r, a), recall for Σ δ_i φ(r, a_i)' },
      highlightRule: HIGHLIGHT_RULE,
      constraints,
    },
    data: {
      ...(collection ? { collection: { name: collection.name, sha256: collection.contentHash } } : {}),
      other: [{ name: 'golden sub-aspects and sub-answers (snapshot stored with the run)', sha256: createHash('sha256').update(subAnswers, 'utf8').digest('hex') }],
    },
    evaluation: {
      measures: [...ANSWER_MEASURES, ...rankingMeasureNames(spec.k)],
      measureParameters: { k: spec.k, relevance: relevanceDefinition(spec), rouge: 'pltrdy rouge 1.0.1 (F for R2/RL, recall for CR)', f1: 'SQuAD F1, max over answers and their join' },
      significance: { test: spec.analysis.test === 't' ? 'paired-t' : 'paired-randomization', correction: spec.analysis.correction, alpha: spec.analysis.alpha, alternative: 'two-sided', ...(spec.analysis.test === 'randomization' ? { seed: spec.seeds.sampling } : {}), ...(ncomDeparture(spec) ? { departure: ncomDeparture(spec)! } : {}) },
      baselines: [analysisBaseline(spec)],
    },
    extra: { runId, models: described, runtimeVersions: versions, stats },
  };
}
