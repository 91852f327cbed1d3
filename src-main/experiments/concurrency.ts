/**
 * How a kind feeds its engines' work queues. A kind hands every unit that is ready — from all
 * queries and stages — to `forEachUnit`, which keeps enough units in progress that the engine's
 * queue (engine/queue) is never idle; the queue, not the kind, bounds the calls in flight. There
 * is no barrier between queries: units are drawn lazily from an iterator, so a long plan is never
 * held in memory at once.
 *
 * Guarantees the kinds rely on:
 * - every unit in progress finishes (or fails) before `forEachUnit` returns, so the items written
 *   by work still in flight are flushed by the caller and a resumed run never overlaps them;
 * - the first real error (or the abort) stops new units from starting and is rethrown;
 * - a unit whose call is deferred (CallDeferredError: a defer or shard policy) is counted and
 *   skipped — its item is not written, other units go on — so one pass collects every call of the
 *   stage that is ready.
 */
import { CallDeferredError } from '../engine/queue/callPolicy';
import type { CachedEngine } from '../engine/callCache';

export function isDeferred(err: unknown): err is CallDeferredError {
  return err instanceof CallDeferredError;
}

/** Units kept in progress for an engine: twice its queue's bound (cache hits take no slot), 8..256. */
export function lanesFor(...engines: readonly CachedEngine[]): number {
  const capacity = Math.max(1, ...engines.map((e) => e.queueStats().capacity));
  return Math.min(256, Math.max(8, 2 * capacity));
}

/** Runs `work` over `units` with at most `lanes` in progress; returns how many units were deferred. */
export async function forEachUnit<T>(units: Iterable<T>, lanes: number, signal: AbortSignal, work: (unit: T) => Promise<void>): Promise<{ deferred: number }> {
  const it = units[Symbol.iterator]();
  let failed: unknown;
  let deferred = 0;
  const lane = async () => {
    for (;;) {
      if (failed !== undefined) return;
      if (signal.aborted) {
        failed ??= signal.reason ?? new Error('cancelled');
        return;
      }
      let next: IteratorResult<T>;
      try {
        next = it.next();
      } catch (err) {
        failed ??= err;
        return;
      }
      if (next.done) return;
      try {
        await work(next.value);
      } catch (err) {
        if (isDeferred(err)) deferred++;
        else failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  if (failed !== undefined) throw failed;
  return { deferred };
}

/**
 * Awaits every promise (so no work is left running behind the caller), then returns the values in
 * order or throws: the first real error, else the first deferral.
 */
export async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  let deferral: unknown;
  for (const s of settled) {
    if (s.status === 'fulfilled') continue;
    if (isDeferred(s.reason)) deferral ??= s.reason;
    else throw s.reason;
  }
  if (deferral !== undefined) throw deferral;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
