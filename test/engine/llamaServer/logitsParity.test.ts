/**
 * One prompt, one set of logits (issue 24 item 2): the next-token logits of the same token ids,
 * evaluated by node-llama-cpp (the local engine's library, its `controlledEvaluate`) and by a real
 * llama-server built from the same llama.cpp source, agree to float rounding when the server runs
 * with flash attention 'auto' as node-llama-cpp's contexts do (test/support/llamaServer.ts).
 *
 * The server reports log-probabilities (`n_probs`), not logits; differences to the top token are
 * compared (logprob_i − logprob_top = logit_i − logit_top), for the server's 40 most likely tokens.
 *
 * This is what made 10 of 367 greedy demo texts differ (llamaServer.test.ts): the server had been
 * started with `-fa off`, which evaluates attention with other kernels; the logits then differ by
 * about 1e-3 on the tiny F16 model (1e-1 on the bench Q8_0 model) at every prompt length, and greedy
 * texts part at near ties. The '-fa off' case is kept here to show that difference, so a change of
 * the server's flags (or of node-llama-cpp's default) that breaks parity is seen in seconds.
 * Quantized (Q8_0) weights agree exactly on some prompts only (see the bench case).
 */
import { randomInt } from 'node:crypto';
import { getLlama, LlamaLogLevel, type Llama, type Token } from 'node-llama-cpp';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { GgmlType } from '../../../src-main/engine/gguf/ggufFormat';
import { TINY_PRESETS, writeTinyGguf, type TinyPreset } from '../../../src-main/engine/gguf/tinyModel';
import { llamaServerSkip, startLlamaServer } from '../../support/llamaServer';
import { tinyModels, type TinyModels } from '../support/tinyModels';

const TOP = 40;
const LENGTHS = [2, 3, 4, 5, 6, 8, 9, 12, 16, 23, 40, 60];
const SEED = Number(process.env.FAIRGROUND_TEST_SEED ?? randomInt(1, 2 ** 31));
console.log(`logitsParity: prompt seed ${SEED} (FAIRGROUND_TEST_SEED=${SEED} repeats it)`);

/** Whether this CPU reports AMX (Linux), which changes the Q8_0 kernels on both sides (see the bench case). */
const AMX = (() => {
  try {
    return /\bamx_int8\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
})();

let models: TinyModels;
let llama: Llama;

/** Prompts of random text tokens (beginning token 1 first). */
function prompts(vocab: number): Token[][] {
  const rng = createRng(SEED);
  return LENGTHS.map((n) => [1, ...Array.from({ length: n - 1 }, () => 300 + Math.floor(rng.nextFloat() * (vocab - 300)))] as Token[]);
}

/** The local engine's context layout (worker/modelHost.ts): flash attention left at node-llama-cpp's default. */
async function localLogits(modelPath: string, contextSize: number, tokens: Token[][]): Promise<Array<Map<Token, number>>> {
  const model = await llama.loadModel({ modelPath });
  try {
    const context = await model.createContext({ contextSize, batchSize: 512, sequences: 1, threads: 1 });
    const sequence = context.getSequence();
    const out: Array<Map<Token, number>> = [];
    for (const t of tokens) {
      await sequence.clearHistory();
      const res = await sequence.controlledEvaluate(t.map((tok, i) => (i === t.length - 1 ? [tok, { generateNext: { logits: true } }] : tok)));
      out.push(res[res.length - 1]!.next!.logits!);
    }
    await context.dispose();
    return out;
  } finally {
    await model.dispose();
  }
}

/** The server's top log-probabilities of the next token, [id, logprob] most likely first. */
async function serverTop(port: number, tokens: Token[]): Promise<Array<[number, number]>> {
  const res = await fetch(`http://127.0.0.1:${port}/completion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: tokens, n_predict: 1, temperature: 0, n_probs: TOP, cache_prompt: false }),
  });
  const json = (await res.json()) as { completion_probabilities: Array<{ top_logprobs: Array<{ id: number; logprob: number }> }> };
  return json.completion_probabilities[0]!.top_logprobs.map((p) => [p.id, p.logprob]);
}

/** The largest |(logit_i − logit_top) − (logprob_i − logprob_top)| over the server's top tokens, and whether the order is the same. */
function compare(local: Map<Token, number>, server: Array<[number, number]>): { maxDiff: number; sameOrder: boolean } {
  const localTop = [...local.entries()].sort((x, y) => y[1] - x[1]).slice(0, server.length).map(([t]) => t as number);
  const [topId, topLogprob] = server[0]!;
  const topLogit = local.get(topId as Token)!;
  let maxDiff = 0;
  for (const [id, logprob] of server) maxDiff = Math.max(maxDiff, Math.abs(local.get(id as Token)! - topLogit - (logprob - topLogprob)));
  return { maxDiff, sameOrder: localTop.every((t, i) => t === server[i]![0]) };
}

describe.skipIf(llamaServerSkip !== undefined)('next-token logits: node-llama-cpp and llama-server on the same token ids', () => {
  beforeAll(async () => {
    models = tinyModels();
    llama = await getLlama({ gpu: false, maxThreads: 1, build: 'never', logLevel: LlamaLogLevel.error });
  });
  afterAll(async () => {
    await llama?.dispose();
    models?.cleanup();
  });

  for (const preset of ['tiny', 'bench'] as TinyPreset[]) {
    const shape = TINY_PRESETS[preset];
    it(`${preset} (${GgmlType[shape.weightType]}): equal to float rounding with flash attention 'auto' on both sides; -fa off on the server differs`, async () => {
      const modelPath = join(models.dir, `${preset}.gguf`);
      await writeTinyGguf(modelPath, { preset, seed: 3 });
      const tokens = prompts(shape.vocab);
      const local = await localLogits(modelPath, shape.contextLength, tokens);
      const results: Record<string, Array<{ maxDiff: number; sameOrder: boolean }>> = {};
      for (const fa of ['auto', 'off'] as const) {
        // Q8_0 with `--no-repack`: the server's AMX Q8_0 kernel crashed on AMX CPUs (test/support/llamaServer.ts).
        const server = await startLlamaServer(modelPath, { contextSize: shape.contextLength, flashAttention: fa, extraBufferTypes: preset !== 'bench' });
        try {
          results[fa] = [];
          for (let i = 0; i < tokens.length; i++) results[fa].push(compare(local[i]!, await serverTop(server.port, tokens[i]!)));
        } finally {
          await server.stop();
        }
      }
      const show = (fa: string) => results[fa]!.map((r, i) => `${tokens[i]!.length} tokens: ${r.maxDiff.toExponential(2)}${r.sameOrder ? '' : ' (order differs)'}`).join(', ');
      console.log(`${preset}: largest logit difference in the server's top ${TOP}, -fa auto: ${show('auto')}; -fa off: ${show('off')}`);
      // Measured: auto ≤ 2e-6 (the server's log of a float softmax), off 1e-3…8e-3 (tiny) and 0.1…0.3 (bench).
      const agree = (r: { maxDiff: number; sameOrder: boolean }) => r.maxDiff < 2e-5 && r.sameOrder;
      expect(results.off!.filter(agree)).toEqual([]);
      if (preset === 'tiny') {
        // F16 weights: nearly every prompt agrees to float rounding. Not all: prompt seed 188452061 gave one prompt
        // (16 tokens) of twelve a difference of 1.7e-3 with the order changed, the same on every repetition and on
        // the commit before (610d7ac) — the bench case's all-or-nothing difference, seen here once in about 120
        // prompts over ten seeds. Its cause is open (docs/remote.md).
        expect(results.auto!.filter(agree).length).toBeGreaterThanOrEqual(tokens.length - 2);
      } else {
        // Q8_0 weights: with 'auto' some prompts agree exactly and others differ by 0.07–0.16, whatever their
        // length, mostly from about 9 tokens on, the same on every repetition; --no-repack, more threads,
        // --no-host, -c or the batch split (-b/-ub on the server, batchSize locally) change nothing on either
        // side. An all-or-nothing difference that grows likelier with more tokens fits the two builds rounding
        // a tie in the 8-bit activation quantization differently, but that is not shown; the cause is open
        // (docs/remote.md).
        if (AMX) {
          // On an AMX CPU the two sides run different Q8_0 kernels: node-llama-cpp's sapphirerapids CPU variant uses
          // the AMX buffer type, and the server cannot (its AMX Q8_0 kernel crashed, so it runs with --no-repack).
          // Measured there: no prompt or one of twelve agrees exactly, the others differ by 0.07–0.32, as without
          // AMX. Only the size of the difference is held; which kernel rounds how is not.
          console.log('bench: this CPU reports AMX; the server runs Q8_0 without AMX kernels, node-llama-cpp with them');
          for (const r of results.auto!) expect(r.maxDiff).toBeLessThan(0.5);
        } else {
          expect(results.auto!.filter(agree).length).toBeGreaterThan(0);
        }
      }
    }, 300_000);
  }
});
