/**
 * scoreInSequence reads log-probabilities through node-llama-cpp's logit filter (the target's
 * logit, the top logit and the total logit weight). Issue 18 item 5 asks that this gives the
 * log-probabilities of the full-distribution method it replaced to 1e-6: the reference below is
 * that method (each scored position's `generateNext.probabilities`, same evaluation layout), run
 * on the same sequence of the same model.
 */
import { getLlama, LlamaLogLevel, type Llama, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGPROB_FLOOR, logProb, scoreInSequence } from '../../../src-main/engine/local/worker/score';
import { promptTokens, textTokens } from '../../../src-main/engine/local/worker/tokens';
import { tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
let llama: Llama;

beforeAll(async () => {
  models = tinyModels();
  llama = await getLlama({ gpu: false, maxThreads: 1, build: 'never', logLevel: LlamaLogLevel.error });
});
afterAll(async () => {
  await llama?.dispose();
  models?.cleanup();
});

/** The previous method: full next-token distribution at each scored position, p read from it. */
async function fullDistributionLogprobs(model: LlamaModel, sequence: LlamaContextSequence, prompt: string, continuations: string[]): Promise<number[][]> {
  const want = { generateNext: { probabilities: true } } as const;
  const ln = (p: number | undefined): number => (p && p > 0 ? Math.max(Math.log(p), LOGPROB_FLOOR) : LOGPROB_FLOOR);
  const tokens = promptTokens(model, prompt);
  const last = tokens.length - 1;
  await sequence.clearHistory();
  const head = await sequence.controlledEvaluate([...tokens.slice(0, last), [tokens[last] as Token, want]]);
  const afterPrompt = head[last]?.next.probabilities;
  const promptEnd = sequence.nextTokenIndex;
  const result: number[][] = [];
  for (const text of continuations) {
    const cont = textTokens(model, text);
    const logprobs = [ln(afterPrompt?.get(cont[0] as Token))];
    if (cont.length > 1) {
      const out = await sequence.controlledEvaluate(cont.slice(0, -1).map((t) => [t, want]));
      cont.slice(1).forEach((target, j) => logprobs.push(ln(out[j]?.next.probabilities?.get(target))));
    }
    if (sequence.nextTokenIndex > promptEnd) await sequence.eraseContextTokenRanges([{ start: promptEnd, end: sequence.nextTokenIndex }]);
    result.push(logprobs);
  }
  return result;
}

const CASES: { prompt: string; continuations: string[] }[] = [
  {
    prompt: 'Query: fair ranking of documents. The most relevant passage is',
    continuations: [' passage one', ' the second document about fairness and exposure in ranked lists', ' ünïcødé 🙂', 'x', ' the', ' the second'],
  },
  { prompt: 'Rank the passages:', continuations: [' [2] > [1] > [3]', ' yes', ' no', '\n\n1. The answer cites the source.'] },
];

describe('scoreInSequence through the logit filter', () => {
  for (const seed of [1, 2, 3]) {
    it(`gives the full-distribution log-probabilities to 1e-6 on every token (tiny model, seed ${seed})`, async () => {
      const model = await llama.loadModel({ modelPath: await models.model(seed) });
      const context = await model.createContext({ contextSize: 512, threads: 1 });
      try {
        const sequence = context.getSequence();
        const signal = new AbortController().signal;
        let compared = 0;
        let worst = 0;
        for (const { prompt, continuations } of CASES) {
          const reference = await fullDistributionLogprobs(model, sequence, prompt, continuations);
          const res = await scoreInSequence({ prompt, continuations }, { model, sequence, signal });
          expect(res.promptTokens).toBe(promptTokens(model, prompt).length);
          res.scores.forEach((score, i) => {
            const ref = reference[i]!;
            expect(score.logprobs).toHaveLength(ref.length);
            expect(score.tokens).toHaveLength(ref.length);
            score.logprobs.forEach((lp, j) => {
              const delta = Math.abs(lp - ref[j]!);
              worst = Math.max(worst, delta);
              expect(delta, `${JSON.stringify(continuations[i])} token ${j}: ${lp} vs ${ref[j]}`).toBeLessThanOrEqual(1e-6);
              compared++;
            });
            expect(score.sum).toBeCloseTo(score.logprobs.reduce((a, b) => a + b, 0), 12);
          });
        }
        expect(compared).toBeGreaterThan(40);
        expect(worst).toBeLessThanOrEqual(1e-6);
      } finally {
        await context.dispose();
        await model.dispose();
      }
    });
  }
});

describe('logProb', () => {
  const f32 = Math.fround;
  it('computes p in float32 from the target logit, the top logit and the total weight', () => {
    const next = { logits: new Map<Token, number>([[7 as Token, f32(2.5)], [3 as Token, f32(-1.25)]]), totalLogitWeight: f32(3.75) };
    const p = f32(f32(Math.exp(f32(f32(-1.25) - f32(2.5)))) / f32(3.75));
    expect(logProb(next, 3 as Token)).toBe(Math.log(p));
    expect(logProb(next, 7 as Token)).toBe(Math.log(f32(1 / f32(3.75))));
    expect(Math.abs(logProb(next, 3 as Token) - (-3.75 - Math.log(3.75)))).toBeLessThan(1e-6);
  });

  it('reports LOGPROB_FLOOR for a token absent from the answer or below float32 underflow', () => {
    const next = { logits: new Map<Token, number>([[1 as Token, 0], [2 as Token, -200]]), totalLogitWeight: 1 };
    expect(logProb(next, 2 as Token)).toBe(LOGPROB_FLOOR);
    expect(logProb(next, 9 as Token)).toBe(LOGPROB_FLOOR);
    expect(logProb(undefined, 1 as Token)).toBe(LOGPROB_FLOOR);
    expect(logProb(next, 1 as Token)).toBe(0);
  });
});
