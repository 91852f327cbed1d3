/**
 * Issue 18 item 5: what scoring pays for reading log-probabilities, in one process on the bench
 * model (1 thread). The same evaluation layout each time — the prompt once, then each of 20
 * continuations in one pass with its token range erased afterwards (scoreInSequence's layout):
 *
 * - evaluation only: the tokens evaluated with no next-token output requested (what scoring would
 *   cost if the needed log-probabilities came for free);
 * - scoreInSequence (src-main/engine/local/worker/score.ts): each scored position asks node-llama-cpp
 *   3.22's logit filter for the target's logit, the top logit and the total logit weight
 *   (`generateNext.logits.filter: { tokens: [target], includeTop: 1 }`, `totalLogitWeight`): a native
 *   sort (llama.cpp's top-k bucket sort, k = the vocabulary) and two passes over the vocabulary,
 *   three numbers handed to JavaScript;
 * - full distributions: the method before the logit filter (node-llama-cpp 3.21.1 had no other):
 *   each scored position asks for `generateNext.probabilities`, so llama.cpp's logits are copied,
 *   sorted and normalised natively, then handed to JavaScript as an array of 2 × vocabulary numbers
 *   and revived into a Map per position. Same tokenization, token texts and results (to 1e-6; see
 *   test/engine/local/scoreLogitFilter.test.ts) as scoreInSequence.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { LOGPROB_FLOOR, scoreInSequence } from '../../src-main/engine/local/worker/score';
import type { ScoreResult } from '../../src-main/engine/types';
import { promptTokens, textTokens } from '../../src-main/engine/local/worker/tokens';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

const WORDS = 'the query asks which document is relevant to fair ranking of passages and the answer cites the source'.split(' ');
const words = (n: number, offset = 0): string => Array.from({ length: n }, (_, i) => WORDS[(i + offset) % WORDS.length]).join(' ');

/** scoreInSequence's evaluation layout with no next-token output requested. */
async function evaluateLayout(sequence: LlamaContextSequence, prompt: Token[], continuations: Token[][]): Promise<void> {
  await sequence.clearHistory();
  await sequence.controlledEvaluate(prompt);
  const promptEnd = sequence.nextTokenIndex;
  for (const cont of continuations) {
    if (cont.length > 1) await sequence.controlledEvaluate(cont.slice(0, -1));
    if (sequence.nextTokenIndex > promptEnd) await sequence.eraseContextTokenRanges([{ start: promptEnd, end: sequence.nextTokenIndex }]);
  }
}

/** scoreInSequence as it was before the logit filter: the full distribution at each scored position. */
async function fullDistributionScore(model: LlamaModel, sequence: LlamaContextSequence, promptText: string, continuationTexts: string[]): Promise<ScoreResult> {
  const want = { generateNext: { probabilities: true } } as const;
  const ln = (p: number | undefined): number => (p && p > 0 ? Math.max(Math.log(p), LOGPROB_FLOOR) : LOGPROB_FLOOR);
  const prompt = promptTokens(model, promptText);
  const continuations = continuationTexts.map((t) => textTokens(model, t));
  await sequence.clearHistory();
  const last = prompt.length - 1;
  const head = await sequence.controlledEvaluate([...prompt.slice(0, last), [prompt[last] as Token, want]]);
  const afterPrompt = head[last]?.next.probabilities;
  const promptEnd = sequence.nextTokenIndex;
  const scores = [];
  for (const cont of continuations) {
    const logprobs = cont.length > 0 ? [ln(afterPrompt?.get(cont[0] as Token))] : [];
    if (cont.length > 1) {
      const out = await sequence.controlledEvaluate(cont.slice(0, -1).map((t) => [t, want]));
      cont.slice(1).forEach((target, j) => logprobs.push(ln(out[j]?.next.probabilities?.get(target))));
    }
    if (sequence.nextTokenIndex > promptEnd) await sequence.eraseContextTokenRanges([{ start: promptEnd, end: sequence.nextTokenIndex }]);
    const context = [...prompt, ...cont];
    const tokens = cont.map((t, i) => model.detokenize([t], false, context.slice(Math.max(0, prompt.length + i - 4), prompt.length + i)));
    const sum = logprobs.reduce((x, y) => x + y, 0);
    scores.push({ tokens, logprobs, sum, mean: logprobs.length ? sum / logprobs.length : 0 });
  }
  return { promptTokens: prompt.length, scores };
}

export async function scoringBench(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = join(tmpdir(), 'fairground-bench');
  mkdirSync(dir, { recursive: true });
  const modelPath = join(dir, 'bench-seed0.gguf');
  if (!existsSync(modelPath)) await writeTinyGguf(modelPath, { preset: 'bench', seed: 0 });
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.warn, maxThreads: 1 });
  try {
    const model: LlamaModel = await llama.loadModel({ modelPath });
    const context = await model.createContext({ contextSize: 1024, batchSize: 512, sequences: 1, threads: 1 });
    const sequence = context.getSequence();
    const promptText = words(Math.max(20, Math.round(298 * Math.min(1, ctx.scale))));
    const continuationTexts = Array.from({ length: 20 }, (_, i) => ` ${words(3 + (i % 4), i)}`);
    const prompt = promptTokens(model, promptText);
    const continuations = continuationTexts.map((t) => textTokens(model, t));
    const scored = continuations.reduce((n, c) => n + c.length, 0);
    ctx.log(`prompt ${prompt.length} tokens, ${continuations.length} continuations, ${scored} scored positions`);
    const signal = new AbortController().signal;
    const today = (): Promise<ScoreResult> => scoreInSequence({ prompt: promptText, continuations: continuationTexts }, { model, sequence, signal });
    const previous = (): Promise<ScoreResult> => fullDistributionScore(model, sequence, promptText, continuationTexts);
    const [a, b] = [await today(), await previous()];
    const worst = Math.max(...a.scores.flatMap((s, i) => s.logprobs.map((lp, j) => Math.abs(lp - (b.scores[i]?.logprobs[j] ?? Number.NaN)))));
    ctx.log(`largest |logit filter − full distribution| over the ${scored} log-probabilities: ${worst}`);
    const pairs = Math.max(3, Math.round(7 * Math.min(1, ctx.scale)));
    const filter = await alternate(() => evaluateLayout(sequence, prompt, continuations), today, { pairs });
    ctx.log(`evaluation only ${filter.baselineMs.toFixed(0)} ms, scoreInSequence (logit filter) ${filter.candidateMs.toFixed(0)} ms`);
    const vsPrevious = await alternate(previous, today, { pairs });
    ctx.log(`full distributions ${vsPrevious.baselineMs.toFixed(0)} ms, scoreInSequence (logit filter) ${vsPrevious.candidateMs.toFixed(0)} ms`);
    await context.dispose();
    await model.dispose();
    const common = { suite: 'scoring', metric: 'ms per call', better: 'lower' as const };
    const setup = `${prompt.length}-token prompt, bench model, 1 thread`;
    return [
      alternationRow(
        {
          ...common,
          name: `scoring 20 continuations (${setup}): logit filter vs the same tokens evaluated without next-token output`,
          baselineLabel: 'evaluation only',
          candidateLabel: 'scoreInSequence',
          note: `${scored} scored positions; each reads the target's logit, the top logit and the total logit weight (node-llama-cpp 3.22 logit filter)`,
        },
        filter,
      ),
      alternationRow(
        {
          ...common,
          name: `scoring 20 continuations (${setup}): logit filter vs full distributions (the method before node-llama-cpp 3.22)`,
          baselineLabel: 'full distributions',
          candidateLabel: 'scoreInSequence',
          note: `same log-probabilities (largest difference ${worst.toExponential(1)}); the full distribution hands 2 × vocabulary numbers per position to JavaScript`,
        },
        vsPrevious,
      ),
    ];
  } finally {
    await llama.dispose();
  }
}
