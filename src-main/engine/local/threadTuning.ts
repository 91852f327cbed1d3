/**
 * Threads chosen by measurement (issue 19). llama.cpp's CPU threads meet at a barrier after every
 * operation of the graph and wait there by spinning (ggml_barrier: a `pause` loop, no yield;
 * node-llama-cpp 3.22.1, like 3.21.1, exposes no polling setting). When the threads outnumber the
 * cores really free — a 2-vCPU laptop with the UI running, a second job, a busy shared machine —
 * every barrier waits for a descheduled thread for a whole scheduler time slice, and a call is
 * 10-50x slower instead of 2x. So the thread count is not a constant but a measurement:
 *
 * - `tune` (worker side, worker/tune.ts) evaluates a short prompt and decodes a few tokens at each
 *   thread count 1 … usable cores, in alternating rounds (1, 2, …, n, then n, …, 1: a burst of
 *   load from another process hits every count alike), and this module takes the median per count
 *   and chooses the count with the least time for a reference call (a RAG prompt plus a short
 *   answer), the fewest threads among those within 5% of the best: fewer threads leave cores for
 *   others and spin less when a core is taken.
 * - node-llama-cpp sets llama.cpp's decode and batch thread counts to one value (AddonContext.cpp:
 *   n_threads_batch = n_threads), so one count is chosen; prompt and decode throughput are both
 *   measured and reported.
 *
 * Pure functions: no I/O, so the choice is testable on hand-written measurements.
 */

/** One trial: a prompt of `promptTokens` evaluated, then `decodeTokens` generated one at a time. */
export interface TuneTrial {
  threads: number;
  round: number;
  promptMs: number;
  decodeMs: number;
}

export interface TuneRequest {
  /** Thread counts to try (each ≥ 1). */
  threadCounts: number[];
  /** Most rounds over all counts. */
  rounds: number;
  /** Stop starting rounds after this long (at least 2 rounds always run). */
  budgetMs: number;
  promptTokens: number;
  decodeTokens: number;
}

/** Per thread count: medians (and spread) of its trials. */
export interface ThreadMeasurement {
  threads: number;
  trials: number;
  /** Prompt processing, tokens/s (median trial). */
  promptTokensPerSecond: number;
  /** Generation, tokens/s (median trial). */
  decodeTokensPerSecond: number;
  /** Estimated time of the reference call, ms (median over trials). */
  callMs: number;
  /** Smallest and largest reference-call estimate over the trials. */
  callMsRange: [number, number];
}

/** What a tuning found: stored with the model (per machine) and shown on its card and in manifests. */
export interface ThreadTuning {
  /** The thread count chosen. */
  threads: number;
  measurements: ThreadMeasurement[];
  /** The reference call the counts were compared on. */
  reference: { promptTokens: number; decodeTokens: number };
  /** Logical CPUs this process could use, and how many looked free when tuning began. */
  usableCores: number;
  freeCores: number;
  /** The machine the measurements belong to (`machineKey`). */
  machine: string;
  tunedAt: string;
  durationMs: number;
}

/**
 * The reference call: about a Fair RAG reader call (a query and a few passages, a short answer).
 * Prompt processing dominates it, as in most RAG workloads.
 */
export const REFERENCE_CALL = { promptTokens: 256, decodeTokens: 16 } as const;

/** Trials: short, so tuning a small model takes a second or two and a 110M model a few seconds. */
export const TRIAL = { promptTokens: 64, decodeTokens: 8 } as const;

/** Counts within this factor of the best are as good; the fewest threads among them is chosen. */
export const CHOICE_TOLERANCE = 1.05;

/** Thread counts to try: 1 … usable, all of them up to 8, then powers of two and usable itself. */
export function candidateThreadCounts(usable: number): number[] {
  const out = new Set<number>();
  for (let t = 1; t <= Math.min(usable, 8); t++) out.add(t);
  for (let t = 16; t < usable; t *= 2) out.add(t);
  out.add(Math.max(1, usable));
  return [...out].sort((a, b) => a - b);
}

/** The order of round `round`: ascending on even rounds, descending on odd ones. */
export function roundOrder(counts: readonly number[], round: number): number[] {
  return round % 2 === 0 ? [...counts] : [...counts].reverse();
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Time of the reference call that one trial predicts: its per-token prompt and decode costs scaled. */
export function referenceCallMs(trial: TuneTrial, trialShape: { promptTokens: number; decodeTokens: number }, reference = REFERENCE_CALL): number {
  return (trial.promptMs / trialShape.promptTokens) * reference.promptTokens + (trial.decodeMs / trialShape.decodeTokens) * reference.decodeTokens;
}

/** Medians per thread count, ascending by count. */
export function summarizeTrials(trials: readonly TuneTrial[], trialShape: { promptTokens: number; decodeTokens: number }, reference = REFERENCE_CALL): ThreadMeasurement[] {
  const byThreads = new Map<number, TuneTrial[]>();
  for (const t of trials) byThreads.set(t.threads, [...(byThreads.get(t.threads) ?? []), t]);
  return [...byThreads.entries()]
    .sort(([a], [b]) => a - b)
    .map(([threads, ts]) => {
      const calls = ts.map((t) => referenceCallMs(t, trialShape, reference));
      return {
        threads,
        trials: ts.length,
        promptTokensPerSecond: (trialShape.promptTokens * 1000) / median(ts.map((t) => t.promptMs)),
        decodeTokensPerSecond: (trialShape.decodeTokens * 1000) / median(ts.map((t) => t.decodeMs)),
        callMs: median(calls),
        callMsRange: [Math.min(...calls), Math.max(...calls)],
      };
    });
}

/** The fewest threads whose median reference call is within `CHOICE_TOLERANCE` of the best. */
export function chooseThreads(measurements: readonly ThreadMeasurement[]): number {
  const usable = measurements.filter((m) => Number.isFinite(m.callMs) && m.callMs > 0);
  if (usable.length === 0) return 1;
  const best = Math.min(...usable.map((m) => m.callMs));
  return Math.min(...usable.filter((m) => m.callMs <= best * CHOICE_TOLERANCE).map((m) => m.threads));
}

/**
 * Which counts deserve another round: after two rounds, a count whose median is over 3x the best
 * median is dropped (under contention a 2-thread trial can take seconds; it will not win).
 */
export function countsStillInTheRunning(trials: readonly TuneTrial[], counts: readonly number[], trialShape: { promptTokens: number; decodeTokens: number }): number[] {
  const m = summarizeTrials(trials, trialShape);
  if (m.length === 0 || Math.min(...m.map((x) => x.trials)) < 2) return [...counts];
  const best = Math.min(...m.map((x) => x.callMs));
  const losing = new Set(m.filter((x) => x.callMs > 3 * best).map((x) => x.threads));
  return counts.filter((c) => !losing.has(c));
}

/** One line for a CLI or a log: "2 threads (1: 9.8 ms, 2: 270 ms per reference call)". */
export function describeTuning(t: ThreadTuning): string {
  const parts = t.measurements.map((m) => `${m.threads}: ${formatMs(m.callMs)}`);
  return `${t.threads} thread${t.threads === 1 ? '' : 's'} (${parts.join(', ')} per ${t.reference.promptTokens}+${t.reference.decodeTokens}-token call)`;
}

function formatMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}
