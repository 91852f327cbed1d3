import { getLlama, LlamaLogLevel, type Llama, type LlamaModel } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { promptTokens, textTokens } from '../../../src-main/engine/local/worker/tokens';
import { EngineError } from '../../../src-main/engine/types';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
let engine: LocalEngine;

beforeAll(async () => {
  models = tinyModels();
  engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
  await engine.load();
});
afterAll(async () => {
  await engine?.close();
  models?.cleanup();
});

const PROMPT = 'Query: fair ranking of documents. The most relevant passage is';
const CANDIDATES = [' passage one', ' the second document about fairness', ' ünïcødé 🙂', 'x'];

describe('LocalEngine.score', () => {
  it('equals the sum of per-token log-probs computed the slow way (full distribution, one token at a time)', async () => {
    const res = await engine.score({ prompt: PROMPT, continuations: CANDIDATES });

    // Reference in this process, straight from node-llama-cpp: for each continuation token, evaluate
    // the whole prefix from scratch and read the probability of that token from the full distribution.
    let llama: Llama | undefined;
    try {
      llama = await getLlama({ gpu: false, maxThreads: 1, build: 'never', logLevel: LlamaLogLevel.error });
      const model: LlamaModel = await llama.loadModel({ modelPath: await models.model(1) });
      const context = await model.createContext({ contextSize: 512, threads: 1 });
      const seq = context.getSequence();
      const prompt = promptTokens(model, PROMPT);
      expect(res.promptTokens).toBe(prompt.length);
      for (const [i, text] of CANDIDATES.entries()) {
        const cont = textTokens(model, text);
        const slow: number[] = [];
        for (let j = 0; j < cont.length; j++) {
          await seq.clearHistory();
          const it = seq.evaluateWithMetadata([...prompt, ...cont.slice(0, j)], { probabilities: true }, { temperature: 0 });
          const next = await it.next();
          await it.return();
          slow.push(Math.log((next.value as { probabilities: Map<number, number> }).probabilities.get(cont[j] as number) as number));
        }
        const score = res.scores[i]!;
        expect(score.logprobs).toHaveLength(cont.length);
        score.logprobs.forEach((lp, j) => expect(Math.abs(lp - (slow[j] as number))).toBeLessThan(1e-4));
        const slowSum = slow.reduce((a, b) => a + b, 0);
        expect(Math.abs(score.sum - slowSum)).toBeLessThan(1e-4);
        expect(score.mean).toBeCloseTo(score.sum / cont.length, 12);
      }
    } finally {
      await llama?.dispose();
    }
  });

  it('reads token texts in place, leading spaces included', async () => {
    const res = await engine.score({ prompt: PROMPT, continuations: [' the second document'] });
    expect(res.scores[0]!.tokens.join('')).toBe(' the second document');
  });

  it("ranks the model's own greedy next token above other candidates", async () => {
    for (const prompt of [PROMPT, 'The answer is', 'Rank the passages:']) {
      const next = await engine.generate({ prompt, maxTokens: 1, sampling: { temperature: 0 } });
      const others = [' the', ' document', ' relevant', 'x', ' yes', ' no'].filter((c) => c !== next.text);
      const res = await engine.score({ prompt, continuations: [next.text, ...others] });
      expect(res.scores[0]!.tokens).toHaveLength(1);
      const best = Math.max(...res.scores.map((s) => s.sum));
      expect(res.scores[0]!.sum).toBe(best);
    }
  });

  it('is bit-reproducible: a continuation scores the same alone, in any order, and beside running generations', async () => {
    const alone = (await engine.score({ prompt: PROMPT, continuations: [CANDIDATES[1]!] })).scores[0];
    const forward = await engine.score({ prompt: PROMPT, continuations: CANDIDATES });
    const backward = await engine.score({ prompt: PROMPT, continuations: [...CANDIDATES].reverse() });
    expect(forward.scores[1]).toEqual(alone);
    expect(backward.scores[CANDIDATES.length - 2]).toEqual(alone);
    const [, , busy] = await Promise.all([
      engine.generate({ prompt: 'a long parallel generation', maxTokens: 60, sampling: { temperature: 0 } }),
      engine.generate({ prompt: 'another one', maxTokens: 60, sampling: { temperature: 0 } }),
      engine.score({ prompt: PROMPT, continuations: CANDIDATES }),
    ]);
    expect(busy).toEqual(forward);
  });

  it('refuses empty continuations and cancels with EngineError aborted', async () => {
    const err = (await engine.score({ prompt: 'x', continuations: [''] }).catch((e: unknown) => e)) as EngineError;
    expect(err.code).toBe('bad-request');
    const controller = new AbortController();
    controller.abort();
    const aborted = (await engine.score({ prompt: 'x', continuations: ['y'] }, controller.signal).catch((e: unknown) => e)) as EngineError;
    expect(aborted).toBeInstanceOf(EngineError);
    expect(aborted.code).toBe('aborted');
  });
});

describe('LocalEngine.embed', () => {
  it('gives identical vectors for identical texts, whatever else is in the batch', async () => {
    const a = await engine.embed({ texts: ['fair ranking of documents', 'fair ranking of documents', 'something else'] });
    expect(a.dimensions).toBe(64);
    expect(a.vectors).toHaveLength(3);
    expect(a.vectors[1]).toEqual(a.vectors[0]);
    expect(a.vectors[2]).not.toEqual(a.vectors[0]);
    const b = await engine.embed({ texts: ['something else', 'fair ranking of documents'] });
    expect(b.vectors[1]).toEqual(a.vectors[0]);
    expect(b.vectors[0]).toEqual(a.vectors[2]);
  });
});
