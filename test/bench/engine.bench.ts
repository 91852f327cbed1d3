/**
 * Local engine throughput on the `bench` model preset (12 layers, width 768, Q8_0, ~110M
 * parameters — written once into the temp folder, no download):
 *
 * - prompt processing and generation tokens/s, with the thread count used;
 * - parallel sequences vs one after another, for generation and for scoring;
 * - KV-prefix reuse: 20 continuations after a ~300-token prompt scored in one call (prompt
 *   evaluated once) vs one call each (prompt evaluated every time);
 * - the call cache: a repeated batch answered from SQLite vs computed.
 *
 * `runEngineBench` returns the raw metrics; `engineBench` turns them into rows for `npm run bench`.
 * Runs in well under 3 minutes on 2 CPU cores.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CachedEngine } from '../../src-main/engine/callCache';
import { writeTinyGguf, type TinyPreset } from '../../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { physicalCores } from '../../src-main/engine/local/settings';
import type { GenerateRequest } from '../../src-main/engine/types';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { openWorkspace } from '../../src-main/store/workspace';
import { row, type BenchContext, type BenchRow } from './harness';

export interface EngineBenchOptions {
  /** Model shape: 'bench' (default) for real numbers, 'tiny' for a smoke run. */
  preset?: TinyPreset;
  /** CPU threads (default: physical cores). */
  threads?: number;
  /** Parallel sequences for the parallel measurements (default 4). */
  sequences?: number;
  /** Shrinks token counts for quick runs (1 = full). */
  scale?: number;
  /** Where the model file is kept between runs (default: the OS temp folder). */
  dir?: string;
  log?(message: string): void;
}

export interface EngineBenchMetrics {
  preset: TinyPreset;
  threads: number;
  sequences: number;
  modelWriteMs: number;
  loadMs: number;
  promptTokens: number;
  promptTokensPerSecond: number;
  generationTokensPerSecond: number;
  /** Tokens/s generating `sequences` prompts concurrently ÷ one after another. */
  parallelGenerationSpeedup: number;
  /** The same for score calls (scoring takes the whole context, so ≈1 by design). */
  parallelScoringSpeedup: number;
  prefixReuse: { continuations: number; promptTokens: number; withReuseMs: number; withoutReuseMs: number; speedup: number };
  cache: { calls: number; missMs: number; hitMs: number; speedup: number };
}

const WORDS = 'the query asks which document is relevant to fair ranking of passages and the answer cites the source'.split(' ');

function words(n: number, offset = 0): string {
  return Array.from({ length: n }, (_, i) => WORDS[(i + offset) % WORDS.length]).join(' ');
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

async function medianMs(fn: () => Promise<unknown>, runs = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(fn))[1]);
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
}

export async function runEngineBench(opts: EngineBenchOptions = {}): Promise<EngineBenchMetrics> {
  const preset = opts.preset ?? 'bench';
  const threads = opts.threads ?? physicalCores();
  const sequences = opts.sequences ?? 4;
  const scale = opts.scale ?? 1;
  const log = opts.log ?? (() => undefined);
  const n = (full: number, min: number): number => Math.max(min, Math.round(full * scale));

  const dir = opts.dir ?? join(tmpdir(), 'fairground-bench');
  mkdirSync(dir, { recursive: true });
  const modelPath = join(dir, `${preset}-seed0.gguf`);
  let modelWriteMs = 0;
  if (!existsSync(modelPath)) {
    [, modelWriteMs] = await timed(() => writeTinyGguf(modelPath, { preset, seed: 0 }));
    log(`wrote ${modelPath} in ${modelWriteMs.toFixed(0)} ms`);
  }

  const engine = new LocalEngine({ modelPath, settings: { gpu: false, threads, sequences, contextSize: preset === 'bench' ? 1024 : 512 } });
  try {
    const [, loadMs] = await timed(() => engine.load());
    log(`loaded in ${loadMs.toFixed(0)} ms, ${threads} thread(s)`);
    const greedy = (prompt: string, maxTokens: number): GenerateRequest => ({ prompt, maxTokens, sampling: { temperature: 0 } });
    await engine.generate(greedy('warm up', 4));

    // Prompt processing: a long prompt and one generated token; generation: the extra time per extra token.
    // Medians of 3 runs: the differences below must not drown in scheduling noise.
    const longPrompt = words(n(300, 40));
    const genTokens = n(64, 16);
    const pp = await engine.generate(greedy(longPrompt, 1));
    const ppMs = await medianMs(() => engine.generate(greedy(longPrompt, 1)));
    const oneMs = await medianMs(() => engine.generate(greedy('Once', 1)));
    const manyMs = await medianMs(() => engine.generate(greedy('Once', genTokens + 1)));
    const generationTokensPerSecond = genTokens / ((manyMs - oneMs) / 1000);
    const promptTokensPerSecond = pp.promptTokens / ((ppMs - oneMs) / 1000);
    log(`prompt ${pp.promptTokens} tokens: ${promptTokensPerSecond.toFixed(0)} tok/s; generation ${generationTokensPerSecond.toFixed(0)} tok/s`);

    // Parallel sequences vs one after another.
    const prompts = Array.from({ length: sequences }, (_, i) => words(12, i));
    const parTokens = n(32, 6);
    const [, seqGenMs] = await timed(async () => {
      for (const p of prompts) await engine.generate(greedy(p, parTokens));
    });
    const [, parGenMs] = await timed(() => Promise.all(prompts.map((p) => engine.generate(greedy(p, parTokens)))));
    const scoreReq = (i: number) => ({ prompt: words(n(60, 12), i), continuations: [' relevant', ' the answer', ' no'] });
    const [, seqScoreMs] = await timed(async () => {
      for (let i = 0; i < sequences; i++) await engine.score(scoreReq(i));
    });
    const [, parScoreMs] = await timed(() => Promise.all(prompts.map((_, i) => engine.score(scoreReq(i)))));
    log(`parallel/sequential: generation ${(seqGenMs / parGenMs).toFixed(2)}x, scoring ${(seqScoreMs / parScoreMs).toFixed(2)}x`);

    // KV-prefix reuse.
    const continuations = Array.from({ length: n(20, 4) }, (_, i) => ` ${words(3 + (i % 4), i)}`);
    const [withReuse, withReuseMs] = await timed(() => engine.score({ prompt: longPrompt, continuations }));
    const [, withoutReuseMs] = await timed(async () => {
      for (const c of continuations) await engine.score({ prompt: longPrompt, continuations: [c] });
    });
    log(`prefix reuse: ${withReuseMs.toFixed(0)} ms vs ${withoutReuseMs.toFixed(0)} ms without`);

    // Call cache: the same batch twice.
    const ws = openWorkspace(':memory:');
    try {
      const cached = new CachedEngine(engine, new CallCacheRepo(ws.db));
      const batch = Array.from({ length: n(8, 3) }, (_, i) => greedy(words(10, i), n(16, 4)));
      const [, missMs] = await timed(async () => {
        for (const r of batch) await cached.generate(r);
      });
      const [, hitMs] = await timed(async () => {
        for (const r of batch) await cached.generate(r);
      });
      log(`cache: ${batch.length} calls, miss ${missMs.toFixed(0)} ms, hit ${hitMs.toFixed(2)} ms`);

      return {
        preset,
        threads,
        sequences,
        modelWriteMs,
        loadMs,
        promptTokens: pp.promptTokens,
        promptTokensPerSecond,
        generationTokensPerSecond,
        parallelGenerationSpeedup: seqGenMs / parGenMs,
        parallelScoringSpeedup: seqScoreMs / parScoreMs,
        prefixReuse: { continuations: continuations.length, promptTokens: withReuse.promptTokens, withReuseMs, withoutReuseMs, speedup: withoutReuseMs / withReuseMs },
        cache: { calls: batch.length, missMs, hitMs, speedup: missMs / hitMs },
      };
    } finally {
      ws.close();
    }
  } finally {
    await engine.close();
  }
}

/** The engine suite for `npm run bench`. */
export async function engineBench(ctx: BenchContext): Promise<BenchRow[]> {
  const m = await runEngineBench({ scale: ctx.scale, log: ctx.log });
  const suite = 'engine';
  const setup = `${m.preset} model, ${m.threads} thread(s)`;
  return [
    row({ suite, name: `prompt processing vs generation (${setup})`, metric: 'tokens/s', better: 'higher', baselineLabel: 'generation', candidateLabel: 'prompt', baseline: m.generationTokensPerSecond, candidate: m.promptTokensPerSecond, note: `${m.promptTokens}-token prompt` }),
    row({ suite, name: `generation, ${m.sequences} parallel sequences (${setup})`, metric: 'speedup', better: 'higher', baselineLabel: 'sequential', candidateLabel: 'parallel', baseline: 1, candidate: m.parallelGenerationSpeedup }),
    row({ suite, name: `scoring, ${m.sequences} concurrent calls (${setup})`, metric: 'speedup', better: 'higher', baselineLabel: 'sequential', candidateLabel: 'concurrent', baseline: 1, candidate: m.parallelScoringSpeedup, note: 'scoring holds the whole context (fixed batch layout), so ≈1 by design' }),
    row({ suite, name: `${m.prefixReuse.continuations} continuations after a ${m.prefixReuse.promptTokens}-token prompt`, metric: 'ms', better: 'lower', baselineLabel: 'prompt per continuation', candidateLabel: 'KV-prefix reuse', baseline: m.prefixReuse.withoutReuseMs, candidate: m.prefixReuse.withReuseMs }),
    row({ suite, name: `call cache, ${m.cache.calls} repeated generations`, metric: 'ms', better: 'lower', baselineLabel: 'miss', candidateLabel: 'hit', baseline: m.cache.missMs, candidate: m.cache.hitMs }),
  ];
}
