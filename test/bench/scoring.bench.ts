/**
 * Issue 18 item 5: what scoring pays for reading log-probabilities, in one process on the bench
 * model (1 thread). The same evaluation layout three ways — the prompt once, then each of 20
 * continuations in one pass with its token range erased afterwards (scoreInSequence's layout):
 *
 * - floor: the tokens evaluated with no next-token output requested (what scoring would cost if
 *   node-llama-cpp gave the needed tokens' log-probabilities for free);
 * - today: `scoreInSequence` (src-main/engine/local/worker/score.ts), which asks each scored
 *   position for its full distribution (`generateNext.probabilities`): llama.cpp's logits are
 *   copied, sorted and normalised natively, then handed to JavaScript as an array of 2 × vocabulary
 *   numbers and revived into a Map per position;
 * - selected-token only: each scored position asks only `generateNext.confidence` (the greedy
 *   token's probability): the native copy, sort and softmax still run, the array and the Map do
 *   not. It cannot score a given token (only the one greedy decoding picks), so it is no scoring
 *   method; it shows how much of today's cost is the native side and how much the hand-over.
 *
 * node-llama-cpp 3.21.1 has no other way to read logits (no logit filter; see README Performance).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { scoreInSequence } from '../../src-main/engine/local/worker/score';
import { promptTokens, textTokens } from '../../src-main/engine/local/worker/tokens';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

const WORDS = 'the query asks which document is relevant to fair ranking of passages and the answer cites the source'.split(' ');
const words = (n: number, offset = 0): string => Array.from({ length: n }, (_, i) => WORDS[(i + offset) % WORDS.length]).join(' ');

type Want = 'none' | 'confidence';

/** scoreInSequence's evaluation layout, asking each scored position for `want` instead of the distribution. */
async function evaluateLayout(sequence: LlamaContextSequence, prompt: Token[], continuations: Token[][], want: Want): Promise<void> {
  const next = want === 'confidence' ? ({ generateNext: { confidence: true } } as const) : undefined;
  const item = (t: Token): Token | [Token, { generateNext: { confidence: true } }] => (next ? [t, next] : t);
  await sequence.clearHistory();
  const last = prompt.length - 1;
  await sequence.controlledEvaluate([...prompt.slice(0, last), item(prompt[last] as Token)]);
  const promptEnd = sequence.nextTokenIndex;
  for (const cont of continuations) {
    if (cont.length > 1) await sequence.controlledEvaluate(cont.slice(0, -1).map(item));
    if (sequence.nextTokenIndex > promptEnd) await sequence.eraseContextTokenRanges([{ start: promptEnd, end: sequence.nextTokenIndex }]);
  }
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
    const today = (): Promise<unknown> => scoreInSequence({ prompt: promptText, continuations: continuationTexts }, { model, sequence, signal });
    const pairs = Math.max(3, Math.round(7 * Math.min(1, ctx.scale)));
    const full = await alternate(() => evaluateLayout(sequence, prompt, continuations, 'none'), today, { pairs });
    ctx.log(`floor ${full.baselineMs.toFixed(0)} ms, full distributions ${full.candidateMs.toFixed(0)} ms`);
    const confidence = await alternate(
      () => evaluateLayout(sequence, prompt, continuations, 'none'),
      () => evaluateLayout(sequence, prompt, continuations, 'confidence'),
      { pairs },
    );
    ctx.log(`floor ${confidence.baselineMs.toFixed(0)} ms, selected-token probability only ${confidence.candidateMs.toFixed(0)} ms`);
    await context.dispose();
    await model.dispose();
    const common = { suite: 'scoring', metric: 'ms per call', better: 'lower' as const };
    const setup = `${prompt.length}-token prompt, bench model, 1 thread`;
    return [
      alternationRow(
        {
          ...common,
          name: `scoring 20 continuations (${setup}): full distributions vs the same tokens evaluated without next-token output`,
          baselineLabel: 'evaluation only',
          candidateLabel: 'scoreInSequence',
          note: `${scored} scored positions; node-llama-cpp 3.21.1 reads logits only as a full sorted distribution (no logit filter)`,
        },
        full,
      ),
      alternationRow(
        {
          ...common,
          name: `the same layout asking only the greedy token's probability (${setup}) vs evaluation only`,
          baselineLabel: 'evaluation only',
          candidateLabel: 'confidence only',
          note: 'native copy + sort + softmax without the 2×vocabulary array and Map: the part of the cost no public option avoids',
        },
        confidence,
      ),
    ];
  } finally {
    await llama.dispose();
  }
}
