/**
 * The thread-count choice on hand-written measurements, the free-core arithmetic, the governor's
 * decisions, and the workspace setting threads = 0 (#16.9). The worker's trials on a real model
 * are in tune.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { freeCoresFrom, othersBusyCores, type FreeCoreMeter } from '../../../src-main/engine/local/freeCores';
import {
  candidateThreadCounts,
  chooseThreads,
  countsStillInTheRunning,
  describeTuning,
  median,
  referenceCallMs,
  roundOrder,
  summarizeTrials,
  type ThreadTuning,
  type TuneTrial,
} from '../../../src-main/engine/local/threadTuning';
import { COLLAPSE_COOLDOWN_MS, ThreadGovernor } from '../../../src-main/engine/local/worker/threads';
import { manifestRuntime } from '../../../src-main/experiments/manifestRuntime';
import { SettingsService } from '../../../src-main/services/settingsService';
import { openWorkspace } from '../../../src-main/store/workspace';

const SHAPE = { promptTokens: 64, decodeTokens: 8 };
const trial = (threads: number, round: number, promptMs: number, decodeMs: number): TuneTrial => ({ threads, round, promptMs, decodeMs });

describe('thread tuning: the choice', () => {
  it('predicts the reference call from a trial: per-token prompt and decode costs scaled to 256 + 16 tokens', () => {
    // 64 prompt tokens in 8 ms = 0.125 ms/token -> 32 ms for 256; 8 decoded in 4 ms = 0.5 ms/token -> 8 ms for 16.
    expect(referenceCallMs(trial(1, 0, 8, 4), SHAPE)).toBeCloseTo(40, 12);
  });

  it('takes medians per count over alternating rounds, so one slow round (another process) does not decide', () => {
    const trials = [
      trial(1, 0, 8, 4), trial(2, 0, 4, 6),
      trial(2, 1, 400, 600), trial(1, 1, 8, 4), // a burst of load hit the 2-thread trial of round 1
      trial(1, 2, 10, 5), trial(2, 2, 5, 6),
    ];
    const m = summarizeTrials(trials, SHAPE);
    expect(m.map((x) => x.threads)).toEqual([1, 2]);
    // 1 thread: calls 40, 40, 50 -> median 40. 2 threads: 16+12=28, 1600+1200=2800, 20+12=32 -> median 32.
    expect(m[0]!.callMs).toBeCloseTo(40, 9);
    expect(m[1]!.callMs).toBeCloseTo(32, 9);
    expect(m[1]!.callMsRange).toEqual([28, 2800]);
    // Prompt tok/s from the median prompt time: 1 thread 8 ms -> 8000 tok/s; decode median 4 ms -> 2000 tok/s.
    expect(m[0]!.promptTokensPerSecond).toBeCloseTo(8000, 9);
    expect(m[0]!.decodeTokensPerSecond).toBeCloseTo(2000, 9);
    expect(chooseThreads(m)).toBe(2);
  });

  it('chooses the fewest threads within 5% of the best (fewer threads spin less when a core is taken)', () => {
    const mk = (threads: number, callMs: number) => ({ threads, trials: 3, promptTokensPerSecond: 1, decodeTokensPerSecond: 1, callMs, callMsRange: [callMs, callMs] as [number, number] });
    expect(chooseThreads([mk(1, 104), mk(2, 100), mk(4, 120)])).toBe(1); // 104 <= 105
    expect(chooseThreads([mk(1, 106), mk(2, 100), mk(4, 120)])).toBe(2);
    expect(chooseThreads([mk(1, 300), mk(2, 200), mk(3, 100), mk(4, 99)])).toBe(3);
    expect(chooseThreads([])).toBe(1);
    expect(median([5, 1, 3, 2])).toBe(2.5);
  });

  it('drops a count after two rounds when its median is over 3x the best, and not before', () => {
    const one = [trial(1, 0, 8, 4), trial(2, 0, 80, 40)];
    expect(countsStillInTheRunning(one, [1, 2], SHAPE)).toEqual([1, 2]);
    const two = [...one, trial(2, 1, 80, 40), trial(1, 1, 8, 4)];
    expect(countsStillInTheRunning(two, [1, 2], SHAPE)).toEqual([1]);
    const close = [trial(1, 0, 8, 4), trial(2, 0, 16, 8), trial(2, 1, 16, 8), trial(1, 1, 8, 4)];
    expect(countsStillInTheRunning(close, [1, 2], SHAPE)).toEqual([1, 2]);
  });

  it('tries every count up to 8 cores, then powers of two and the usable count; rounds alternate direction', () => {
    expect(candidateThreadCounts(1)).toEqual([1]);
    expect(candidateThreadCounts(2)).toEqual([1, 2]);
    expect(candidateThreadCounts(12)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 12]);
    expect(candidateThreadCounts(64)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64]);
    expect(roundOrder([1, 2, 3], 0)).toEqual([1, 2, 3]);
    expect(roundOrder([1, 2, 3], 1)).toEqual([3, 2, 1]);
  });

  it('describes a tuning in one line', () => {
    const t: ThreadTuning = {
      threads: 1,
      measurements: summarizeTrials([trial(1, 0, 8, 4), trial(2, 0, 800, 400)], SHAPE),
      reference: { promptTokens: 256, decodeTokens: 16 },
      usableCores: 2,
      freeCores: 2,
      machine: 'm',
      tunedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 10,
    };
    expect(describeTuning(t)).toBe('1 thread (1: 40.0 ms, 2: 4000 ms per 256+16-token call)');
  });
});

describe('free cores', () => {
  it('counts what other processes used: all CPUs busy time minus this process, over the interval', () => {
    // 1000 ms, CPUs busy 1500 ms in total, this process 500 ms of it: others held one core.
    expect(othersBusyCores({ at: 0, busyMs: 0, ownMs: 0 }, { at: 1000, busyMs: 1500, ownMs: 500 })).toBe(1);
    expect(freeCoresFrom(2, 1)).toBe(1);
    expect(freeCoresFrom(2, 0.3)).toBe(2); // the UI's 30% of a core does not take a core
    expect(freeCoresFrom(2, 1.6)).toBe(0);
    expect(freeCoresFrom(8, -1)).toBe(8);
    expect(othersBusyCores({ at: 5, busyMs: 0, ownMs: 0 }, { at: 5, busyMs: 9, ownMs: 0 })).toBe(0);
  });
});

describe('ThreadGovernor', () => {
  const meter = (free: number[]): FreeCoreMeter => ({ sample: () => free.shift() ?? 0 }) as unknown as FreeCoreMeter;

  it('keeps a fixed count whatever the load (a user setting always wins)', () => {
    const llama = { maxThreads: 0 };
    const g = new ThreadGovernor(llama, { threads: 2, adaptive: false }, 2, meter([0, 0]));
    expect(g.beforeCall()).toBe(2);
    expect(llama.maxThreads).toBe(2);
    g.afterCall(2, 100, 10, 1e9);
    expect(g.beforeCall()).toBe(2);
  });

  it('adaptive: at most the tuned count, never more than the free cores, at least 1', () => {
    const llama = { maxThreads: 0 };
    const g = new ThreadGovernor(llama, { threads: 4, adaptive: true }, 4, meter([4, 1, 0, 3]));
    expect([g.beforeCall(), g.beforeCall(), g.beforeCall(), g.beforeCall()]).toEqual([4, 1, 1, 3]);
    expect(llama.maxThreads).toBe(3);
    expect(new ThreadGovernor(llama, { threads: 9, adaptive: false }, 2).current.threads).toBe(2);
  });

  it('adaptive: a call 3x slower than tuned drops to 1 thread for the cool-down, then the free cores decide again', () => {
    const llama = { maxThreads: 0 };
    const measurements = [{ threads: 2, trials: 3, promptTokensPerSecond: 1000, decodeTokensPerSecond: 100, callMs: 0, callMsRange: [0, 0] as [number, number] }];
    const g = new ThreadGovernor(llama, { threads: 2, adaptive: true, measurements }, 2, meter([2, 2, 2, 2]));
    expect(g.beforeCall(0)).toBe(2);
    // 100 prompt + 10 decoded tokens should take 100 + 100 = 200 ms at 2 threads; 590 ms is not a collapse, 610 ms is.
    g.afterCall(2, 100, 10, 590, 0);
    expect(g.beforeCall(1)).toBe(2);
    g.afterCall(2, 100, 10, 610, 1);
    expect(g.collapses).toBe(1);
    expect(g.beforeCall(2)).toBe(1);
    expect(g.beforeCall(1 + COLLAPSE_COOLDOWN_MS - 1)).toBe(1);
    expect(g.beforeCall(1 + COLLAPSE_COOLDOWN_MS)).toBe(2);
  });
});

describe('workspace setting threads (#16.9)', () => {
  it('0 means physical cores until a tuning says better, not logical CPUs; a count is clamped to the logical CPUs', () => {
    const ws = openWorkspace(':memory:');
    try {
      const s = new SettingsService(ws.db, { logical: () => 8, physical: () => 4 });
      expect(s.get().threads).toBe(0);
      expect(s.explicitThreads()).toBeUndefined();
      expect(s.effectiveThreads()).toBe(4);
      s.update({ threads: 6 });
      expect([s.explicitThreads(), s.effectiveThreads()]).toEqual([6, 6]);
      s.update({ threads: 16 });
      expect(s.effectiveThreads()).toBe(8);
    } finally {
      ws.close();
    }
  });
});

describe('manifests', () => {
  it('record the thread count, who chose it and the tuning medians', () => {
    const tuning = { threads: 1, tunedAt: 'T', measurements: [{ threads: 1, trials: 3, promptTokensPerSecond: 1234.5678, decodeTokensPerSecond: 99.999, callMs: 9.87654, callMsRange: [1, 2] }] };
    const parts = manifestRuntime({ 'llama.cpp': 'b1' }, { gpu: false, threads: 1, threadsChosenBy: 'tuning', threadTuning: tuning }, { temperature: 0, maxTokens: 8 });
    expect(parts.sampler).toMatchObject({
      threads: 1,
      threadsChosenBy: 'tuning',
      threadTuning: { threads: 1, tunedAt: 'T', measurements: [{ threads: 1, promptTokensPerSecond: 1234.57, decodeTokensPerSecond: 100, callMs: 9.88 }] },
    });
    expect(manifestRuntime({}, { threads: 2 }, { temperature: 0, maxTokens: 8 }).sampler).not.toHaveProperty('threadTuning');
  });
});
