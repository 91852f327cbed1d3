/**
 * Log-probabilities of continuations after a shared prompt, with KV-prefix reuse: the prompt is
 * evaluated once; each continuation is evaluated after it in one forward pass and its token range
 * is then erased from the sequence, so the next continuation again sees exactly the prompt.
 *
 * How a token's log-probability is read: node-llama-cpp 3.21.1 has no logit filter in
 * `controlledEvaluate` (the `logits.filter` / `totalLogitWeight` recipe of later versions), so
 * each scored position asks for the full next-token distribution (`generateNext.probabilities`)
 * under the greedy sampler, which leaves the logits untouched: p = softmax(logits), computed in
 * float32 by the binding, and logp = ln p(target). That matches the token-by-token slow method to
 * ~1e-7. Float32 underflow puts a floor at ln(2^-149) ≈ −103.3: a token less likely than that
 * is reported as LOGPROB_FLOOR.
 *
 * The first continuation token is scored from the prompt's last position (one evaluation of the
 * prompt serves every continuation); the last continuation token is never evaluated, only scored.
 * A continuation is evaluated in one pass unless the full distributions it would hold at once
 * exceed DISTRIBUTION_BUDGET entries (long continuations on large vocabularies); then in fixed
 * chunks. Either way the layout depends only on the request and the model, so every bit of the
 * result does too.
 */
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { EngineError, type ContinuationScore, type ScoreRequest, type ScoreResult } from '../../types';
import { promptTokens as tokensOfPrompt, textTokens } from './tokens';

export const LOGPROB_FLOOR = Math.log(2 ** -149);
/** Probabilities held at once while scoring (vocabulary size x positions per pass). */
const DISTRIBUTION_BUDGET = 1 << 22;

export interface ScoreEnv {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  signal: AbortSignal;
}

const wantDistribution = { generateNext: { probabilities: true } } as const;

function logProb(probabilities: Map<Token, number> | undefined, target: Token): number {
  const p = probabilities?.get(target) ?? 0;
  return p > 0 ? Math.max(Math.log(p), LOGPROB_FLOOR) : LOGPROB_FLOOR;
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
  const head = await sequence.controlledEvaluate([...prompt.slice(0, last), [prompt[last] as Token, wantDistribution]]);
  const afterPrompt = head[last]?.next.probabilities;
  const promptEnd = sequence.nextTokenIndex;
  const perPass = Math.max(8, Math.floor(DISTRIBUTION_BUDGET / Math.max(1, afterPrompt?.size ?? 1)));

  const scores: ContinuationScore[] = [];
  for (const cont of continuations) {
    checkAbort();
    const logprobs = cont.length > 0 ? [logProb(afterPrompt, cont[0] as Token)] : [];
    for (let start = 0; start < cont.length - 1; start += perPass) {
      const chunk = cont.slice(start, Math.min(start + perPass, cont.length - 1));
      const out = await sequence.controlledEvaluate(chunk.map((t) => [t, wantDistribution]));
      chunk.forEach((_, j) => logprobs.push(logProb(out[j]?.next.probabilities, cont[start + j + 1] as Token)));
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
