/**
 * Executes a MoI run, query by query: store the query item; score the permutation set with the agent
 * (Eq. 3, one pass per ordering) and the baselines' passes; fit a and u (solveMoi); build every
 * method's order; generate each distinct final-answer prompt once with the generator and score it;
 * store each method's outcome and cost. Every engine call goes through the cached engine and every
 * result is upserted under a key naming its unit (items.ts), so a run interrupted at any point
 * resumes without redoing a stored unit, and a call finished just before a crash is answered by the
 * call cache: no call is computed twice.
 *
 * Calls go to the engines' work queues as soon as they are ready: the orderings and baseline passes
 * of a query together, its answers once its fit is in, and queries side by side. The queue bounds
 * what is in flight (a local model's single sequence by default keeps greedy outputs reproducible).
 */
import { createHash } from 'node:crypto';
import type { MoiSpec } from '../../api/contract/moi';
import type { CachedEngine } from '../../engine/callCache';
import { EngineError, type GenerateRequest } from '../../engine/types';
import type { RunItem } from '../../store/experimentsRepo';
import { forEachUnit, lanesFor, settleAll } from '../concurrency';
import type { ExecuteContext, ExperimentDeps } from '../registry';
import { loadMoiData, type MoiQueryData } from './data';
import { fitQuery, resolveFixedA } from './fit';
import {
  bspKey,
  fitKey,
  generationKey,
  KEY_PREFIX,
  methodKey,
  permKey,
  pointwiseKey,
  queryKey,
  uprKey,
  type BspStepPayload,
  type FitPayload,
  type GenerationPayload,
  type MethodCost,
  type MethodPayload,
  type PermPayload,
  type PointwisePayload,
  type QueryPayload,
  type UprPayload,
} from './items';
import { planQuery, plannedScoreRequests, type QueryPlan } from './plan';
import { PromptLayout } from './promptLayout';
import { budgetSide, DEFAULT_MIN_PASSAGE_TOKENS, fitMoiQuery, ONE_CUT_REASON } from './promptBudget';
import { DataError } from '../../core/errors';
import { bayesSaliencyPlusState, pointwiseScores, rankByScore, type PointwiseMethod } from './rerankers';
import { scoreBspStep, scorePermutation, scorePointwise, scoreUpr, type ScoreEnv } from './scoreCalls';
import { chooseAnswer } from './selfConsistency';

export const promptHash = (prompt: string): string => createHash('sha256').update(prompt, 'utf8').digest('hex');

/** The final-answer request of a prompt under the spec's decoding settings. */
export function generationRequest(spec: Pick<MoiSpec, 'decoding' | 'seeds'>, prompt: string): GenerateRequest {
  const d = spec.decoding;
  return {
    ...(d.chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
    maxTokens: d.maxTokens,
    sampling: d.temperature === 0 ? { temperature: 0 } : { temperature: d.temperature, seed: spec.seeds.generation },
    ...(d.stop ? { stop: d.stop } : {}),
  };
}

interface Counters {
  done: number;
  total: number;
}

export async function executeMoi(ctx: ExecuteContext<MoiSpec>): Promise<Record<string, unknown>> {
  const { spec, deps, runId, signal } = ctx;
  const started = performance.now();
  const repo = deps.experiments;
  const genRef = deps.resolveGenerator(spec.generator, 'generator');
  const agentRef = spec.agent ? deps.resolveGenerator(spec.agent, 'agent') : genRef;
  const generator = deps.engineFor(genRef);
  const agent = deps.engineFor(agentRef);
  const layout = new PromptLayout(spec.prompt);

  ctx.progress(0, null, 'reading the collection');
  const data = loadMoiData(spec, deps);
  const plans = data.queries.map((q) => planQuery(spec, q.queryId, q.passages.length, q.passages.some((p) => p.gold === true)));
  const fixedByLength = new Map<number, { a: number[]; note: string } | null>();
  const fixedFor = (length: number) => {
    if (!fixedByLength.has(length)) fixedByLength.set(length, resolveFixedA(spec, repo, length, runId));
    return fixedByLength.get(length)!;
  };
  for (const p of plans) fixedFor(p.set.length); // a bad calibration fails before any call

  // Every query's prompts within the contexts, before any call: passages cut once per query (the
  // same in every ordering) where needed; a query that cannot fit refuses the run, naming it.
  ctx.progress(0, null, 'checking that every ordering fits the context');
  const agentSide = await budgetSide((r) => agent.tokenize(r, signal), false);
  const generatorSide = await budgetSide((r) => generator.tokenize(r, signal), spec.decoding.chat);
  const minPassageTokens = spec.promptBudget?.minPassageTokens ?? DEFAULT_MIN_PASSAGE_TOKENS;
  const refused: string[] = [];
  let queriesCut = 0;
  let passagesCut = 0;
  const caps: number[] = [];
  for (const [i, q] of data.queries.entries()) {
    signal.throwIfAborted();
    const plan = plans[i]!;
    const identity = Array.from({ length: plan.n }, (_, j) => j);
    const fit = await fitMoiQuery({
      queryId: q.queryId,
      query: q.text,
      passages: q.passages,
      scoringOrders: [...plan.set.permutations, identity],
      generationOrders: [identity, [...identity].reverse(), ...(plan.sc ?? [])],
      layout,
      agent: agentSide,
      generator: generatorSide,
      maxTokens: spec.decoding.maxTokens,
      chat: spec.decoding.chat,
      minPassageTokens,
    });
    if (!fit.ok) {
      refused.push(fit.reason);
      continue;
    }
    if (fit.cap !== null) {
      queriesCut++;
      passagesCut += fit.passagesCut;
      caps.push(fit.cap);
      data.queries[i] = { ...q, passages: fit.passages };
    }
  }
  if (refused.length > 0) {
    const shown = refused.slice(0, 5).join('\n  ');
    throw new DataError(
      `${refused.length} quer${refused.length === 1 ? 'y does' : 'ies do'} not fit the context (no call was made):\n  ${shown}${refused.length > 5 ? `\n  … and ${refused.length - 5} more` : ''}\n` +
        `${ONE_CUT_REASON}. Use fewer passages (n), shorter passages, promptBudget.minPassageTokens, or a model with a larger context size.`,
      { field: 'promptBudget' },
    );
  }
  const estimated = agentSide.estimated || generatorSide.estimated;
  const promptBudget = {
    unit: estimated ? 'estimated tokens' : 'tokens',
    agentContext: agentSide.contextSize ?? null,
    generatorContext: generatorSide.contextSize ?? null,
    rule: `scoring: BOS + instruction + passages + question ≤ the agent's context; final answer: every prompt token (${spec.decoding.chat ? 'chat template' : 'BOS'}) + decoding.maxTokens + one token per passage ≤ the generator's context; passages cut once per query to a common cap, never below ${minPassageTokens} tokens`,
    queriesCut,
    passagesCut,
    ...(caps.length > 0 ? { smallestCap: Math.min(...caps) } : {}),
    ...(agentSide.contextSize === undefined || generatorSide.contextSize === undefined ? { unchecked: 'a context size was not reported: those prompts were not checked' } : {}),
  };

  const counters: Counters = { done: 0, total: plans.reduce((s, p) => s + plannedScoreRequests(p) + plannedGenerations(p), 0) };
  const env: ScoreEnv = { spec, engine: agent, layout, signal };
  // Every query's ready calls share the engines' queues: queries proceed side by side, each through
  // its own stages (interventions, baselines → fit → answers).
  let finished = 0;
  const { deferred } = await forEachUnit(data.queries.keys(), lanesFor(agent, generator), signal, async (i) => {
    await runQuery(ctx, env, generator, data.queries[i]!, plans[i]!, fixedFor(plans[i]!.set.length)?.a ?? null, counters);
    finished++;
    ctx.progress(counters.done, counters.total, `finished ${finished} of ${data.queries.length} queries`);
  });
  if (deferred === 0) ctx.progress(counters.total, counters.total, 'done');
  return {
    queries: data.queries.length,
    skippedQueries: data.skipped,
    permutationSet: spec.permutations.set,
    // Answers the methods need before de-duplication (one per order; random and self-consistency share their K).
    promptBudget,
    naiveGenerations: plans.reduce((a, p) => a + plannedGenerations(p), 0),
    fixedA: [...fixedByLength.entries()].filter(([, v]) => v !== null).map(([length, v]) => ({ length, a: v!.a, source: v!.note })),
    ...callCounts(repo, runId),
    elapsedMs: Math.round(performance.now() - started),
  };
}

function plannedGenerations(plan: QueryPlan): number {
  return plan.methods.filter((m) => m !== 'random' && m !== 'self-consistency').length + (plan.sc?.length ?? 0);
}

/** Distinct calls stored in the run's items, computed by the engine vs answered by the cache (crash-safe: from the items). */
export function callCounts(repo: ExperimentDeps['experiments'], runId: number): Record<string, number> {
  const out = { scoreRequests: 0, scorePasses: 0, scoreRequestsComputed: 0, scoreRequestsFromCache: 0, distinctGenerations: 0, generationsComputed: 0, generationsFromCache: 0 };
  for (const prefix of [KEY_PREFIX.perm, KEY_PREFIX.pointwise, KEY_PREFIX.upr, KEY_PREFIX.bsp]) {
    for (const it of repo.items(runId, { keyPrefix: prefix })) {
      const p = it.payload as { fromCache: boolean; passes?: number };
      out.scoreRequests++;
      out.scorePasses += p.passes ?? 1;
      if (p.fromCache) out.scoreRequestsFromCache++;
      else out.scoreRequestsComputed++;
    }
  }
  for (const it of repo.items(runId, { keyPrefix: KEY_PREFIX.generation })) {
    out.distinctGenerations++;
    if ((it.payload as GenerationPayload).fromCache) out.generationsFromCache++;
    else out.generationsComputed++;
  }
  return out;
}

async function runQuery(ctx: ExecuteContext<MoiSpec>, env: ScoreEnv, generator: CachedEngine, q: MoiQueryData, plan: QueryPlan, fixedA: number[] | null, counters: Counters): Promise<void> {
  const { spec, deps, runId, signal } = ctx;
  const repo = deps.experiments;
  const qid = q.queryId;
  const put = (key: string, condition: string, sample: number | null, payload: unknown) => repo.upsertItems(runId, [{ key, queryId: qid, condition, sample, payload }]);
  const stored = <T>(key: string): T | undefined => repo.item(runId, key)?.payload as T | undefined;
  const tick = (message: string) => {
    counters.done++;
    ctx.progress(counters.done, counters.total, message);
  };
  // A request the engine refuses (e.g. longer than the context) names the query and the unit.
  const named = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof EngineError && err.code === 'bad-request') throw new EngineError('bad-request', `query '${qid}', ${what}: ${err.message}`);
      throw err;
    }
  };

  if (!repo.item(runId, queryKey(qid))) put(queryKey(qid), '', null, queryPayload(q, plan));

  // 1. MoI's interventions: one teacher-forced pass per ordering (Eq. 3), all in the queue at once.
  const perms: PermPayload[] = await settleAll(
    plan.set.permutations.map(async (order, i) => {
      const key = permKey(qid, order);
      const known = stored<PermPayload>(key);
      if (known) return known;
      const p = await named(`ordering ${order.join(',')}`, () => scorePermutation(env, q.passages, q.text, order));
      put(key, 'moi', i, p);
      tick(`${qid}: scored ordering ${i + 1} of ${plan.set.permutations.length}`);
      return p;
    }),
  );

  // 2. Baselines' passes (independent of each other: all in the queue at once).
  const pointwise = new Map<number, PointwisePayload>();
  const upr = new Map<number, UprPayload>();
  const passes: Promise<void>[] = [];
  for (let p = 0; p < plan.n; p++) {
    if (plan.needs.pointwise) {
      passes.push(
        (async () => {
          let pw = stored<PointwisePayload>(pointwiseKey(qid, p));
          if (!pw) {
            pw = await named(`passage ${p + 1} alone`, () => scorePointwise(env, q.passages, q.text, p, plan.needs.llmlinguaCode));
            put(pointwiseKey(qid, p), 'pointwise', p, pw);
            tick(`${qid}: scored passage ${p + 1} alone`);
          }
          pointwise.set(p, pw);
        })(),
      );
    }
    if (plan.needs.upr) {
      passes.push(
        (async () => {
          let u = stored<UprPayload>(uprKey(qid, p));
          if (!u) {
            u = await named(`UPR prompt of passage ${p + 1}`, () => scoreUpr(env, q.passages, q.text, p));
            put(uprKey(qid, p), 'qg', p, u);
            tick(`${qid}: scored the UPR prompt of passage ${p + 1}`);
          }
          upr.set(p, u);
        })(),
      );
    }
  }
  await settleAll(passes);
  const steps = new Map<number, BspStepPayload>();
  let bspOrder: number[] | null = null;
  if (plan.needs.bsp) {
    const saliency = pointwiseScores('bayes-saliency', plan.n, spec, pointwise, upr)!;
    for (;;) {
      const state = bayesSaliencyPlusState(plan.n, saliency, steps);
      if (state.done) {
        bspOrder = state.order;
        break;
      }
      let s = stored<BspStepPayload>(bspKey(qid, state.step));
      if (!s) {
        s = await named(`Bayes saliency+ step ${state.step}`, () => scoreBspStep(env, q.passages, q.text, state.step, state.head, state.candidates));
        put(bspKey(qid, state.step), 'bayes-saliency-plus', state.step, s);
        tick(`${qid}: Bayes saliency+ step ${state.step}`);
      }
      steps.set(state.step, s);
    }
  }

  // 3. The aggregate step (pure, cheap: recomputed when missing).
  let fit = stored<FitPayload>(fitKey(qid));
  if (!fit) {
    fit = fitQuery(spec, plan.n, perms, fixedA);
    put(fitKey(qid), 'moi', null, fit);
  }

  // 4. Orders and their final answers.
  const identity = Array.from({ length: plan.n }, (_, i) => i);
  const orders = new Map<string, number[]>();
  const scoresOf = new Map<string, number[]>();
  for (const m of plan.methods) {
    if (m === 'retriever') orders.set(m, identity);
    else if (m === 'retriever-reversed') orders.set(m, [...identity].reverse());
    else if (m === 'moi') orders.set(m, fit.ranking);
    else if (m === 'moi-reversed') orders.set(m, [...fit.ranking].reverse());
    else if (m === 'bayes-saliency-plus') orders.set(m, bspOrder!);
    else if (m === 'bayes-saliency' || m === 'qg' || m === 'longllmlingua' || m === 'longllmlingua-code') {
      const s = pointwiseScores(m as PointwiseMethod, plan.n, spec, pointwise, upr)!;
      scoresOf.set(m, s);
      orders.set(m, rankByScore(s));
    } else if (m.startsWith('gold@')) orders.set(m, goldOrder(q, Number(m.slice(5))));
  }
  const docsOf = (order: readonly number[]) => order.map((i) => q.passages[i]!);
  const hashOf = new Map<string, string>();
  const generations = new Map<string, GenerationPayload>();
  const answering = new Map<string, Promise<void>>();
  /** The final answer of an order: its prompt's hash now, its generation once `answering` settles. */
  const generate = (order: number[]): string => {
    const orderKey = order.join(',');
    const known = hashOf.get(orderKey);
    if (known) return known;
    const prompt = env.layout.generationPrompt(docsOf(order), q.text);
    const hash = promptHash(prompt);
    hashOf.set(orderKey, hash);
    if (answering.has(hash)) return hash;
    answering.set(
      hash,
      (async () => {
        const key = generationKey(qid, hash);
        let g = stored<GenerationPayload>(key);
        if (!g) {
          const request = generationRequest(spec, prompt);
          const { result: r, fromCache } = await named('final answer', () => generator.generateTracked(request, signal));
          signal.throwIfAborted();
          if (r.finishReason === 'aborted') throw new Error('the generation was aborted');
          g = {
            type: 'generation',
            promptHash: hash,
            prompt,
            order,
            output: r.text,
            values: q.scorer.score(r.text, q.answers),
            promptTokens: r.promptTokens,
            completionTokens: r.completionTokens,
            finishReason: r.finishReason,
            fromCache,
          };
          put(key, '', null, g);
          tick(`${qid}: answered ${generations.size + 1} prompt(s)`);
        }
        generations.set(hash, g);
      })(),
    );
    return hash;
  };
  // Every method's prompts go to the queue at once; the method rows are built once all are in.
  const scHashes = plan.methods.some((m) => m === 'random' || m === 'self-consistency') ? plan.sc!.map((perm) => generate(perm)) : null;
  for (const m of plan.methods) if (m !== 'random' && m !== 'self-consistency') generate(orders.get(m)!);
  await settleAll([...answering.values()]);

  const methodItems: RunItem[] = [];
  const scoreCost = (items: readonly { promptTokens: number; continuationTokens: number; passes?: number }[]) => ({
    scorePasses: items.reduce((a, x) => a + (x.passes ?? 1), 0),
    scoreRequests: items.length,
    scoredTokens: items.reduce((a, x) => a + x.promptTokens + x.continuationTokens, 0),
  });
  const genCost = (hashes: readonly string[]) => {
    const distinct = [...new Set(hashes)].map((h) => generations.get(h)!);
    return { generations: distinct.length, generationPromptTokens: distinct.reduce((a, g) => a + g.promptTokens, 0), completionTokens: distinct.reduce((a, g) => a + g.completionTokens, 0) };
  };
  for (const m of plan.methods) {
    signal.throwIfAborted();
    let order: number[] | null = null;
    let hashes: string[];
    let chosen: MethodPayload['chosen'] = null;
    let note: string | null = null;
    if (m === 'random' || m === 'self-consistency') {
      hashes = scHashes!;
      if (m === 'self-consistency') {
        const c = chooseAnswer(
          hashes.map((h) => generations.get(h)!.output),
          spec.selfConsistency.match,
        );
        chosen = { index: c.index, support: c.support, rule: spec.selfConsistency.match };
      } else note = `mean over the ${hashes.length} self-consistency answers`;
      if (plan.sc!.length < spec.selfConsistency.samples) note = `${note ? `${note}; ` : ''}only ${plan.sc!.length} distinct permutations of ${plan.n} passages exist`;
    } else {
      order = orders.get(m)!;
      hashes = [generate(order)];
    }
    const deps_: { promptTokens: number; continuationTokens: number; passes?: number }[] = [];
    if (m === 'moi' || m === 'moi-reversed') deps_.push(...perms);
    if (m === 'bayes-saliency' || m === 'bayes-saliency-plus' || m === 'longllmlingua' || m === 'longllmlingua-code' || (m === 'qg' && spec.qg.prompt === 'shared')) deps_.push(...pointwise.values());
    if (m === 'qg' && spec.qg.prompt === 'upr') deps_.push(...upr.values());
    if (m === 'bayes-saliency-plus') deps_.push(...steps.values());
    const cost: MethodCost = { ...scoreCost(deps_), ...genCost(hashes) };
    if ((m === 'moi' || m === 'moi-reversed') && fit.underdetermined) note = `underdetermined fit: ${fit.reasons.join('; ')}`;
    const payload: MethodPayload = { type: 'method', method: m, order, promptHashes: hashes, scores: scoresOf.get(m) ?? null, chosen, planned: plan.planned[m]!, cost, note };
    methodItems.push({ key: methodKey(qid, m), queryId: qid, condition: m, sample: null, payload });
  }
  repo.upsertItems(runId, methodItems);
}

/** The first gold passage (retriever order) moved to 1-based position j, the others in retriever order. */
export function goldOrder(q: Pick<MoiQueryData, 'passages'>, j: number): number[] {
  const g = q.passages.findIndex((p) => p.gold === true);
  const rest = q.passages.map((_, i) => i).filter((i) => i !== g);
  rest.splice(j - 1, 0, g);
  return rest;
}

function queryPayload(q: MoiQueryData, plan: QueryPlan): QueryPayload {
  return {
    type: 'query',
    text: q.text,
    answers: q.answers,
    task: q.task,
    metrics: q.scorer.names,
    passages: q.passages.map((p) => ({ docId: p.docId, title: p.title, text: p.text, retrieverScore: p.retrieverScore, gold: p.gold })),
    goldSource: q.goldSource,
    set: { kind: plan.set.kind, length: plan.set.length, permutations: plan.set.permutations, note: plan.set.note ?? null },
    sc: plan.sc,
    methods: plan.methods,
  };
}

