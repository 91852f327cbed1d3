/**
 * The score (teacher-forced) calls of a MoI run, each through the cached agent engine, turned into
 * run-item payloads:
 *
 * - `scorePermutation`: Eq. 3 for one ordering, one request with one continuation;
 * - `scorePointwise`: passage p alone (Bayes saliency, QG-shared and LongLLMLingua from one pass);
 * - `scoreUpr`: QG's query likelihood under the UPR prompt;
 * - `scoreBspStep`: one greedy step of Bayes saliency+ (Eq. 2), every remaining candidate a
 *   continuation after the shared prefix of the passages selected so far.
 *
 * Aggregation follows spec.scoring (notes §2.1; core/moi/listwiseScore.ts): s = agg(q) + w·agg(p).
 */
import type { MoiSpec } from '../../api/contract/moi';
import { listwiseScore } from '../../core/moi/listwiseScore';
import type { CachedEngine } from '../../engine/callCache';
import type { ContinuationScore, ScoreRequest } from '../../engine/types';
import type { PassageDoc } from './data';
import type { BspStepPayload, PermPayload, PointwisePayload, UprPayload } from './items';
import { LLMLINGUA_CODE_SUFFIX, uprScoring, type PromptLayout, type ScoringText } from './promptLayout';
import { segmentLogprobs } from './tokenAlignment';

export interface ScoreEnv {
  spec: Pick<MoiSpec, 'scoring' | 'qg'>;
  engine: CachedEngine;
  layout: PromptLayout;
  signal: AbortSignal;
}

async function call(env: ScoreEnv, texts: readonly ScoringText[]): Promise<{ scores: ContinuationScore[]; promptTokens: number; fromCache: boolean }> {
  const request: ScoreRequest = { prompt: texts[0]!.prompt, continuations: texts.map((t) => t.continuation) };
  const { result: r, fromCache } = await env.engine.scoreTracked(request, env.signal);
  env.signal.throwIfAborted();
  if (r.scores.length !== texts.length) throw new Error(`the agent returned ${r.scores.length} scores for ${texts.length} continuations`);
  return { scores: r.scores, promptTokens: r.promptTokens, fromCache };
}

function split(text: ScoringText, score: ContinuationScore) {
  const segments = [...text.passages, text.question, ...(text.questionWithSuffix ? [text.questionWithSuffix] : [])];
  const { perSegment, exact } = segmentLogprobs(text.continuation, score.tokens, score.logprobs, segments);
  const passages = perSegment.slice(0, text.passages.length);
  const question = perSegment[text.passages.length]!;
  const withSuffix = text.questionWithSuffix ? perSegment[text.passages.length + 1]! : null;
  return { passages, question, withSuffix, exact };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function listwise(env: ScoreEnv, question: number[], passages: number[][]) {
  return listwiseScore({ questionLogprobs: question, passageLogprobs: passages }, { reduction: env.spec.scoring.segment, passageWeight: env.spec.scoring.passageWeight });
}

export async function scorePermutation(env: ScoreEnv, passages: readonly PassageDoc[], query: string, order: readonly number[]): Promise<PermPayload> {
  const text = env.layout.scoring(
    order.map((i) => passages[i]!),
    query,
  );
  const { scores, promptTokens, fromCache } = await call(env, [text]);
  const parts = split(text, scores[0]!);
  const s = listwise(env, parts.question, parts.passages);
  return {
    type: 'perm',
    order: [...order],
    s: s.score,
    question: s.question,
    passages: s.passages,
    questionTokens: s.questionTokens,
    passageTokens: s.passageTokens,
    promptTokens,
    continuationTokens: scores[0]!.tokens.length,
    exactAlignment: parts.exact,
    fromCache,
  };
}

export async function scorePointwise(env: ScoreEnv, passages: readonly PassageDoc[], query: string, p: number, withCodeSuffix: boolean): Promise<PointwisePayload> {
  const text = env.layout.scoring([passages[p]!], query, withCodeSuffix ? LLMLINGUA_CODE_SUFFIX : undefined);
  const { scores, promptTokens, fromCache } = await call(env, [text]);
  const parts = split(text, scores[0]!);
  const q = parts.question;
  const doc = parts.passages[0]!;
  if (q.length === 0 || doc.length === 0) throw new Error(`passage ${p}: no ${q.length === 0 ? 'question' : 'passage'} tokens in the scored continuation`);
  return {
    type: 'pointwise',
    passage: p,
    questionMean: sum(q) / q.length,
    questionSum: sum(q),
    passageMean: sum(doc) / doc.length,
    passageSum: sum(doc),
    pLogP: q.reduce((acc, lp) => acc + Math.exp(lp) * lp, 0),
    codeMean: parts.withSuffix && parts.withSuffix.length > 0 ? sum(parts.withSuffix) / parts.withSuffix.length : null,
    promptTokens,
    continuationTokens: scores[0]!.tokens.length,
    exactAlignment: parts.exact,
    fromCache,
  };
}

export async function scoreUpr(env: ScoreEnv, passages: readonly PassageDoc[], query: string, p: number): Promise<UprPayload> {
  const text = uprScoring(env.spec.qg.template, passages[p]!, query);
  const { scores, promptTokens, fromCache } = await call(env, [text]);
  const lp = scores[0]!.logprobs;
  if (lp.length === 0) throw new Error('the query has no tokens');
  return { type: 'upr', passage: p, mean: sum(lp) / lp.length, sum: sum(lp), promptTokens, continuationTokens: lp.length, fromCache };
}

/** Step k ≥ 1 of Eq. 2: each remaining candidate after the selected head, one request. */
export async function scoreBspStep(env: ScoreEnv, passages: readonly PassageDoc[], query: string, step: number, head: readonly number[], candidates: readonly number[]): Promise<BspStepPayload> {
  const headDocs = head.map((i) => passages[i]!);
  const texts = candidates.map((c) => env.layout.scoringAfter(headDocs, [passages[c]!], query));
  const { scores, promptTokens, fromCache } = await call(env, texts);
  let exact = true;
  const values = texts.map((t, i) => {
    const parts = split(t, scores[i]!);
    exact &&= parts.exact;
    return listwise(env, parts.question, parts.passages).score;
  });
  let best = 0;
  values.forEach((v, i) => {
    if (v > values[best]! || (v === values[best]! && candidates[i]! < candidates[best]!)) best = i;
  });
  return {
    type: 'bsp-step',
    step,
    head: [...head],
    candidates: [...candidates],
    scores: values,
    chosen: candidates[best]!,
    passes: candidates.length,
    promptTokens,
    continuationTokens: scores.reduce((a, s) => a + s.tokens.length, 0),
    exactAlignment: exact,
    fromCache,
  };
}
