/**
 * A FIFO bound on the engine calls in flight: the one work queue of an engine. Waiters are served
 * in arrival order (calls from all queries and stages share it, none starves), the bound may change
 * while calls wait (a remote pool's capacity is the sum of its healthy endpoints' limits), and a
 * waiter whose signal aborts leaves the queue at once without ever taking a slot.
 */
import { setMaxListeners } from 'node:events';

export interface SlotStats {
  /** Calls holding a slot now. */
  inFlight: number;
  /** The most calls held at once since the engine started. */
  maxInFlight: number;
  /** Calls waiting for a slot now. */
  waiting: number;
  /** The bound in force now. */
  capacity: number;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class Slots {
  private held = 0;
  private most = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private readonly capacity: () => number) {}

  stats(): SlotStats {
    return { inFlight: this.held, maxInFlight: this.most, waiting: this.waiters.length, capacity: this.bound() };
  }

  /** Runs `work` once a slot is free; the slot is released however `work` ends. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private bound(): number {
    const n = Math.floor(this.capacity());
    return Number.isFinite(n) && n >= 1 ? n : 1;
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.waiters.length === 0 && this.held < this.bound()) {
      this.take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(signal!.reason ?? new Error('aborted'));
        },
      };
      if (signal) {
        // A run's signal has one listener per waiting call: hundreds at once are expected, not a leak.
        setMaxListeners(0, signal);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
    });
  }

  private take(): void {
    this.held++;
    if (this.held > this.most) this.most = this.held;
  }

  private release(): void {
    this.held--;
    while (this.waiters.length > 0 && this.held < this.bound()) {
      const next = this.waiters.shift()!;
      next.signal?.removeEventListener('abort', next.onAbort);
      this.take();
      next.resolve();
    }
  }
}
