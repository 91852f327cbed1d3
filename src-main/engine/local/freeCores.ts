/**
 * How many CPU cores other processes leave free, measured rather than assumed: the busy time of
 * every logical CPU (os.cpus(), on every platform) over an interval, minus this process's own CPU
 * time over that interval (process.cpuUsage(): all its threads), divided by the interval. What is
 * left of the usable cores is free. A CPU-bound process elsewhere shows as one core taken.
 *
 * `FreeCoreMeter.sample()` needs no sleep: it measures since the previous sample, and keeps its last
 * figure when the interval is too short to say anything (under `minIntervalMs`).
 */
import { availableParallelism, cpus } from 'node:os';

interface Snapshot {
  at: number;
  /** Sum over CPUs of non-idle ms. */
  busyMs: number;
  /** This process's user + system CPU ms. */
  ownMs: number;
}

function snapshot(): Snapshot {
  let busy = 0;
  for (const c of cpus()) {
    const t = c.times;
    busy += t.user + t.nice + t.sys + t.irq;
  }
  const own = process.cpuUsage();
  return { at: performance.now(), busyMs: busy, ownMs: (own.user + own.system) / 1000 };
}

/** Cores used by other processes between two snapshots (≥ 0). */
export function othersBusyCores(a: { at: number; busyMs: number; ownMs: number }, b: { at: number; busyMs: number; ownMs: number }): number {
  const wall = b.at - a.at;
  if (wall <= 0) return 0;
  return Math.max(0, (b.busyMs - a.busyMs - (b.ownMs - a.ownMs)) / wall);
}

/** Free cores from the usable count and what others use: rounded to the nearest whole core, at least 0. */
export function freeCoresFrom(usable: number, othersBusy: number): number {
  return Math.max(0, Math.min(usable, Math.round(usable - othersBusy)));
}

export class FreeCoreMeter {
  private last: Snapshot;
  private free: number;

  constructor(
    readonly usable = availableParallelism(),
    private readonly minIntervalMs = 200,
  ) {
    this.last = snapshot();
    this.free = usable;
  }

  /** Free cores since the previous sample (or the previous figure if that was under minIntervalMs ago). */
  sample(): number {
    const now = snapshot();
    if (now.at - this.last.at < this.minIntervalMs) return this.free;
    this.free = freeCoresFrom(this.usable, othersBusyCores(this.last, now));
    this.last = now;
    return this.free;
  }

  /** Measure over `ms` from now (tuning, the CLI). */
  async measure(ms = 300): Promise<number> {
    this.last = snapshot();
    await new Promise((r) => setTimeout(r, ms));
    return this.sample();
  }
}
