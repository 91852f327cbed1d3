/**
 * What one run (or job) did with its calls through an engine's queue: answered by the cache,
 * computed by the engine, deferred (under a defer or shard policy), and the calls in flight at
 * once for this run. A job's progress and ETA and a plan's cost estimate read these; the deferred
 * calls are what `fairground plan export` writes.
 */
import type { DeferredCall } from './callPolicy';

export class RunCalls {
  hits = 0;
  /** The distinct calls the cache answered (a resumed unit asks again: `hits` counts it twice, this once). */
  readonly hitKeys = new Set<string>();
  computed = 0;
  inFlight = 0;
  maxInFlight = 0;
  private readonly deferredByKey = new Map<string, DeferredCall>();

  get deferredCount(): number {
    return this.deferredByKey.size;
  }

  deferred(): DeferredCall[] {
    return [...this.deferredByKey.values()];
  }

  noteDeferred(call: DeferredCall): void {
    if (!this.deferredByKey.has(call.key)) this.deferredByKey.set(call.key, call);
  }

  started(): void {
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
  }

  ended(): void {
    this.inFlight--;
  }
}
