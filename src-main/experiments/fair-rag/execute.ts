/**
 * Executes a Fair RAG run: load the collection, score the candidates with every retriever, plan
 * (sample, render, de-duplicate prompts), store the query and sample items, generate each distinct
 * prompt once, score its utility, and judge attribution. Every engine call goes through the cached
 * engine, and every result is upserted under a key that names its unit, so:
 *
 * - resume: running again skips items already stored (and a call finished just before a crash is
 *   answered by the call cache), without duplicating any row;
 * - a re-run with one more α computes only the new arm's new prompts (the other arms' rankings are
 *   drawn from their own seeded streams and their prompts are in the cache).
 *
 * Progress counts distinct LLM calls (generations, then judgments once the outputs are known).
 * Concurrency is the engine's: every ready call goes to its one work queue (experiments/concurrency.ts),
 * which keeps a local model's parallel sequences (1 by default, so the batch layout — and greedy
 * outputs — stay reproducible) or a server pool's limits busy.
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import { ModelTokenCounter, type PromptBudget, type PromptCuts } from '../../core/prompts/tokenBudget';
import { PromptBudgetError, type PromptTemplate } from '../../core/prompts/promptTemplate';
import { DataError } from '../../core/errors';
import type { CachedEngine } from '../../engine/callCache';
import type { GenerateRequest } from '../../engine/types';
import { documentText } from '../../retrieval/dense/embedDocuments';
import type { RunItem, RunItemText } from '../../store/experimentsRepo';
import { forEachUnit, lanesFor } from '../concurrency';
import type { ExecuteContext, ExperimentDeps } from '../registry';
import { entailmentProbability, nliBudget, nliGenerateRequest, nliPromptWithin, nliScoreRequest, nliTemplate, parseCitations, parseNliAnswer, stripCitations } from './attribution';
import { loadFairRagData, type QueryData } from './data';
import { judgmentKey, KEY_PREFIX, samplePayloadJson, queryKeyPrefix, type GenerationPayload, type SampleJsonHead, type JudgmentPayload, type SamplePayload } from './items';
import { planQuery, promptHash, type PlanQuery, type PlannedGeneration } from './plan';
import { promptRenderer } from './prompt';
import { scoreRetrievers, type RetrieverScores } from './retrievers';

/** The generation request of a prompt under the spec's decoding settings. */
export function generationRequest(spec: Pick<FairRagSpec, 'decoding' | 'seeds'>, prompt: string): GenerateRequest {
  const d = spec.decoding;
  return {
    ...(d.chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
    maxTokens: d.maxTokens,
    sampling: d.temperature === 0 ? { temperature: 0 } : { temperature: d.temperature, seed: spec.seeds.generation },
    ...(d.stop ? { stop: d.stop } : {}),
  };
}

/**
 * The generator's token counter (its context size probed), for a prompt budget in its tokens and
 * for the default budget (what the context leaves); undefined for a budget in words or chars.
 */
export async function generatorTokens(spec: Pick<FairRagSpec, 'promptBudget' | 'decoding'>, engine: Pick<CachedEngine, 'tokenize'>, signal?: AbortSignal): Promise<ModelTokenCounter | undefined> {
  if (spec.promptBudget !== undefined && spec.promptBudget.unit !== 'tokens') return undefined;
  const counter = new ModelTokenCounter(
    (texts, maxTokens, asPrompt) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }, signal),
    undefined,
    spec.decoding.chat ? 'chat' : 'text',
  );
  await counter.probe();
  return counter;
}

export function toPlanQuery(q: QueryData, scores: RetrieverScores): PlanQuery {
  const byRetriever: Record<string, number[]> = {};
  for (const [name, byQuery] of scores) byRetriever[name] = byQuery.get(q.queryId)!;
  return {
    queryId: q.queryId,
    text: q.text,
    retrievalText: q.retrievalText,
    task: q.task,
    answers: q.answers,
    candidates: q.candidates,
    metric: q.scorer.metric,
    lowerIsBetter: q.scorer.lowerIsBetter,
    worst: q.scorer.worst,
    scores: byRetriever,
  };
}

/** Prompt text (UTF-16 code units) of planned generations pass 1 hands to pass 2 instead of planning them again: ≈ 32 MB. */
const KEEP_PLANNED_PROMPT_CHARS = 16 * 1024 * 1024;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Batches item upserts into one transaction per `maxItems` items or `maxDelayMs` (each commit is
 * an fsync under synchronous=FULL, which dominated runs answered from the cache). A crash loses at
 * most the unflushed batch, whose calls the call cache still answers on resume.
 */
export class ItemWriter {
  private pending: RunItem[] = [];
  private since = 0;

  constructor(
    private readonly repo: ExperimentDeps['experiments'],
    private readonly runId: number,
    private readonly maxItems = 64,
    private readonly maxDelayMs = 250,
  ) {}

  add(item: RunItem): void {
    if (this.pending.length === 0) this.since = performance.now();
    this.pending.push(item);
    if (this.pending.length >= this.maxItems || performance.now() - this.since >= this.maxDelayMs) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.repo.upsertItems(this.runId, batch);
  }
}

export async function executeFairRag(ctx: ExecuteContext<FairRagSpec>): Promise<Record<string, unknown>> {
  const { spec, deps, runId, signal } = ctx;
  const started = performance.now();
  const repo = deps.experiments;
  const genRef = deps.resolveGenerator(spec.generator, 'generator');
  const engine = deps.engineFor(genRef);
  const judgeRef =
    spec.attribution.judge === 'nli-llm' ? deps.resolveGenerator(spec.attribution.generator ?? spec.generator, spec.attribution.generator ? 'attribution.generator' : 'generator') : null;

  ctx.progress(0, null, 'reading the collection');
  const data = loadFairRagData(spec, deps.collections);
  ctx.progress(0, null, `scoring the candidates of ${data.queries.length} queries`);
  const { scores, embeddingCalls, embeddingFit, warnings: fitWarnings } = await scoreRetrievers(spec, data.queries, deps, signal);
  // A budget in the generator's tokens counts with its tokenizer (counts kept for the whole run, so
  // the lazy re-planning of pass 2 renders exactly the prompts pass 1 planned).
  const tokens = await generatorTokens(spec, engine, signal);
  const render = promptRenderer(spec, tokens);
  const queries = data.queries.map((q) => ({ data: q, plan: toPlanQuery(q, scores) }));

  // Pass 1: plan every query; store its query and sample items where missing; count the work.
  const storedQueries = repo.existingKeys(runId, KEY_PREFIX.query);
  const storedSamples = repo.existingKeys(runId, KEY_PREFIX.sample);
  const storedGenerations = repo.existingKeys(runId, KEY_PREFIX.generation);
  let naiveGenerations = 0;
  let distinctGenerations = 0;
  /** Judgments at most: one per (distinct prompt, document in its top k); the real count (distinct outputs) is known after pass 2. */
  let judgmentBound = 0;
  let done = 0;
  const pending: number[] = [];
  // The generations pass 1 planned and pass 2 computes, kept while their prompts stay under a bound
  // (a query past it is planned again in pass 2, to the same generations: planning is deterministic).
  const planned = new Map<number, PlannedGeneration[]>();
  const sampleHeads = new Map<string, SampleJsonHead>();
  let plannedChars = 0;
  for (let i = 0; i < queries.length; i++) {
    signal.throwIfAborted();
    const plan = tokens ? await tokens.settle(() => planQuery(spec, queries[i]!.plan, render)) : planQuery(spec, queries[i]!.plan, render);
    naiveGenerations += plan.samples.length;
    distinctGenerations += plan.generations.length;
    if (judgeRef) for (const g of plan.generations) judgmentBound += Math.min(spec.k, g.ranking.length);
    const finished = plan.generations.filter((g) => storedGenerations.has(g.key)).length;
    done += finished;
    if (finished < plan.generations.length) {
      pending.push(i);
      const todo = plan.generations.filter((g) => !storedGenerations.has(g.key));
      const chars = todo.reduce((n, g) => n + g.prompt.length, 0);
      if (plannedChars + chars <= KEEP_PLANNED_PROMPT_CHARS) {
        planned.set(i, todo);
        plannedChars += chars;
      }
    }
    // One transaction per query; a sample's JSON is built from its arm's serialized head (the same
    // bytes as JSON.stringify of the payload).
    const items: RunItemText[] = [];
    if (!storedQueries.has(plan.queryItem.key)) items.push({ key: plan.queryItem.key, queryId: plan.queryId, condition: '', sample: null, payloadJson: JSON.stringify(plan.queryItem.payload) });
    for (const s of plan.samples) if (!storedSamples.has(s.key)) items.push({ key: s.key, queryId: s.queryId, condition: s.condition, sample: s.sample, payloadJson: samplePayloadJson(s.payload, s.condition, sampleHeads) });
    repo.upsertItemTexts(runId, items);
    // The total is unknown until every query is planned (no total that grows mid-run).
    ctx.progress(done, null, `planned ${i + 1} of ${queries.length} queries`);
    await yieldToEventLoop();
  }
  const resumedGenerations = done;
  // From here the total is fixed: the distinct prompts plus, with attribution, the judgments' upper
  // bound, which shrinks to the real count once the outputs are known (identical outputs share one).
  const expectedTotal = distinctGenerations + judgmentBound;
  ctx.progress(done, expectedTotal, `${distinctGenerations} distinct prompts for ${naiveGenerations} sampled rankings`);

  // Pass 2: one generation per distinct prompt, every query's prompts through the engine's one queue
  // (no barrier between queries; queries are re-planned lazily so the plan is never held at once).
  const writer = new ItemWriter(repo, runId);
  let deferredGenerations = 0;
  try {
    const units = function* () {
      for (const i of pending) {
        const { data: q, plan: pq } = queries[i]!;
        const kept = planned.get(i);
        planned.delete(i);
        for (const g of kept ?? planQuery(spec, pq, render).generations) if (!storedGenerations.has(g.key)) yield { q, g };
      }
    };
    ({ deferred: deferredGenerations } = await forEachUnit(units(), lanesFor(engine), signal, async ({ q, g }) => {
      const payload = await generate(spec, engine, q, g, signal, render.cutsOf(g.prompt), tokens?.sources.has('estimate') === true);
      writer.add({ key: g.key, queryId: q.queryId, condition: '', sample: null, payload });
      done++;
      ctx.progress(done, expectedTotal, `generated ${done} of ${distinctGenerations} prompts`);
    }));
  } finally {
    writer.flush();
  }

  // Pass 3: NLI judgments of every (top-k document, output) pair whose output is stored (a stage
  // that depends on pass 2: with generations deferred, only the ready part is judged).
  let judgments: { naive: number; distinct: number; budget?: Record<string, unknown> } = { naive: 0, distinct: 0 };
  if (judgeRef) judgments = await judge(ctx, deps.engineFor(judgeRef), queries.map((x) => x.data), distinctGenerations, deferredGenerations > 0);

  const counts = cacheCounts(repo, runId);
  const budget = render.report();
  return {
    ...(budget ? { promptBudget: budget } : {}),
    queries: data.queries.length,
    skippedQueries: data.skipped,
    naiveGenerations,
    distinctGenerations,
    resumedGenerations,
    generationsFromCache: counts.generations.cached,
    generationsComputed: counts.generations.computed,
    ...(judgments.budget ? { judgeBudget: judgments.budget } : {}),
    naiveJudgments: judgments.naive,
    distinctJudgments: judgments.distinct,
    judgmentsFromCache: counts.judgments.cached,
    judgmentsComputed: counts.judgments.computed,
    embeddingCalls,
    // How each dense retriever's candidate texts were fitted to its embedding context (documents cut, with 'cut').
    ...(embeddingFit ? { embeddingFit } : {}),
    ...(fitWarnings.length > 0 ? { embeddingWarnings: fitWarnings } : {}),
    elapsedMs: Math.round(performance.now() - started),
  };
}

async function generate(spec: FairRagSpec, engine: CachedEngine, q: QueryData, g: PlannedGeneration, signal: AbortSignal, cuts?: PromptCuts, estimated = false): Promise<GenerationPayload> {
  const request = generationRequest(spec, g.prompt);
  const { result, fromCache } = await engine.generateTracked(request, signal);
  signal.throwIfAborted();
  if (result.finishReason === 'aborted') throw new Error('the generation was aborted');
  const citing = spec.attribution.judge === 'citation';
  const { raw, utility } = q.scorer.score(citing ? stripCitations(result.text) : result.text, q.answers);
  return {
    type: 'generation',
    promptHash: g.promptHash,
    prompt: g.prompt,
    output: result.text,
    outputHash: promptHash(result.text),
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    finishReason: result.finishReason,
    utilityRaw: raw,
    utility,
    ...(citing ? { citations: parseCitations(result.text, g.ranking.length) } : {}),
    ...(cuts ? { budgetCuts: { documentsCut: cuts.documentsCut, documentsDropped: cuts.documentsDropped, queryCut: cuts.queryCut } } : {}),
    ...(estimated ? { budgetEstimated: true as const } : {}),
    fromCache,
  };
}

export interface JudgmentUnit {
  key: string;
  queryId: string;
  docId: string;
  premise: string;
  output: string;
  outputHash: string;
}

async function judge(
  ctx: ExecuteContext<FairRagSpec>,
  engine: CachedEngine,
  queries: readonly QueryData[],
  generationsDone: number,
  generationsDeferred: boolean,
): Promise<{ naive: number; distinct: number; budget?: Record<string, unknown> }> {
  const { spec, deps, runId, signal } = ctx;
  const repo = deps.experiments;
  const attribution = spec.attribution;
  // The judge prompt within the judge's context, counted by its tokenizer: the premise (document)
  // is cut first, the hypothesis (the output) never.
  const template = nliTemplate(attribution);
  const tokens = new ModelTokenCounter((texts, maxTokens, asPrompt) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }, signal));
  await tokens.probe();
  const budget = await nliBudget(attribution, tokens);
  const render: JudgeRender = { template, tokens, budget };
  const stored = repo.existingKeys(runId, KEY_PREFIX.judgment);
  const units = new Map<string, JudgmentUnit>();
  let naive = 0;
  for (const q of queries) {
    const docs = new Map(q.candidates.map((c) => [c.docId, c]));
    const outputs = new Map<string, GenerationPayload>();
    for (const it of repo.items(runId, { keyPrefix: queryKeyPrefix('generation', q.queryId) })) {
      const g = it.payload as GenerationPayload;
      outputs.set(g.promptHash, g);
    }
    // The query's sampled rankings, two fields each (read by SQLite, not parsed here): many samples
    // share a prompt and a ranking, and those after the first add only to the naive count.
    const seen = new Map<string, number>();
    for (const s of repo.itemFields(runId, { keyPrefix: queryKeyPrefix('sample', q.queryId) }, { promptHash: '$.promptHash', ranking: '$.ranking' })) {
      const same = `${String(s.promptHash)}\u0000${String(s.ranking)}`;
      const counted = seen.get(same);
      if (counted !== undefined) {
        naive += counted;
        continue;
      }
      const g = outputs.get(String(s.promptHash));
      if (!g) {
        if (generationsDeferred) continue; // judged once its generation is in
        throw new Error(`query '${q.queryId}': the generation of ${s.key} is missing`);
      }
      const top = (JSON.parse(String(s.ranking)) as SamplePayload['ranking']).slice(0, spec.k);
      seen.set(same, top.length);
      for (const docId of top) {
        naive++;
        const key = judgmentKey(q.queryId, g.outputHash, docId);
        if (units.has(key)) continue;
        const doc = docs.get(docId)!;
        units.set(key, { key, queryId: q.queryId, docId, premise: documentText(doc.title, doc.text), output: g.output, outputHash: g.outputHash });
      }
    }
    await yieldToEventLoop();
  }
  const todo = [...units.values()].filter((u) => !stored.has(u.key));
  const total = generationsDone + units.size;
  let done = generationsDone + units.size - todo.length;
  ctx.progress(done, total, `${units.size} distinct attribution judgments for ${naive} retrieved items`);
  const writer = new ItemWriter(repo, runId);
  const lanes = lanesFor(engine);
  try {
    for (let from = 0; from < todo.length; from += JUDGE_COUNT_CHUNK) {
      const chunk = todo.slice(from, from + JUDGE_COUNT_CHUNK);
      // The chunk's prompts counted in a few batched tokenizer requests before its judgments run:
      // each judgment then renders from counts already fetched (the same counts, so the same
      // prompts), instead of one tokenizer round trip per judgment.
      if (render.budget) await render.tokens.settleInTurn(() => prerenderJudgments(chunk, render));
      await forEachUnit(chunk, lanes, signal, async (u) => {
        const payload = await judgeOne(attribution, engine, u, signal, render);
        writer.add({ key: u.key, queryId: u.queryId, condition: '', sample: null, payload });
        done++;
        ctx.progress(done, total, `judged ${done - generationsDone} of ${units.size} attributions`);
      });
    }
  } finally {
    writer.flush();
  }
  // What the budget cut, over every stored judgment (so a resumed run counts the earlier ones too).
  let shortened = 0;
  let leftOut = 0;
  for (const p of repo.itemFields(runId, { keyPrefix: KEY_PREFIX.judgment }, { premiseCut: '$.premiseCut' })) {
    if (p.premiseCut === ('shortened' satisfies JudgmentPayload['premiseCut'])) shortened++;
    else if (p.premiseCut === ('left out' satisfies JudgmentPayload['premiseCut'])) leftOut++;
  }
  const estimated = tokens.sources.has('estimate');
  return {
    naive,
    distinct: units.size,
    budget: {
      unit: estimated ? 'estimated tokens' : 'tokens',
      total: budget?.total ?? null,
      origin: budget?.origin ?? "none (the judge's context size is not known)",
      truncate: 'documents',
      counts: "every token the judge evaluates for its prompt: the beginning-of-sequence token; the premise (document) is cut first, the hypothesis (output) never",
      ...(estimated && tokens.estimate ? { estimate: tokens.estimate } : {}),
      premisesShortened: shortened,
      premisesLeftOut: leftOut,
    },
  };
}

/** Judgments whose prompts are counted together (one settle: a few tokenizer requests for all). */
const JUDGE_COUNT_CHUNK = 128;

/**
 * Renders each judgment prompt of `units` within the budget, for the counts it asks for only: a
 * unit that does not fit is skipped here (judgeOne renders it again and reports it).
 */
export function prerenderJudgments(units: readonly JudgmentUnit[], render: JudgeRender): void {
  for (const u of units) {
    if (u.output.trim() === '') continue;
    try {
      nliPromptWithin(render.template, u.premise, u.output, render.budget);
    } catch (err) {
      if (!(err instanceof PromptBudgetError)) throw err;
    }
  }
}

export interface JudgeRender {
  template: PromptTemplate;
  tokens: ModelTokenCounter;
  budget: PromptBudget | undefined;
}

async function judgeOne(attribution: FairRagSpec['attribution'], engine: CachedEngine, u: JudgmentUnit, signal: AbortSignal, render: JudgeRender): Promise<JudgmentPayload> {
  const base0 = { type: 'judgment' as const, docId: u.docId, outputHash: u.outputHash };
  if (u.output.trim() === '') return { ...base0, prompt: null, raw: null, entails: false, note: 'empty output: nothing to attribute (no call)', fromCache: false };
  let within;
  try {
    within = render.budget ? await render.tokens.settleInTurn(() => nliPromptWithin(render.template, u.premise, u.output, render.budget)) : nliPromptWithin(render.template, u.premise, u.output, undefined);
  } catch (err) {
    if (err instanceof PromptBudgetError) throw new DataError(`judging document '${u.docId}' of query '${u.queryId}': ${err.reason}`, { field: 'attribution' });
    throw err;
  }
  const { prompt, premiseCut } = within;
  const base = { ...base0, ...(premiseCut ? { premiseCut } : {}) };
  if (attribution.threshold !== undefined) {
    const request = nliScoreRequest(attribution, prompt);
    const { result: r, fromCache } = await engine.scoreTracked(request, signal);
    const yes = r.scores[0]!.sum;
    const no = r.scores[1]!.sum;
    const p = entailmentProbability(yes, no);
    return { ...base, prompt, raw: JSON.stringify({ logpEntails: yes, logpNotEntails: no }), entails: p >= attribution.threshold, pEntails: p, fromCache };
  }
  const request = nliGenerateRequest(attribution, prompt);
  const { result: r, fromCache } = await engine.generateTracked(request, signal);
  signal.throwIfAborted();
  if (r.finishReason === 'aborted') throw new Error('the judgment was aborted');
  const parsed = parseNliAnswer(r.text, attribution.format);
  return {
    ...base,
    prompt,
    raw: r.text,
    entails: parsed.entails ?? false,
    ...(parsed.entails === null ? { note: `unparseable answer (finish: ${r.finishReason}); counted as not entailing` } : {}),
    fromCache,
  };
}

/** How many stored generations and judgments the cache answered vs the engine computed (from the items, so crash-safe). */
export function cacheCounts(repo: ExperimentDeps['experiments'], runId: number): Record<'generations' | 'judgments', { cached: number; computed: number }> {
  const count = (prefix: string) => {
    const out = { cached: 0, computed: 0 };
    // Two fields of each item, read by SQLite: a `prompt` that is JSON null means no call was made
    // (only its type is asked, not the prompt text); fromCache 1 or 0.
    for (const p of repo.itemFields(runId, { keyPrefix: prefix }, { prompt: { typeOf: '$.prompt' }, fromCache: '$.fromCache' })) {
      if (p.prompt === 'null') continue; // no call was made
      if (p.fromCache) out.cached++;
      else out.computed++;
    }
    return out;
  };
  return { generations: count(KEY_PREFIX.generation), judgments: count(KEY_PREFIX.judgment) };
}
