/**
 * A plain-prompt generation evaluates every token of its prompt, however much of the context the
 * prompt fills (issue 24 item 2). node-llama-cpp's LlamaCompletion keeps room for a context shift
 * (a tenth of the context by default) and cuts the prompt's start to make it, even with the shift
 * disabled: on the 512-token demo context, prompts of 462 tokens and more lost their first tokens
 * after BOS without a word, and 7 of 367 greedy demo calls differed from llama-server's.
 *
 * The reference is the greedy loop written out with node-llama-cpp's `controlledEvaluate` on the
 * same sequence of the same model: the whole prompt in one batch, the greedy token of its last
 * position, then one token per evaluation — the layout LlamaCompletion and llama-server use.
 */
import { getLlama, LlamaLogLevel, type Llama, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInSequence } from '../../../src-main/engine/local/worker/generate';
import { promptTokens } from '../../../src-main/engine/local/worker/tokens';
import { tinyModels, type TinyModels } from '../support/tinyModels';

const CONTEXT = 512;
let models: TinyModels;
let llama: Llama;
let model: LlamaModel;
let sequence: LlamaContextSequence;

beforeAll(async () => {
  models = tinyModels();
  llama = await getLlama({ gpu: false, maxThreads: 1, build: 'never', logLevel: LlamaLogLevel.error });
  model = await llama.loadModel({ modelPath: await models.model(1) });
  const context = await model.createContext({ contextSize: CONTEXT, batchSize: CONTEXT, sequences: 1, threads: 1 });
  sequence = context.getSequence();
});
afterAll(async () => {
  await llama?.dispose();
  models?.cleanup();
});

/** Greedy tokens after `tokens` (beginning token included), evaluated as llama-server evaluates them. */
async function greedyReference(tokens: Token[], maxTokens: number): Promise<Token[]> {
  await sequence.clearHistory();
  const out: Token[] = [];
  let input = tokens;
  while (out.length < maxTokens) {
    const last = input.length - 1;
    const res = await sequence.controlledEvaluate([...input.slice(0, last), [input[last] as Token, { generateNext: { token: true } }]]);
    const next = res[last]?.next.token;
    if (next === undefined || next === null || model.isEogToken(next)) break;
    out.push(next);
    input = [next];
  }
  await sequence.clearHistory();
  return out;
}

/** A prompt of exactly `n` tokens as generate() evaluates it (beginning token included): words drawn with a seeded generator. */
function promptOf(n: number, seed: number): string {
  const words = ['relevant', 'document', 'query', 'fair', 'ranking', 'exposure', 'answer', 'the', 'citation', 'budget', 'passage', 'model', 'score', 'retrieval', 'item', 'group'];
  let state = seed >>> 0;
  const next = (): number => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  let text = 'Question:';
  while (promptTokens(model, text).length < n) text += `${next() < 0.2 ? '.\n' : ' '}${words[Math.floor(next() * words.length)]}`;
  while (promptTokens(model, text).length > n) text = text.slice(0, -1);
  expect(promptTokens(model, text).length).toBe(n);
  return text;
}

describe('generateInSequence evaluates the whole prompt', () => {
  it('gives the greedy tokens of the whole prompt when the prompt fills more than nine tenths of the context', async () => {
    const maxTokens = 8;
    const seed = Number(process.env.FG_SEED ?? 1);
    console.log(`whole-prompt generation: prompt words drawn with seed ${seed}`);
    const prompt = promptOf(CONTEXT - maxTokens, seed);
    const tokens = promptTokens(model, prompt);
    const signal = new AbortController().signal;
    const result = await generateInSequence({ prompt, maxTokens, sampling: { temperature: 0 } }, { model, sequence, grammar: undefined, chatWrapper: () => { throw new Error('no chat'); }, signal });
    await sequence.clearHistory();
    expect(result.promptTokens).toBe(CONTEXT - maxTokens);
    expect(result.completionTokens).toBe(maxTokens);

    const whole = await greedyReference(tokens, maxTokens);
    expect(result.text).toBe(model.detokenize(whole, false, tokens.slice(-8)));
    // What LlamaCompletion's default made of it: BOS and the last (context - context/10 - 1) tokens.
    // The planted difference shows the comparison can fail: that cut prompt gives other tokens here.
    const keep = CONTEXT - Math.floor(CONTEXT / 10) - 1;
    const cut = await greedyReference([tokens[0] as Token, ...tokens.slice(-keep)], maxTokens);
    expect(cut).not.toEqual(whole);
  });
});
