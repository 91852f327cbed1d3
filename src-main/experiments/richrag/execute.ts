/**
 * Executes a RichRAG run, query by query: store the query; explore its sub-aspects (LLM); retrieve per
 * aspect and pool (pure, with φ of every document); rank with every framework (the list-wise one by
 * LLM steps); generate an answer per condition and score it; judge answers against the baseline
 * (optional); build the US³ lists with their responses and rewards (optional).
 *
 * Resume: every unit is an item under a key that names it (items.ts); a unit whose item is stored is
 * skipped, and every engine call goes through the workspace's call cache, so running again after a
 * cancel or a crash computes only what is missing and never repeats a finished call (a list-wise list
 * cut short is replayed from the cache up to where it stopped). Every ready call goes to its engine's
 * work queue: queries side by side, a query's conditions and judgments at once; the queue bounds
 * what is in flight (a local model's single sequence by default keeps greedy outputs reproducible).
 *
 * Progress counts units that need an LLM: explorer calls, list-wise lists, generations, judged pairs
 * and US³ lists.
 */
import { richRagConditions, type RichRagCondition, type RichRagSetting, type RichRagSpec } from '../../api/contract/richrag';
import type { GeneratorRef } from '../../api/contract/models';
import type { CachedEngine } from '../../engine/callCache';
import { DataError } from '../../core/errors';
import { EngineError, type GenerateRequest, type GenerateResult } from '../../engine/types';
import { CollectionFtsIndex } from '../../retrieval/fts5/collectionIndex';
import type { RunItem } from '../../store/experimentsRepo';
import { forEachUnit, isDeferred, lanesFor, settleAll } from '../concurrency';
import type { ExecuteContext, ExperimentDeps } from '../registry';
import { judgeBaseline, judgedSystems, promptAspects } from './conditions';
import { constraintTransports, resolveConstraint } from './constraints';
import { loadRichRagData, type RichRagData, type RichRagQuery } from './data';
import { explorerPrompt, explorerRequest, normalizeAspects, parseAspectList } from './explorer';
import { generationPromptWithin, generationRequest, scoreAnswer } from './generation';
import {
  documentsKey,
  explorerKey,
  generationKey,
  judgmentKey,
  KEY_PREFIX,
  listKey,
  preferenceKey,
  queryKey,
  type DocumentsPayload,
  type ExplorerPayload,
  type GenerationPayload,
  type JudgmentPayload,
  type ListPayload,
  type PreferencePayload,
  type Verdict,
} from './items';
import { combineVerdicts, judgePrompt, judgeRequest, verdictOf } from './judge';
import { rankListwise, type RankerEngine, type RankingResult } from './listwiseRanker';
import { preferenceSampling, preferenceSetting, rankerCandidates, rewardOf } from './preferences';
import { generatorBudget, rankerBudget, type RichRagBudget } from './promptBudget';
import { poolOf, staticRanking } from './rankers';
import { buildDocuments, candidateDocuments, candidateSearcher, collectionSearcher, usesCandidates, type Searcher } from './retrieval';

type Counted = RankerEngine;

interface Engines {
  generator: Counted;
  explorer: { engine: Counted; ref: GeneratorRef } | null;
  ranker: { engine: Counted; ref: GeneratorRef; budget?: RichRagBudget } | null;
  judge: { engine: Counted; ref: GeneratorRef } | null;
  /** The generator's token budget for answer prompts (promptBudget.ts). */
  generatorBudget?: RichRagBudget;
}

interface CallCounts {
  computed: number;
  fromCache: number;
}

/** A cached engine that reports, per call, whether the cache answered it, and counts both kinds. */
function counted(engine: CachedEngine, counts: CallCounts): Counted {
  return {
    async generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult & { fromCache: boolean }> {
      const { result, fromCache } = await engine.generateTracked(request, signal);
      signal?.throwIfAborted();
      if (result.finishReason === 'aborted') throw new Error('the call was aborted');
      if (fromCache) counts.fromCache++;
      else counts.computed++;
      return { ...result, fromCache };
    },
  };
}

export async function executeRichRag(ctx: ExecuteContext<RichRagSpec>): Promise<Record<string, unknown>> {
  const { spec, deps, runId, signal } = ctx;
  const started = performance.now();
  const repo = deps.experiments;
  const conditions = richRagConditions(spec);
  const listwise = conditions.filter((c) => c.framework === 'listwise');
  const counts: CallCounts = { computed: 0, fromCache: 0 };
  const engineList: CachedEngine[] = [];
  const engineOf = (selector: RichRagSpec['generator'] | undefined, field: string) => {
    const ref = deps.resolveGenerator(selector ?? spec.generator, selector ? field : 'generator');
    const engine = deps.engineFor(ref);
    engineList.push(engine);
    return { ref, engine: counted(engine, counts), raw: engine };
  };
  const generator = engineOf(spec.generator, 'generator');
  const engines: Engines = {
    generator: generator.engine,
    explorer: spec.settings.includes('predicted') ? engineOf(spec.explorer.generator, 'explorer.generator') : null,
    ranker: listwise.length > 0 || spec.preferences.enabled ? engineOf(spec.ranker.generator, 'ranker.generator') : null,
    judge: spec.judge.enabled ? engineOf(spec.judge.generator, 'judge.generator') : null,
  };

  ctx.progress(0, null, 'reading the collection');
  const data = loadRichRagData(spec, deps.collections);
  // Token budgets, counted with each model's tokenizer (default: what its context leaves).
  engines.generatorBudget = await generatorBudget(spec, (r) => generator.raw.tokenize(r, signal));
  if (engines.ranker) {
    const rankerRaw = deps.engineFor(engines.ranker.ref);
    engines.ranker.budget = await rankerBudget(spec, engines.ranker.ref, (r) => rankerRaw.tokenize(r, signal));
  }
  const stored = new Set<string>();
  for (const prefix of Object.values(KEY_PREFIX)) for (const key of repo.existingKeys(runId, prefix)) stored.add(key);
  const put = (item: RunItem) => {
    repo.upsertItems(runId, [item]);
    stored.add(item.key);
  };

  // The units that need an LLM, and how many of them are stored already.
  const judged = spec.judge.enabled ? judgedSystems(spec) : [];
  const units: string[] = [];
  for (const q of data.queries) {
    if (engines.explorer) units.push(explorerKey(q.queryId));
    if (q.roles.evaluate) {
      for (const c of listwise) units.push(listKey(q.queryId, c.condition));
      for (const c of conditions) units.push(generationKey(q.queryId, c.condition));
      for (const c of judged) units.push(judgmentKey(q.queryId, c.condition));
    }
    if (q.roles.train) for (let s = 0; s <= spec.preferences.samples; s++) units.push(preferenceKey(q.queryId, s));
  }
  const total = units.length;
  let done = units.filter((k) => stored.has(k)).length;
  const resumedUnits = done;
  const step = (message: string) => {
    done++;
    ctx.progress(done, total, message);
  };
  ctx.progress(done, total, `${data.queries.length} queries, ${conditions.length} conditions, ${total} LLM units (${done} stored)`);

  let index: CollectionFtsIndex | undefined;
  const searcherFor = (q: RichRagQuery): Searcher => {
    if (usesCandidates(spec.retrieval.scope, q.candidates)) return candidateSearcher(candidateDocuments(deps.collections, data.collection.id, q.candidates ?? [], q.queryId), spec.retrieval.bm25);
    index ??= CollectionFtsIndex.build(deps.db, data.collection.id);
    return collectionSearcher(index);
  };

  // Queries go side by side through the engines' queues; within a query, every condition's
  // ranking → answer chain and then every judgment are in the queue at once.
  try {
    await forEachUnit(data.queries, lanesFor(...engineList), signal, async (q) => {
      const qid = q.queryId;
      try {
        if (!stored.has(queryKey(qid))) {
          const { queryId: _id, ...payload } = q;
          put({ key: queryKey(qid), queryId: qid, condition: '', sample: null, payload });
        }
        const explored = engines.explorer ? await explore(spec, engines.explorer, q, repo, runId, stored, put, signal, step) : null;
        const docs = documentsOf(spec, deps, data, q, explored, stored, put, searcherFor, repo, runId);
        const work: Promise<unknown>[] = [];
        if (q.roles.evaluate) {
          work.push(
            (async () => {
              const outputs = new Map<string, string>();
              await settleAll(
                conditions.map(async (c) => {
                  const ranking = await listFor(spec, engines, q, c, docs, repo, runId, stored, put, signal, step);
                  outputs.set(c.condition, await generationFor(spec, engines.generator, engines.generatorBudget, q, c, docs, ranking, repo, runId, stored, put, signal, step));
                }),
              );
              const judge = engines.judge;
              if (!judge) return;
              await settleAll(
                judged
                  .filter((c) => !stored.has(judgmentKey(qid, c.condition)))
                  .map(async (c) => {
                    const payload = await judgeOne(spec, judge, q, c.condition, outputs, signal);
                    put({ key: judgmentKey(qid, c.condition), queryId: qid, condition: c.condition, sample: null, payload });
                    step(`judged ${c.condition} for ${qid}`);
                  }),
              );
            })(),
          );
        }
        if (q.roles.train) work.push(preferences(spec, engines, q, docs, stored, put, signal, step));
        await settleAll(work);
      } catch (err) {
        throw signal.aborted || isDeferred(err) ? err : inQuery(err, qid);
      }
    });
  } finally {
    index?.drop();
  }

  return {
    queries: data.queries.filter((q) => q.roles.evaluate).length,
    trainingQueries: data.queries.filter((q) => q.roles.train).length,
    skippedQueries: data.skipped,
    conditions: conditions.map((c) => c.condition),
    llmUnits: total,
    resumedUnits,
    promptBudget: {
      generation: engines.generatorBudget.report(),
      ...(engines.ranker?.budget ? { ranker: engines.ranker.budget.report() } : {}),
      note: 'counts of this session (a resumed run counts only the prompts it rendered); each stored generation and list records its own cut',
    },
    // 'auto' resolves per engine (a grammar locally, a JSON schema on a server): named, so runs on two engines are not taken for one experiment.
    constraints: constraintTransports({
      ...(engines.explorer ? { explorer: { setting: spec.explorer.constraint, ref: engines.explorer.ref } } : {}),
      ...(engines.ranker ? { ranker: { setting: spec.ranker.constraint, ref: engines.ranker.ref } } : {}),
      ...(engines.judge ? { judge: { setting: spec.judge.constraint, ref: engines.judge.ref } } : {}),
    }),
    callsComputed: counts.computed,
    callsFromCache: counts.fromCache,
    elapsedMs: Math.round(performance.now() - started),
  };
}

const CONTEXT_HINT =
  ' (shorten the prompts — ranker.window, ranker.docWords, generation.docWords, ranker/generation.promptBudget, explorer.maxTokens — or give the model a larger context size)';

/** The error of a query's unit, naming the query (and how to fix a prompt that does not fit). */
function inQuery(err: unknown, queryId: string): Error {
  if (!(err instanceof Error)) return new Error(`query '${queryId}': ${String(err)}`);
  const hint = /exceeds the context size/.test(err.message) ? CONTEXT_HINT : '';
  if (err instanceof EngineError) return new EngineError(err.code, `query '${queryId}': ${err.message}${hint}`);
  if (err instanceof DataError) return new DataError(`query '${queryId}': ${err.reason}`, { ...(err.field !== undefined ? { field: err.field } : {}) });
  const wrapped = new Error(`query '${queryId}': ${err.message}${hint}`);
  wrapped.stack = err.stack;
  return wrapped;
}

type Put = (item: RunItem) => void;
type Step = (message: string) => void;

async function explore(
  spec: RichRagSpec,
  explorer: NonNullable<Engines['explorer']>,
  q: RichRagQuery,
  repo: ExperimentDeps['experiments'],
  runId: number,
  stored: Set<string>,
  put: Put,
  signal: AbortSignal,
  step: Step,
): Promise<string[]> {
  const key = explorerKey(q.queryId);
  if (stored.has(key)) return (repo.item(runId, key)!.payload as ExplorerPayload).aspects;
  const mode = resolveConstraint(spec.explorer.constraint, explorer.ref);
  const prompt = explorerPrompt(spec.explorer, q.text);
  const r = await explorer.engine.generate(explorerRequest(spec.explorer, mode, prompt), signal);
  const parsed = parseAspectList(r.text);
  const aspects = normalizeAspects(parsed.items, q.text, spec.explorer.maxAspects);
  const payload: ExplorerPayload = { type: 'explorer', prompt, constraint: mode, raw: r.text, finishReason: r.finishReason, aspects, repaired: !parsed.complete, fromCache: r.fromCache === true };
  put({ key, queryId: q.queryId, condition: '', sample: null, payload });
  step(`explored the sub-aspects of ${q.queryId}`);
  return aspects;
}

function documentsOf(
  spec: RichRagSpec,
  deps: ExperimentDeps,
  data: RichRagData,
  q: RichRagQuery,
  predicted: string[] | null,
  stored: Set<string>,
  put: Put,
  searcherFor: (q: RichRagQuery) => Searcher,
  repo: ExperimentDeps['experiments'],
  runId: number,
): DocumentsPayload {
  const key = documentsKey(q.queryId);
  if (stored.has(key)) return repo.item(runId, key)!.payload as DocumentsPayload;
  const aspects = new Map<RichRagSetting, readonly string[]>();
  if (predicted) aspects.set('predicted', predicted);
  aspects.set(
    'golden',
    normalizeAspects(
      q.golden.map((g) => g.aspect),
      '',
      Number.MAX_SAFE_INTEGER,
    ),
  );
  const payload = buildDocuments(spec, searcherFor(q), (id) => deps.collections.getDocument(data.collection.id, id), {
    query: q.text,
    subAnswers: q.golden.map((g) => g.answer),
    aspects,
  });
  put({ key, queryId: q.queryId, condition: '', sample: null, payload });
  return payload;
}

async function listFor(
  spec: RichRagSpec,
  engines: Engines,
  q: RichRagQuery,
  c: RichRagCondition,
  docs: DocumentsPayload,
  repo: ExperimentDeps['experiments'],
  runId: number,
  stored: Set<string>,
  put: Put,
  signal: AbortSignal,
  step: Step,
): Promise<string[]> {
  const key = listKey(q.queryId, c.condition);
  if (stored.has(key)) return (repo.item(runId, key)!.payload as ListPayload).ranking;
  const fixed = staticRanking(spec, docs, c.framework, c.setting);
  let payload: ListPayload;
  if (fixed !== null) {
    payload = { type: 'list', ...c, ranking: fixed, steps: null, constraint: null };
  } else {
    const ranker = engines.ranker!;
    const r = await rankOnPool(spec, ranker, q, docs, c.setting!, () => ({ temperature: 0 }), signal);
    const total = ranker.budget?.total;
    payload = {
      type: 'list',
      ...c,
      ranking: r.ranking,
      steps: r.steps,
      constraint: resolveConstraint(spec.ranker.constraint, ranker.ref),
      ...(r.budget && total !== undefined ? { budget: { ...r.budget, total, ...(ranker.budget?.estimated ? { estimated: true as const } : {}) } } : {}),
    };
  }
  put({ key, queryId: q.queryId, condition: c.condition, sample: null, payload });
  if (fixed === null) step(`ranked ${q.queryId} (${c.condition})`);
  return payload.ranking;
}

function rankOnPool(
  spec: RichRagSpec,
  ranker: NonNullable<Engines['ranker']>,
  q: RichRagQuery,
  docs: DocumentsPayload,
  setting: RichRagSetting,
  sampling: Parameters<typeof rankListwise>[2]['sampling'],
  signal: AbortSignal,
): Promise<RankingResult> {
  const pool = poolOf(docs, setting);
  return rankListwise(
    ranker.engine,
    { query: q.text, aspects: pool.aspects, candidates: rankerCandidates(docs, pool), k: spec.k },
    {
      template: spec.ranker.template,
      window: spec.ranker.window,
      docWords: spec.ranker.docWords,
      mode: resolveConstraint(spec.ranker.constraint, ranker.ref),
      chat: spec.ranker.chat,
      sampling,
      ...(ranker.budget ? { budget: ranker.budget } : {}),
    },
    signal,
  );
}

/** The prompt and scored answer of a ranking under a condition (closed-book: no documents). */
async function answer(
  spec: RichRagSpec,
  generator: Counted,
  budget: RichRagBudget | undefined,
  q: RichRagQuery,
  c: Pick<RichRagCondition, 'framework' | 'setting'>,
  docs: DocumentsPayload,
  ranking: readonly string[],
  signal: AbortSignal,
): Promise<{ prompt: string; result: GenerateResult & { fromCache?: boolean }; budget?: GenerationPayload['budget'] }> {
  const aspects = c.setting ? promptAspects(poolOf(docs, c.setting)) : [];
  const shown = c.framework === 'closed-book' ? null : ranking.map((id) => docs.docs[id]!);
  const fit = await generationPromptWithin(spec.generation, budget, q.text, shown, aspects, `the answer prompt (${c.framework}${c.setting ? `, ${c.setting}` : ''})`, signal);
  const prompt = fit.prompt;
  const note =
    budget?.total !== undefined && fit.tokens !== undefined
      ? { tokens: fit.tokens, total: budget.total, documentsCut: fit.documentsCut, ...(fit.cap !== undefined ? { cap: fit.cap } : {}), ...(budget.estimated ? { estimated: true as const } : {}) }
      : undefined;
  return { prompt, result: await generator.generate(generationRequest(spec, prompt), signal), ...(note ? { budget: note } : {}) };
}

async function generationFor(
  spec: RichRagSpec,
  generator: Counted,
  budgetOf: RichRagBudget | undefined,
  q: RichRagQuery,
  c: RichRagCondition,
  docs: DocumentsPayload,
  ranking: string[],
  repo: ExperimentDeps['experiments'],
  runId: number,
  stored: Set<string>,
  put: Put,
  signal: AbortSignal,
  step: Step,
): Promise<string> {
  const key = generationKey(q.queryId, c.condition);
  if (stored.has(key)) return (repo.item(runId, key)!.payload as GenerationPayload).output;
  const { prompt, result, budget } = await answer(spec, generator, budgetOf, q, c, docs, ranking, signal);
  const payload: GenerationPayload = {
    type: 'generation',
    ...c,
    ranking,
    prompt,
    output: result.text,
    finishReason: result.finishReason,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    scores: scoreAnswer(result.text, q.answers, q.golden, spec.coverage.phi),
    fromCache: result.fromCache === true,
    ...(budget ? { budget } : {}),
  };
  put({ key, queryId: q.queryId, condition: c.condition, sample: null, payload });
  step(`generated ${q.queryId} (${c.condition})`);
  return result.text;
}

async function judgeOne(spec: RichRagSpec, judge: NonNullable<Engines['judge']>, q: RichRagQuery, condition: string, outputs: Map<string, string>, signal: AbortSignal): Promise<JudgmentPayload> {
  const baseline = judgeBaseline(spec);
  const system = outputs.get(condition)!;
  const base = outputs.get(baseline)!;
  const head = { type: 'judgment' as const, condition, baseline };
  if (system === base) return { ...head, verdicts: [], raw: [], outcome: 'tie', note: 'identical answers: a tie without a call', fromCache: false };
  const mode = resolveConstraint(spec.judge.constraint, judge.ref);
  const verdicts: Verdict[] = [];
  const raw: string[] = [];
  let fromCache = true;
  // Both presentation orders at once (the position-swap pair of the judge).
  const answers = await settleAll(
    [true, false].map((systemFirst) => {
      const prompt = judgePrompt(spec.judge.template, q.text, systemFirst ? system : base, systemFirst ? base : system);
      return judge.engine.generate(judgeRequest(prompt, mode, spec.judge.chat), signal);
    }),
  );
  for (const [i, r] of answers.entries()) {
    raw.push(r.text);
    verdicts.push(verdictOf(r.text, i === 0));
    fromCache &&= r.fromCache === true;
  }
  return { ...head, verdicts, raw, outcome: combineVerdicts(verdicts), note: null, fromCache };
}

async function preferences(spec: RichRagSpec, engines: Engines, q: RichRagQuery, docs: DocumentsPayload, stored: Set<string>, put: Put, signal: AbortSignal, step: Step): Promise<void> {
  const setting = preferenceSetting(spec);
  const samples = Array.from({ length: spec.preferences.samples + 1 }, (_, sample) => sample).filter((sample) => !stored.has(preferenceKey(q.queryId, sample)));
  await settleAll(samples.map((sample) => preferenceList(spec, engines, q, docs, setting, sample, put, signal, step)));
}

async function preferenceList(spec: RichRagSpec, engines: Engines, q: RichRagQuery, docs: DocumentsPayload, setting: RichRagSetting, sample: number, put: Put, signal: AbortSignal, step: Step): Promise<void> {
  {
    const key = preferenceKey(q.queryId, sample);
    const ranked = await rankOnPool(spec, engines.ranker!, q, docs, setting, preferenceSampling(spec, q.queryId, sample), signal);
    const { prompt, result } = await answer(spec, engines.generator, engines.generatorBudget, q, { framework: 'listwise', setting }, docs, ranked.ranking, signal);
    const payload: PreferencePayload = {
      type: 'preference',
      setting,
      sample,
      greedy: sample === 0,
      ranking: ranked.ranking,
      steps: ranked.steps,
      prompt,
      response: result.text,
      reward: rewardOf(
        result.text,
        q.answers,
        q.golden.map((g) => g.answer),
      ),
      fromCache: result.fromCache === true && ranked.steps.every((s) => s.fromCache),
    };
    put({ key, queryId: q.queryId, condition: '', sample, payload });
    step(`US³ list ${sample} of ${q.queryId}`);
  }
}
