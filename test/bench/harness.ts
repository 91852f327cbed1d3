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
  /**
   * For rows measured by `alternate`: `ratio` is the median of the per-pair ratios, `baseline` and
   * `candidate` the medians of their times, and this the smallest and largest per-pair ratio.
   */
  spread?: { low: number; high: number; pairs: number };
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

export interface Alternation {
  /** Median time (ms) of one baseline repetition / one candidate repetition. */
  baselineMs: number;
  candidateMs: number;
  /** Median over the pairs of candidate ÷ baseline, with the smallest and largest pair ratio. */
  ratio: number;
  low: number;
  high: number;
  pairs: number;
  baselineTimes: number[];
  candidateTimes: number[];
}

export interface AlternateOptions {
  /** Pairs measured (default 7). */
  pairs?: number;
  /** Unmeasured runs of each first (default 1). */
  warmup?: number;
  /** Divide each repetition's time by this (e.g. calls per repetition), default 1; a pair gives the baseline's and the candidate's. */
  per?: number | [number, number];
}

/**
 * Times `baseline` and `candidate` in alternating repetitions (A B, B A, A B, …: the order flips
 * every pair, so a drift in machine load hits both sides alike) and summarises each pair by
 * candidate ÷ baseline. On a busy machine single timings swing by 2× and more; the median pair
 * ratio with its range is what the bench reports.
 */
export async function alternate(
  baseline: () => unknown | Promise<unknown>,
  candidate: () => unknown | Promise<unknown>,
  opts: AlternateOptions = {},
): Promise<Alternation> {
  const pairs = Math.max(1, opts.pairs ?? 7);
  const [perBaseline, perCandidate] = Array.isArray(opts.per) ? opts.per : [opts.per ?? 1, opts.per ?? 1];
  for (let i = 0; i < (opts.warmup ?? 1); i++) {
    await baseline();
    await candidate();
  }
  const time = async (fn: () => unknown | Promise<unknown>, per: number): Promise<number> => {
    const t0 = performance.now();
    await fn();
    return (performance.now() - t0) / per;
  };
  const baselineTimes: number[] = [];
  const candidateTimes: number[] = [];
  const ratios: number[] = [];
  for (let p = 0; p < pairs; p++) {
    let b: number;
    let c: number;
    if (p % 2 === 0) {
      b = await time(baseline, perBaseline);
      c = await time(candidate, perCandidate);
    } else {
      c = await time(candidate, perCandidate);
      b = await time(baseline, perBaseline);
    }
    baselineTimes.push(b);
    candidateTimes.push(c);
    ratios.push(c / b);
  }
  const sorted = ratios.slice().sort((x, y) => x - y);
  return {
    baselineMs: median(baselineTimes),
    candidateMs: median(candidateTimes),
    ratio: median(ratios),
    low: sorted[0] as number,
    high: sorted[sorted.length - 1] as number,
    pairs,
    baselineTimes,
    candidateTimes,
  };
}

export function median(values: readonly number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** A row from an `alternate` result: medians, median pair ratio and its range. */
export function alternationRow(r: Omit<BenchRow, 'ratio' | 'baseline' | 'candidate' | 'spread'>, a: Alternation, scale: (ms: number) => number = (x) => x): BenchRow {
  return { ...r, baseline: scale(a.baselineMs), candidate: scale(a.candidateMs), ratio: a.ratio, spread: { low: a.low, high: a.high, pairs: a.pairs } };
}

export function formatNumber(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3);
}

/** `ratio` or `ratio [low–high, N pairs]`. */
export function formatRatio(r: BenchRow): string {
  return r.spread ? `**${formatNumber(r.ratio)}** [${formatNumber(r.spread.low)}–${formatNumber(r.spread.high)}, ${r.spread.pairs} pairs]` : `**${formatNumber(r.ratio)}**`;
}

export function markdownTable(rows: BenchRow[], meta: Record<string, string>): string {
  const fmt = formatNumber;
  const lines = [
    '# Fairground benchmarks',
    '',
    ...Object.entries(meta).map(([k, v]) => `- ${k}: ${v}`),
    '',
    'Ratios with a range are medians of alternating repetitions: [smallest–largest pair ratio, number of pairs].',
    '',
    '| suite | benchmark | metric | baseline | candidate | ratio (candidate/baseline) | note |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.suite} | ${r.name} | ${r.metric} (${r.better} is better) | ${r.baselineLabel}: ${fmt(r.baseline)} | ${r.candidateLabel}: ${fmt(r.candidate)} | ${formatRatio(r)} | ${r.note ?? ''} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
