/**
 * Threads by measurement (issue 19, issue 18 item 6), for both generated models (the `tiny` and
 * `bench` presets):
 *
 * - the time of a typical reader call (a ~192-token prompt and 16 generated tokens) at each thread
 *   count 1 … usable CPUs, and the tokens/s the tuner measured at each;
 * - the auto-tuned choice against the best measured count (goal: within 10%) and against the old
 *   default (physical cores, fixed);
 * - under a CPU burner (a child process spinning on one core; SIGSTOP/SIGCONT switch it between the
 *   alternating repetitions): the tiny model's per-call time with the burner ÷ without, for the tuned
 *   engine (goal: ≤ 3×) and for the old default;
 * - with FAIRGROUND_BENCH_DEMO=1: the demo Fair RAG spec headless (`fairground run`), wall time with
 *   the old default (threads = physical cores in the workspace settings) and tuned, quiet and with
 *   the burner. Minutes on a 2-core machine, so opt-in.
 *
 * Every comparison alternates its sides (harness `alternate`) and reports the median pair ratio with
 * its range: the machine may be shared.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeTinyGguf, type TinyPreset } from '../../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { physicalCores } from '../../src-main/engine/local/settings';
import { candidateThreadCounts, type ThreadTuning } from '../../src-main/engine/local/threadTuning';
import type { GenerateRequest } from '../../src-main/engine/types';
import { SettingsService } from '../../src-main/services/settingsService';
import { openWorkspace } from '../../src-main/store/workspace';
import { alternate, alternationRow, median, row, type BenchContext, type BenchRow } from './harness';

const WORDS = 'the query asks which document is relevant to fair ranking of passages and the answer cites the source'.split(' ');
const words = (n: number): string => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]).join(' ');
/** About 192 tokens with the generated vocabulary, plus 16 generated: the reader call. */
const CALL: GenerateRequest = { prompt: words(150), maxTokens: 16, sampling: { temperature: 0 } };

/** A process spinning on one core; `pause()`/`resume()` stop and continue it (SIGSTOP/SIGCONT). */
export class CpuBurner {
  private readonly child: ChildProcess;
  constructor() {
    this.child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  }
  pause(): void {
    this.child.kill('SIGSTOP');
  }
  resume(): void {
    this.child.kill('SIGCONT');
  }
  stop(): void {
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
  }
}

async function modelFile(preset: TinyPreset): Promise<string> {
  const dir = join(tmpdir(), 'fairground-bench');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${preset}-seed0.gguf`);
  if (!existsSync(path)) await writeTinyGguf(path, { preset, seed: 0 });
  return path;
}

async function presetRows(preset: TinyPreset, ctx: BenchContext, burner: CpuBurner): Promise<BenchRow[]> {
  const suite = 'threads';
  const modelPath = await modelFile(preset);
  const usable = availableParallelism();
  const counts = candidateThreadCounts(usable);
  const oldDefault = physicalCores();
  const contextSize = 512;
  const fixed = new Map(counts.map((t) => [t, new LocalEngine({ modelPath, settings: { gpu: false, threads: t, contextSize } })]));
  const tuned = new LocalEngine({ modelPath, settings: { gpu: false, contextSize }, autoTune: true });
  const rows: BenchRow[] = [];
  try {
    const t0 = performance.now();
    await tuned.load();
    const tuning = tuned.tuning as ThreadTuning;
    ctx.log(`${preset}: load + tuning ${(performance.now() - t0).toFixed(0)} ms -> ${tuning.threads} thread(s)`);
    for (const e of fixed.values()) await e.load();
    const call = (e: LocalEngine) => () => e.generate(CALL);
    const pairs = Math.max(3, Math.round(5 * ctx.scale));

    // Per-call time at each count against 1 thread (alternating pairs), and what the tuner measured.
    const one = fixed.get(1) as LocalEngine;
    const oneMs: number[] = [];
    const perCount = new Map<number, number>();
    const tunerSaw = (t: number): string => {
      const m = tuning.measurements.find((x) => x.threads === t);
      return m ? `tuner: prompt ${m.promptTokensPerSecond.toFixed(0)} tok/s, generation ${m.decodeTokensPerSecond.toFixed(0)} tok/s` : 'tuner: dropped after its probe (over 10x slower)';
    };
    for (const t of counts.filter((c) => c > 1)) {
      const a = await alternate(call(one), call(fixed.get(t) as LocalEngine), { pairs });
      oneMs.push(a.baselineMs);
      perCount.set(t, a.candidateMs);
      rows.push(alternationRow({ suite, name: `${preset} model: a 192+16-token call at ${t} threads`, metric: 'ms', better: 'lower', baselineLabel: '1 thread', candidateLabel: `${t} threads`, note: `${tunerSaw(t)}; 1 thread ${tunerSaw(1).slice(7)}` }, a));
      ctx.log(`${preset}: ${t} threads ${a.candidateMs.toFixed(1)} ms per call, 1 thread ${a.baselineMs.toFixed(1)} ms`);
    }
    perCount.set(1, oneMs.length ? median(oneMs) : 0);
    const best = [...perCount.entries()].sort((a, b) => a[1] - b[1])[0] as [number, number];

    // The tuned engine against the best measured count and against the old default.
    const vsBest = await alternate(call(fixed.get(best[0]) as LocalEngine), call(tuned), { pairs });
    rows.push(alternationRow({ suite, name: `${preset} model: auto-tuned (${tuning.threads}) vs the best measured count (${best[0]})`, metric: 'ms', better: 'lower', baselineLabel: `${best[0]} threads`, candidateLabel: 'tuned', note: 'goal ≤ 1.10' }, vsBest));
    const vsOld = await alternate(call(fixed.get(oldDefault) as LocalEngine), call(tuned), { pairs });
    rows.push(alternationRow({ suite, name: `${preset} model: auto-tuned (${tuning.threads}) vs the old default (${oldDefault} = physical cores)`, metric: 'ms', better: 'lower', baselineLabel: 'old default', candidateLabel: 'tuned' }, vsOld));

    if (preset === 'tiny') {
      // A CPU burner on one core: each repetition with the burner running vs paused.
      const underBurner = (e: LocalEngine) => async () => {
        burner.resume();
        try {
          await e.generate(CALL);
        } finally {
          burner.pause();
        }
      };
      for (const [label, engine] of [
        ['auto-tuned', tuned],
        [`old default (${oldDefault} threads)`, fixed.get(oldDefault) as LocalEngine],
      ] as const) {
        const a = await alternate(call(engine), underBurner(engine), { pairs });
        rows.push(alternationRow({ suite, name: `tiny model, ${label}: a call with a CPU burner on one core vs quiet`, metric: 'ms', better: 'lower', baselineLabel: 'quiet', candidateLabel: 'burner', note: label === 'auto-tuned' ? 'goal ≤ 3' : undefined }, a));
        ctx.log(`${preset} ${label}: burner ${a.candidateMs.toFixed(1)} ms vs quiet ${a.baselineMs.toFixed(1)} ms`);
      }
    }
  } finally {
    await Promise.allSettled([tuned.close(), ...[...fixed.values()].map((e) => e.close())]);
  }
  return rows;
}

/** `fairground run` of the demo Fair RAG spec on the tiny GGUF (fair-rag-gguf.json; fair-rag.json runs on the simulated reader) in a fresh workspace; threads: the workspace setting (0 = tuned). */
function demoWallMs(threads: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-demo-'));
  try {
    const workspace = join(dir, 'demo.fairground');
    const ws = openWorkspace(workspace);
    new SettingsService(ws.db).update({ threads });
    ws.close();
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['bin/fairground.js', 'run', 'resources/demo/experiments/fair-rag-gguf.json', '--workspace', workspace], { cwd: process.cwd(), stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`the demo run exited with ${r.status}`);
    return performance.now() - t0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function threadsBench(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}, ${availableParallelism()} logical CPUs, ${physicalCores()} physical cores`);
  const burner = new CpuBurner();
  burner.pause();
  try {
    const rows = [...(await presetRows('tiny', ctx, burner)), ...(await presetRows('bench', ctx, burner))];
    if (process.env.FAIRGROUND_BENCH_DEMO === '1') {
      const suite = 'threads';
      const old = physicalCores();
      const before = demoWallMs(old);
      const after = demoWallMs(0);
      ctx.log(`demo Fair RAG: ${(before / 1000).toFixed(1)} s with ${old} threads, ${(after / 1000).toFixed(1)} s tuned`);
      rows.push(row({ suite, name: 'demo Fair RAG spec headless (fairground run), wall time', metric: 'ms', better: 'lower', baselineLabel: `old default (${old} threads)`, candidateLabel: 'tuned', baseline: before, candidate: after, note: 'one run each' }));
      burner.resume();
      const busy = demoWallMs(0);
      burner.pause();
      rows.push(row({ suite, name: 'demo Fair RAG spec headless, tuned: a CPU burner on one core vs quiet', metric: 'ms', better: 'lower', baselineLabel: 'quiet', candidateLabel: 'burner', baseline: after, candidate: busy, note: 'one run each' }));
    }
    return rows;
  } finally {
    burner.stop();
  }
}
