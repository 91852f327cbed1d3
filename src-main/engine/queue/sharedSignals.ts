/**
 * One listener per engine on a caller's signal, however many of its calls are in flight (issue 35
 * item 8). A run hands one signal to hundreds of concurrent calls; each call layer below (the work
 * queue, a remote engine's linked signal, a worker's cancel message) listens for its abort. Added
 * straight to the run's signal, those listeners passed Node's limit of 10 and printed
 * `MaxListenersExceededWarning` (RichRAG's prompt budgets tokenize outside the queue, many at once).
 *
 * Here the calls of one engine under one caller signal share a child signal that aborts with it
 * (the same reason); the child carries the per-call listeners (each removed when its call ends) and
 * is detached from the caller's signal when the last of them ends.
 */
import { setMaxListeners } from 'node:events';
import { LinkedSignal } from '../remote/linkedSignal';

export interface SharedSignalLease {
  signal: AbortSignal;
  /** The call has ended (idempotent). */
  done(): void;
}

export class SharedSignals {
  private readonly links = new Map<AbortSignal, { linked: LinkedSignal; users: number }>();

  /** The child signal of `source` for one call. */
  acquire(source: AbortSignal): SharedSignalLease {
    let link = this.links.get(source);
    if (!link) {
      const linked = new LinkedSignal(source);
      // One listener per call in flight under `source` on this engine, each removed when its call ends.
      setMaxListeners(0, linked.signal);
      link = { linked, users: 0 };
      this.links.set(source, link);
    }
    const held = link;
    held.users++;
    let ended = false;
    return {
      signal: held.linked.signal,
      done: () => {
        if (ended) return;
        ended = true;
        if (--held.users > 0) return;
        held.linked.dispose();
        if (this.links.get(source) === held) this.links.delete(source);
      },
    };
  }

  /** Runs `work` under the shared child of `signal` (or without a signal when there is none). */
  async run<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (!signal) return work(undefined);
    const lease = this.acquire(signal);
    try {
      return await work(lease.signal);
    } finally {
      lease.done();
    }
  }
}
