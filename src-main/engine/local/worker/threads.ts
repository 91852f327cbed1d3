/**
 * The worker's thread count, set before every operation through node-llama-cpp's public
 * `llama.maxThreads` (its thread splitter hands each decode batch at most that many threads; the
 * contexts are created wanting every usable core, so the count can go up as well as down).
 *
 * Fixed (the user set threads): always that count. Adaptive (threads chosen by tuning, the default):
 * at most the tuned count, and never more than the cores other processes leave free (FreeCoreMeter,
 * re-read at most every 200 ms) — llama.cpp's threads spin at every barrier, so one thread more
 * than the free cores stalls them all. And when a call runs over 3x slower than the tuning
 * predicted for its tokens at the count it ran with, the count drops to 1 for the next 10 seconds
 * (the rate collapsed: something took the cores that the meter has not seen yet, such as a
 * hypervisor's steal time).
 */
import type { Llama } from 'node-llama-cpp';
import { FreeCoreMeter } from '../freeCores';
import type { ThreadMeasurement } from '../threadTuning';

export interface ThreadPolicy {
  /** The count to use (fixed) or the most to use (adaptive). */
  threads: number;
  adaptive: boolean;
  /** Tuning measurements: what a call should cost at each count (adaptive collapse detection). */
  measurements?: ThreadMeasurement[] | undefined;
}

export const COLLAPSE_FACTOR = 3;
export const COLLAPSE_COOLDOWN_MS = 10_000;

export class ThreadGovernor {
  private policy: ThreadPolicy;
  private readonly meter: FreeCoreMeter;
  private collapsedUntil = 0;
  /** Counts chosen, for diagnostics: how many calls ran at each. */
  readonly callsAt = new Map<number, number>();
  collapses = 0;

  constructor(
    private readonly llama: Pick<Llama, 'maxThreads'>,
    policy: ThreadPolicy,
    readonly usable: number,
    meter?: FreeCoreMeter,
  ) {
    this.policy = { ...policy, threads: Math.max(1, Math.min(policy.threads, usable)) };
    this.meter = meter ?? new FreeCoreMeter(usable);
  }

  get current(): ThreadPolicy {
    return { ...this.policy };
  }

  setPolicy(policy: ThreadPolicy): void {
    this.policy = { ...policy, threads: Math.max(1, Math.min(policy.threads, this.usable)) };
    this.collapsedUntil = 0;
  }

  /** Pin a count for a measurement (tuning), whatever the policy. */
  pin(threads: number): void {
    this.llama.maxThreads = Math.max(1, Math.min(threads, this.usable));
  }

  /** Choose and apply the count for the next operation; returns it. */
  beforeCall(now = performance.now()): number {
    let n = this.policy.threads;
    if (this.policy.adaptive && n > 1) {
      if (now < this.collapsedUntil) n = 1;
      else n = Math.max(1, Math.min(n, this.meter.sample()));
    }
    this.llama.maxThreads = n;
    this.callsAt.set(n, (this.callsAt.get(n) ?? 0) + 1);
    return n;
  }

  /** After an operation: `promptTokens` evaluated and `decodeTokens` generated in `ms` at `threads`. */
  afterCall(threads: number, promptTokens: number, decodeTokens: number, ms: number, now = performance.now()): void {
    if (!this.policy.adaptive || threads <= 1) return;
    const m = this.policy.measurements?.find((x) => x.threads === threads);
    if (!m || promptTokens + decodeTokens === 0) return;
    const expected = (promptTokens * 1000) / m.promptTokensPerSecond + (decodeTokens * 1000) / m.decodeTokensPerSecond;
    // Tiny calls are all scheduling noise; only judge calls expected to take a few milliseconds.
    if (expected >= 2 && ms > COLLAPSE_FACTOR * expected) {
      this.collapsedUntil = now + COLLAPSE_COOLDOWN_MS;
      this.collapses++;
    }
  }
}
