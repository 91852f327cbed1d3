/**
 * Thread-count trials in the worker (threadTuning.ts says why and how the choice is made): in each
 * round, for each count (ascending, then descending on the next round), clear the sequence,
 * evaluate a `promptTokens`-token prompt in one batch, then generate `decodeTokens` tokens greedily
 * one at a time, timing the two parts. The prompt is the model's own tokens of a fixed English
 * text, so every model is measured on the same kind of input.
 *
 * Bounded under contention (a 2-thread trial on a loaded 2-core machine can take seconds): a probe
 * round first (8 prompt tokens, 2 generated) drops every count over 10x slower than the best probe;
 * and a trial stops generating once it has run 10x longer than the best trial so far, its
 * generation time scaled up from the tokens it did generate.
 */
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { EngineError } from '../../types';
import { countsStillInTheRunning, roundOrder, type TuneRequest, type TuneTrial } from '../threadTuning';
import { beginningToken, textTokens } from './tokens';

const TEXT =
  'Query: which documents are relevant to fair ranking of passages? Passage one describes exposure ' +
  'and attention over ranked lists. Passage two measures the utility of a retrieved document for the ' +
  'answer of a reader model, and passage three compares expected exposure across groups of authors. ';

export interface TuneEnv {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  /** Set the thread count for the next evaluations. */
  pin(threads: number): void;
  signal: AbortSignal;
  onTrial?(trial: TuneTrial): void;
}

/** The first n tokens of a long English text in this model's vocabulary (beginning token first). */
export function trialPrompt(model: LlamaModel, n: number): Token[] {
  const bos = beginningToken(model);
  const tokens: Token[] = bos === null ? [] : [bos];
  let text = TEXT;
  while (textTokens(model, text).length < n) text += TEXT;
  tokens.push(...textTokens(model, text));
  return tokens.slice(0, n);
}

export async function runTuneTrials(req: TuneRequest, env: TuneEnv): Promise<TuneTrial[]> {
  const { model, sequence, signal } = env;
  const prompt = trialPrompt(model, Math.min(req.promptTokens, sequence.contextSize - req.decodeTokens - 1));
  const shape = { promptTokens: prompt.length, decodeTokens: req.decodeTokens };
  const trials: TuneTrial[] = [];
  const started = performance.now();
  let counts = [...req.threadCounts];
  const run = async (threads: number, tokens: Token[], decodeTokens: number, capMs: number): Promise<{ promptMs: number; decodeMs: number }> => {
    if (signal.aborted) throw new EngineError('aborted', 'tuning cancelled');
    env.pin(threads);
    await sequence.clearHistory();
    const t0 = performance.now();
    await sequence.evaluateWithoutGeneratingNewTokens(tokens);
    const t1 = performance.now();
    let generated = 0;
    if (decodeTokens > 0) {
      // The first step re-evaluates the prompt's last token: one decode like the others.
      for await (const _token of sequence.evaluate([tokens[tokens.length - 1] as Token], { temperature: 0 })) {
        if (++generated >= decodeTokens || performance.now() - t0 > capMs) break;
      }
    }
    const t2 = performance.now();
    return { promptMs: t1 - t0, decodeMs: generated > 0 ? ((t2 - t1) * decodeTokens) / generated : 0 };
  };

  // Warm-up at the first count (the first evaluation allocates buffers), then the probe round.
  await run(counts[0] ?? 1, prompt.slice(0, Math.min(8, prompt.length)), 1, Infinity);
  const probe = new Map<number, number>();
  for (const threads of counts) {
    const p = await run(threads, prompt.slice(0, Math.min(8, prompt.length)), 2, Infinity);
    probe.set(threads, p.promptMs + p.decodeMs);
  }
  const bestProbe = Math.min(...probe.values());
  counts = counts.filter((c) => (probe.get(c) ?? 0) <= Math.max(10 * bestProbe, 5));

  let bestTrial = Infinity;
  for (let round = 0; round < req.rounds; round++) {
    if (round >= 2 && performance.now() - started > req.budgetMs) break;
    for (const threads of roundOrder(counts, round)) {
      const { promptMs, decodeMs } = await run(threads, prompt, req.decodeTokens, Math.max(10 * bestTrial, 50));
      bestTrial = Math.min(bestTrial, promptMs + decodeMs);
      const trial = { threads, round, promptMs, decodeMs };
      trials.push(trial);
      env.onTrial?.(trial);
    }
    counts = countsStillInTheRunning(trials, counts, shape);
  }
  await sequence.clearHistory();
  return trials;
}
