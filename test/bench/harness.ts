/**
 * Benchmarks report ratios against a baseline measured in the same run, on the same machine,
 * so results compare across machines (a laptop, CI, a GPU box) without absolute thresholds.
 */
import { performance } from 'node:perf_hooks';

export interface BenchRow {
  suite: string;
  name: string;
  /** What the ratio compares: `candidate / baseline` of `metric`. */
  baselineLabel: string;
  candidateLabel: string;
  metric: string;
  baseline: number;
  candidate: number;
  /** candidate / baseline (for throughput: >1 is better; for time: <1 is better — see `better`). */
  ratio: number;
  better: 'higher' | 'lower';
  note?: string;
}

export interface BenchContext {
  /** Scale factor for quick runs (CI smoke): 1 = full. */
  scale: number;
  log(message: string): void;
}

export type BenchSuite = (ctx: BenchContext) => Promise<BenchRow[]>;

export function row(r: Omit<BenchRow, 'ratio'>): BenchRow {
  return { ...r, ratio: r.baseline === 0 ? Number.NaN : r.candidate / r.baseline };
}

/** Median wall time (ms) of `fn` over `repeats` runs after one warm-up. */
export async function timeMs(fn: () => unknown | Promise<unknown>, repeats = 3): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function markdownTable(rows: BenchRow[], meta: Record<string, string>): string {
  const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3));
  const lines = [
    '# Fairground benchmarks',
    '',
    ...Object.entries(meta).map(([k, v]) => `- ${k}: ${v}`),
    '',
    '| suite | benchmark | metric | baseline | candidate | ratio (candidate/baseline) | note |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.suite} | ${r.name} | ${r.metric} (${r.better} is better) | ${r.baselineLabel}: ${fmt(r.baseline)} | ${r.candidateLabel}: ${fmt(r.candidate)} | **${fmt(r.ratio)}** | ${r.note ?? ''} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
