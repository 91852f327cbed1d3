/**
 * Log-probabilities of continuations after a shared prompt, with KV-prefix reuse: the prompt is
 * evaluated once; each continuation is evaluated after it in one forward pass and its token range
 * is then erased from the sequence, so the next continuation again sees exactly the prompt.
 *
 * How a token's log-probability is read: each scored position asks node-llama-cpp (3.22+) for the
 * logits of just the tokens it needs, through `controlledEvaluate`'s logit filter
 * (`generateNext.logits.filter: { tokens, includeTop: 1 }` plus `totalLogitWeight`) under sampler
 * options that leave the logits untouched (SORTED_BY_TOP_K below): the target's logit l, the top
 * logit m and S = Σ exp(logit − m), summed natively in float32 over the vocabulary. Only those few
 * numbers cross into JavaScript, instead of the whole sorted distribution (2 × vocabulary numbers
 * revived into a Map per position, the method before 3.22, which cost 2.1× plain evaluation on the
 * bench). (`filter.includeMax` would spare sorting altogether, but it is broken in 3.22.1: it adds
 * the top token only when the filter already holds it; `includeSelected` spares it too, but then S
 * is summed in token-id order, which moves scores by up to ~3e-5.)
 *
 * p is then computed exactly as that full-distribution method computed it, in float32:
 * p = f32(f32(exp(f32(l − m))) / S), logp = ln p; the candidates are sorted by descending logit as
 * the full distribution sorted them, so S is summed in the same order, bit for bit (equal logits
 * give equal terms, so how ties are ordered does not matter). The scores are therefore those of
 * the full-distribution method to ~1e-7 (test/engine/local/scoreLogitFilter.test.ts holds every token
 * to 1e-6), which keeps them comparable with every score computed before. (Neither is closer than
 * ~1e-5 to the exact value: the float32 sum over a sorted vocabulary carries that much rounding.)
 * Float32 underflow puts a floor at ln(2^-149) ≈ −103.3: a token less likely than that is reported
 * as LOGPROB_FLOOR.
 *
 * The first continuation token is scored from the prompt's last position (one evaluation of the
 * prompt serves every continuation: its filter holds every continuation's first token); the last
 * continuation token is never evaluated, only scored. A continuation is evaluated in one pass unless
 * vocabulary size × its length exceeds DISTRIBUTION_BUDGET (long continuations on large
 * vocabularies); then in fixed chunks. The bound once kept the full distributions held at once in
 * check; the logit filter needs no such bound, but the layout is kept so that a score does not
 * change with the read-out method (a batch layout can change llama.cpp's last bits). Either way the
 * layout depends only on the request and the model, so every bit of the result does too.
 */
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { EngineError, type ContinuationScore, type ScoreRequest, type ScoreResult } from '../../types';
import { promptTokens as tokensOfPrompt, textTokens } from './tokens';

export const LOGPROB_FLOOR = Math.log(2 ** -149);
/** Vocabulary size x positions per pass above which a continuation is evaluated in chunks (see above). */
const DISTRIBUTION_BUDGET = 1 << 22;

export interface ScoreEnv {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  signal: AbortSignal;
}

/**
 * Sampler options under which the candidates reach the logit filter already sorted, by llama.cpp's
 * top-k sampler with k = the whole vocabulary (`topK: 0`), so node-llama-cpp skips the std::sort of
 * the whole vocabulary that `includeTop` otherwise does at every position (under the default greedy
 * sampler). top-k sorts with a 128-bucket histogram of the logits and small per-bucket sorts:
 * ~0.75 ms instead of ~1.25 ms for 16,384 candidates here. On the bench model (101 scored positions)
 * node-llama-cpp's per-position sampling call takes 0.97–1.03 ms (median) instead of 1.30–1.42 ms,
 * ~28 ms less per scoring call, ~2.5% of plain evaluation. Nothing here changes a logit or drops a
 * candidate: temperature 1 divides each logit by 1 (exact), topP 1 returns at once, minP 0 adds no
 * sampler, and the dist sampler a positive temperature puts last (~0.1 ms) only writes
 * probabilities and picks a token, which scoring ignores (seed fixed anyway). The order is the
 * same descending order of the logits, so S is summed in the same order, bit for bit.
 */
const SORTED_BY_TOP_K = { temperature: 1, topK: 0, topP: 1, minP: 0, seed: 0 } as const;

/** Ask a position for the logits of `targets` and of the top token, and the total logit weight. */
function wantLogits(targets: readonly Token[]) {
  return { generateNext: { logits: { filter: { tokens: targets, includeTop: 1 } }, totalLogitWeight: true, options: SORTED_BY_TOP_K } } as const;
}

interface NextLogits {
  logits?: Map<Token, number>;
  totalLogitWeight?: number;
}

/** ln p(target), p computed in float32 as node-llama-cpp's full distribution computes it. */
export function logProb(next: NextLogits | undefined, target: Token): number {
  const logit = next?.logits?.get(target);
  const weight = next?.totalLogitWeight;
  if (logit === undefined || weight === undefined || !(weight > 0) || !next?.logits) return LOGPROB_FLOOR;
  let top = -Infinity;
  for (const value of next.logits.values()) if (value > top) top = value;
  const f32 = Math.fround;
  const p = f32(f32(Math.exp(f32(logit - top))) / weight);
  return p > 0 ? Math.max(Math.log(p), LOGPROB_FLOOR) : LOGPROB_FLOOR;
}

/** The model's vocabulary size (llama.cpp's n_vocab: the tokenizer's token list), when the file says. */
function vocabularySize(model: LlamaModel): number {
  const tokens = model.fileInfo.metadata.tokenizer?.ggml?.tokens;
  if (Array.isArray(tokens) && tokens.length > 0) return tokens.length;
  const embedding = model.fileInfo.tensorInfo?.find((t) => t.name === 'token_embd.weight');
  return Number(embedding?.dimensions[1] ?? 1);
}

export async function scoreInSequence(req: ScoreRequest, env: ScoreEnv): Promise<ScoreResult> {
  const { model, sequence, signal } = env;
  const prompt = tokensOfPrompt(model, req.prompt);
  if (prompt.length === 0) throw new EngineError('bad-request', 'score: the prompt is empty and this model has no beginning token to condition on');
  const continuations = req.continuations.map((text) => textTokens(model, text));
  const longest = Math.max(...continuations.map((c) => c.length));
  if (prompt.length + longest - 1 > sequence.contextSize) {
    throw new EngineError('bad-request', `score: prompt (${prompt.length} tokens) plus the longest continuation (${longest}) exceeds the context size (${sequence.contextSize})`);
  }
  const checkAbort = (): void => {
    if (signal.aborted) throw new EngineError('aborted', 'score cancelled');
  };

  await sequence.clearHistory();
  const last = prompt.length - 1;
  const firstTokens = [...new Set(continuations.filter((c) => c.length > 0).map((c) => c[0] as Token))];
  const head = await sequence.controlledEvaluate([...prompt.slice(0, last), [prompt[last] as Token, wantLogits(firstTokens)]]);
  const afterPrompt = head[last]?.next;
  const promptEnd = sequence.nextTokenIndex;
  const perPass = Math.max(8, Math.floor(DISTRIBUTION_BUDGET / Math.max(1, vocabularySize(model))));

  const scores: ContinuationScore[] = [];
  for (const cont of continuations) {
    checkAbort();
    const logprobs = cont.length > 0 ? [logProb(afterPrompt, cont[0] as Token)] : [];
    for (let start = 0; start < cont.length - 1; start += perPass) {
      const chunk = cont.slice(start, Math.min(start + perPass, cont.length - 1));
      const out = await sequence.controlledEvaluate(chunk.map((t, j) => [t, wantLogits([cont[start + j + 1] as Token])]));
      chunk.forEach((_, j) => logprobs.push(logProb(out[j]?.next, cont[start + j + 1] as Token)));
    }
    if (sequence.nextTokenIndex > promptEnd) await sequence.eraseContextTokenRanges([{ start: promptEnd, end: sequence.nextTokenIndex }]);
    const sum = logprobs.reduce((a, b) => a + b, 0);
    scores.push({ tokens: tokenTexts(model, prompt, cont), logprobs, sum, mean: logprobs.length ? sum / logprobs.length : 0 });
  }
  return { promptTokens: prompt.length, scores };
}

/** Each token's text as it reads in place (SentencePiece drops a leading space on a lone token otherwise). */
function tokenTexts(model: LlamaModel, prompt: Token[], cont: Token[]): string[] {
  const context = [...prompt, ...cont];
  return cont.map((t, i) => model.detokenize([t], false, context.slice(Math.max(0, prompt.length + i - 4), prompt.length + i)));
}
