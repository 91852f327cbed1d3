import { EngineError, type CallReport } from '../types';
import { backoffDelay } from './retryDelay';

/**
 * The replicas of one remote model and who may send to which, with health tracking:
 *
 * - **Dispatch**: a request goes to the healthy endpoint with the lowest load (in flight ÷ limit;
 *   ties to the fewer in flight, then to the one used least recently), preferring endpoints this
 *   call has not failed on yet. When every healthy endpoint is full, requests wait in arrival order.
 * - **Health**: a transient failure (network error, timeout, 408/429/5xx) puts the endpoint in
 *   back-off for the server's Retry-After or an exponential delay in its consecutive failures; it
 *   gets no requests meanwhile. After the back-off it takes one request at a time (a probe) until
 *   one succeeds, then its full limit again.
 * - **Mismatch**: an endpoint found serving other weights than the model's revision is left out.
 * - **Admission**: with a revision to check, an endpoint takes calls only after its weights check
 *   passed; a failure (a restart looks like one: refused or dropped connections) and the passing of
 *   `recheckAfterMs` make it check again before its next call.
 * - **Giving up**: when no endpoint has answered usefully for `giveUpAfterMs` since the pool began
 *   failing and every one is failing, waiting and new requests fail with one clear error (the run
 *   stops; what finished is in the call cache, so running again resumes).
 * - **Latency**: the median of the pool's recent successful attempts, for hedging slow calls.
 *
 * A pool of one endpoint behaves like the single server before pools: one concurrency bound, and
 * a failed request waits out its back-off before its retry.
 */

export interface PoolTiming {
  backoffBaseMs: number;
  backoffMaxMs: number;
  jitter: boolean;
  /** A back-off longer than this is not waited for: a request that would wait fails instead. */
  maxRetryAfterMs: number;
  /** Every endpoint failing, none succeeding, for this long: requests fail instead of waiting on. */
  giveUpAfterMs: number;
}

export type EndpointState = 'healthy' | 'backing-off' | 'probing' | 'excluded';

/** Per-endpoint counters since the engine started (GET of the pool's `stats()`). */
export interface EndpointStats {
  baseUrl: string;
  limit: number;
  inFlight: number;
  state: EndpointState;
  /** Milliseconds until a backing-off endpoint takes requests again (0 otherwise). */
  retryInMs: number;
  consecutiveFailures: number;
  /** HTTP attempts sent here, those answered with a usable response, and those that failed. */
  attempts: number;
  succeeded: number;
  failed: number;
  /** Failed attempts here whose call went on to another endpoint. */
  retriedElsewhere: number;
  /** Attempts sent here as a hedge for a call that was slow elsewhere. */
  hedged: number;
  /** Mean milliseconds per successful attempt. */
  meanLatencyMs: number | null;
  /** Successful attempts in the last minute. */
  perMinute: number;
  promptTokens: number;
  completionTokens: number;
  lastError: string | null;
  lastErrorAt: string | null;
}

const throughputWindowMs = 60_000;
/** Successful attempts the pool's median latency is taken over. */
const recentLatencies = 32;

export class Endpoint {
  inFlight = 0;
  consecutiveFailures = 0;
  downUntil = 0;
  excluded: string | undefined;
  /** The weights check, once started (shared by the calls that need it). */
  checking: Promise<void> | undefined;
  /** When its weights check last passed; undefined until it does, and again after a failure. */
  checkedAt: number | undefined;
  /**
   * The calls answered here since the start of its last passing weights check (issue 35 item 1):
   * trusted once a check started after them passes, distrusted when one finds other weights.
   */
  readonly unconfirmed: CallReport[] = [];
  lastUsed = 0;
  // statistics
  attempts = 0;
  succeeded = 0;
  failed = 0;
  retriedElsewhere = 0;
  /** Hedged attempts sent here because a call was slow on another endpoint. */
  hedged = 0;
  private latencyTotalMs = 0;
  promptTokens = 0;
  completionTokens = 0;
  private readonly recent: number[] = [];
  lastError: { message: string; at: number } | undefined;

  constructor(
    readonly baseUrl: string,
    readonly limit: number,
  ) {}

  /** A probing endpoint takes one request at a time. */
  capacity(): number {
    return this.consecutiveFailures > 0 ? 1 : this.limit;
  }

  usable(now: number): boolean {
    return this.excluded === undefined && now >= this.downUntil;
  }

  state(now: number): EndpointState {
    if (this.excluded !== undefined) return 'excluded';
    if (now < this.downUntil) return 'backing-off';
    return this.consecutiveFailures > 0 ? 'probing' : 'healthy';
  }

  recordSuccess(latencyMs: number, usage: { prompt?: number; completion?: number }, now: number): void {
    this.succeeded++;
    this.consecutiveFailures = 0;
    this.latencyTotalMs += latencyMs;
    this.promptTokens += usage.prompt ?? 0;
    this.completionTokens += usage.completion ?? 0;
    this.recent.push(now);
    this.prune(now);
  }

  stats(now: number): EndpointStats {
    this.prune(now);
    return {
      baseUrl: this.baseUrl,
      limit: this.limit,
      inFlight: this.inFlight,
      state: this.state(now),
      retryInMs: Math.max(0, this.downUntil - now),
      consecutiveFailures: this.consecutiveFailures,
      attempts: this.attempts,
      succeeded: this.succeeded,
      failed: this.failed,
      retriedElsewhere: this.retriedElsewhere,
      hedged: this.hedged,
      meanLatencyMs: this.succeeded > 0 ? this.latencyTotalMs / this.succeeded : null,
      perMinute: this.recent.length,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      lastError: this.excluded ?? this.lastError?.message ?? null,
      lastErrorAt: this.lastError ? new Date(this.lastError.at).toISOString() : null,
    };
  }

  private prune(now: number): void {
    while (this.recent.length > 0 && this.recent[0]! <= now - throughputWindowMs) this.recent.shift();
  }
}

/** One request's hold on an endpoint; `release()` frees the slot (idempotent). */
export interface EndpointLease {
  endpoint: Endpoint;
  release(): void;
}

interface Waiter {
  avoid: ReadonlySet<Endpoint>;
  grant(endpoint: Endpoint): void;
  fail(error: EngineError): void;
}

export class EndpointPool {
  readonly endpoints: readonly Endpoint[];
  private readonly waiters: Waiter[] = [];
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;
  private uses = 0;
  /** Since when every attempt has failed (undefined while the pool answers). */
  private failingSince: number | undefined;
  /** The give-up error and until when new requests get it. */
  private givenUp: { error: EngineError; until: number } | undefined;
  /** Latencies of the pool's most recent successful attempts (for hedging). */
  private readonly latencies: number[] = [];

  constructor(
    endpoints: ReadonlyArray<{ baseUrl: string; maxConcurrency: number }>,
    private readonly timing: PoolTiming,
    private readonly now: () => number = Date.now,
  ) {
    this.endpoints = endpoints.map((e) => new Endpoint(e.baseUrl, e.maxConcurrency));
  }

  /** The pool's clock (ms). */
  clock(): number {
    return this.now();
  }

  /** Requests the pool can have in flight at once: the sum of the endpoint limits (excluded ones left out). */
  capacity(): number {
    return this.endpoints.filter((e) => e.excluded === undefined).reduce((n, e) => n + e.limit, 0);
  }

  stats(): EndpointStats[] {
    const now = this.now();
    return this.endpoints.map((e) => e.stats(now));
  }

  /**
   * A slot on the best endpoint for a request, waiting for one if none is free. `avoid`: the
   * endpoints this call already failed on, used only when no other endpoint can take it.
   */
  acquire(signal: AbortSignal | undefined, avoid: ReadonlySet<Endpoint> = new Set(), counted = true): Promise<EndpointLease> {
    if (signal?.aborted) return Promise.reject(new EngineError('aborted', 'cancelled'));
    const now = this.now();
    const unusable = this.unavailable(now);
    if (unusable) return Promise.reject(unusable);
    const endpoint = this.pick(now, avoid);
    if (endpoint && this.waiters.length === 0) return Promise.resolve(this.lease(endpoint, counted));
    return new Promise<EndpointLease>((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new EngineError('aborted', 'cancelled'));
      };
      const waiter: Waiter = {
        avoid,
        grant: (e) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.lease(e, counted));
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.dispatch();
    });
  }

  /**
   * A slot on an endpoint not in `avoid` that has room now, when no request is waiting (a hedge
   * must not take a slot a queued call needs); undefined otherwise. Never waits.
   */
  tryAcquireIdle(avoid: ReadonlySet<Endpoint>): EndpointLease | undefined {
    if (this.waiters.length > 0) return undefined;
    const now = this.now();
    const endpoint = this.pick(now, avoid);
    if (!endpoint || avoid.has(endpoint) || endpoint.consecutiveFailures > 0) return undefined;
    return this.lease(endpoint, true);
  }

  /** The median latency (ms) of the pool's last successful attempts; undefined with fewer than `minSamples`. */
  medianLatencyMs(minSamples: number): number | undefined {
    if (this.latencies.length < Math.max(1, minSamples)) return undefined;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  }

  /** Whether another endpoint than those in `avoid` could take a request now or soon (not backing off). */
  hasAlternative(avoid: ReadonlySet<Endpoint>): boolean {
    const now = this.now();
    return this.endpoints.some((e) => !avoid.has(e) && e.usable(now));
  }

  /** A transient failure: the endpoint backs off (the server's Retry-After if it gave one). */
  markFailure(endpoint: Endpoint, message: string, retryAfterMs?: number): void {
    const now = this.now();
    endpoint.failed++;
    endpoint.consecutiveFailures++;
    endpoint.lastError = { message, at: now };
    // A failure may be a restart, perhaps with other weights: check them again before its next call.
    endpoint.checkedAt = undefined;
    this.failingSince ??= now;
    const delay =
      retryAfterMs ??
      backoffDelay(endpoint.consecutiveFailures - 1, this.timing.backoffBaseMs, this.timing.backoffMaxMs, this.timing.jitter);
    endpoint.downUntil = Math.max(endpoint.downUntil, now + delay);
    this.dispatch();
  }

  /** A failure that says nothing about the endpoint's health (a bad request): counted only. */
  markError(endpoint: Endpoint, message: string): void {
    endpoint.failed++;
    endpoint.lastError = { message, at: this.now() };
  }

  markSuccess(endpoint: Endpoint, latencyMs: number, usage: { prompt?: number; completion?: number }): void {
    endpoint.recordSuccess(latencyMs, usage, this.now());
    this.failingSince = undefined;
    this.latencies.push(latencyMs);
    if (this.latencies.length > recentLatencies) this.latencies.shift();
    this.dispatch();
  }

  /** Leave an endpoint out for good (it serves other weights). */
  exclude(endpoint: Endpoint, reason: string): void {
    endpoint.excluded = reason;
    endpoint.lastError = { message: reason, at: this.now() };
    this.dispatch();
  }

  /** Aborted by close(): ends what the pool started on its own (weights checks shared by calls). */
  private readonly lifetime = new AbortController();
  get closedSignal(): AbortSignal {
    return this.lifetime.signal;
  }

  /** Fails every waiting request (the engine is closing). */
  close(error: EngineError): void {
    this.lifetime.abort(error);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    for (const waiter of this.waiters.splice(0)) waiter.fail(error);
  }

  /** `counted`: an attempt for the statistics (metadata lookups are not). */
  private lease(endpoint: Endpoint, counted: boolean): EndpointLease {
    endpoint.inFlight++;
    if (counted) endpoint.attempts++;
    endpoint.lastUsed = ++this.uses;
    let released = false;
    return {
      endpoint,
      release: () => {
        if (released) return;
        released = true;
        endpoint.inFlight--;
        this.dispatch();
      },
    };
  }

  /** The endpoint a request should go to now, if any can take it. */
  private pick(now: number, avoid: ReadonlySet<Endpoint>): Endpoint | undefined {
    let best: Endpoint | undefined;
    let bestFresh = false;
    for (const e of this.endpoints) {
      if (!e.usable(now) || e.inFlight >= e.capacity()) continue;
      const fresh = !avoid.has(e);
      if (best === undefined || (fresh && !bestFresh) || (fresh === bestFresh && lighter(e, best))) {
        best = e;
        bestFresh = fresh;
      }
    }
    return best;
  }

  /** Why no request can be placed at all (every endpoint excluded, or all backing off too long). */
  private unavailable(now: number): EngineError | undefined {
    const candidates = this.endpoints.filter((e) => e.excluded === undefined);
    if (candidates.length === 0) {
      const reasons = this.endpoints.map((e) => `${e.baseUrl}: ${e.excluded}`).join('; ');
      return new EngineError('remote-error', `no endpoint serves the model's recorded revision (${reasons})`);
    }
    if (this.givenUp) {
      if (now < this.givenUp.until) return this.givenUp.error;
      // Time for another try (a later run): a fresh window, the endpoints still in back-off.
      this.givenUp = undefined;
      this.failingSince = undefined;
    }
    if (this.failingSince !== undefined && now - this.failingSince >= this.timing.giveUpAfterMs && candidates.every((e) => e.consecutiveFailures > 0)) {
      const errors = candidates.map((e) => `${e.baseUrl}: ${e.lastError?.message ?? 'failed'}`).join('; ');
      const error = new EngineError(
        'remote-error',
        `every endpoint has failed for ${Math.round((now - this.failingSince) / 1000)} s without one usable answer (giveUpAfterMs ${this.timing.giveUpAfterMs} ms), so the run stops here; the calls that finished are kept in the call cache and running again resumes after them. Last errors: ${errors}`,
      );
      // Calls still queued behind this one fail the same way for a while instead of probing on.
      this.givenUp = { error, until: now + Math.min(this.timing.giveUpAfterMs, 60_000) };
      return error;
    }
    const soonest = Math.min(...candidates.map((e) => e.downUntil));
    if (soonest - now > this.timing.maxRetryAfterMs) {
      const last = candidates.map((e) => e.lastError?.message).filter(Boolean)[0] ?? 'failures';
      return new EngineError(
        'remote-error',
        `every endpoint is backing off for longer than maxRetryAfterMs (${this.timing.maxRetryAfterMs} ms); last error: ${last}`,
      );
    }
    return undefined;
  }

  /** Hands free slots to waiting requests, first come first served; wakes up when a back-off ends. */
  private dispatch(): void {
    const now = this.now();
    const unusable = this.waiters.length > 0 ? this.unavailable(now) : undefined;
    if (unusable) {
      for (const waiter of this.waiters.splice(0)) waiter.fail(unusable);
      return;
    }
    while (this.waiters.length > 0) {
      const head = this.waiters[0]!;
      const endpoint = this.pick(now, head.avoid);
      if (!endpoint) break;
      this.waiters.shift();
      head.grant(endpoint);
    }
    if (this.waiters.length === 0) return;
    // Nothing free: a release will dispatch again; a back-off ending will not, so set a timer.
    const ends = this.endpoints.filter((e) => e.excluded === undefined && e.downUntil > now).map((e) => e.downUntil);
    // …and the moment the pool gives up, so that waiting requests fail then rather than at the next back-off's end.
    if (this.failingSince !== undefined && this.failingSince + this.timing.giveUpAfterMs > now) ends.push(this.failingSince + this.timing.giveUpAfterMs);
    if (ends.length === 0) return;
    const at = Math.min(...ends);
    if (this.wakeTimer && this.wakeAt <= at) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakeAt = Infinity;
      this.dispatch();
    }, Math.max(0, at - now));
  }
}

function lighter(a: Endpoint, b: Endpoint): boolean {
  const la = a.inFlight / a.limit;
  const lb = b.inFlight / b.limit;
  if (la !== lb) return la < lb;
  if (a.inFlight !== b.inFlight) return a.inFlight < b.inFlight;
  return a.lastUsed < b.lastUsed;
}
