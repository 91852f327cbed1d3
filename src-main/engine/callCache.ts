/**
 * `CachedEngine`: any Engine behind a persistent call cache. A call's key is the SHA-256 of the
 * canonical JSON of (model key, operation, full request, output-affecting settings); a repeated
 * call returns the stored response and never reaches the wrapped engine. Sound because engine
 * calls are deterministic (greedy, or sampled with an explicit seed).
 *
 * Not cached: a sampled generation without a seed (not reproducible; engines refuse it anyway)
 * and a generation cut short by cancellation (finishReason 'aborted').
 *
 * The store is an interface so the engine layer does not depend on the database; the store's
 * `CallCacheRepo` implements it.
 */
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { CallDeferredError, COMPUTE, computes, type CallPolicy } from './queue/callPolicy';
import type { RunCalls } from './queue/runCalls';
import { SharedSignals } from './queue/sharedSignals';
import { Slots, type SlotStats } from './queue/slots';
import { abortable } from './remote/abortable';
import { EngineError, type CallReport, type EmbedRequest, type EmbedResult, type Engine, type EngineIdentity, type GenerateRequest, type GenerateResult, type ScoreRequest, type ScoreResult, type TokenizeRequest, type TokenizeResult } from './types';
import { canonicalJson } from '../core/canonicalJson';

export type CachedOp = 'generate' | 'score' | 'embed';

export interface CallCacheStore {
  get(key: string): { response: unknown } | undefined;
  /** Optional: the stored response alone, when the store can read less than `get` (asked before every call). */
  lookup?(key: string): { response: unknown } | undefined;
  /**
   * Store a computed call. A key already stored is never overwritten (its first response stays) and
   * the store counts the extra computation instead; returns whether the entry was new.
   */
  put(entry: { key: string; modelKey: string; op: CachedOp; request: unknown; response: unknown; durationMs: number; servedBy?: string | undefined }): boolean;
  clearModel(modelKey: string): number;
  /**
   * Optional, for stores shared with other processes: the stored entry, or else a claim on the call
   * (atomically with the check) so that a concurrent import leaves it to this computation.
   */
  claim?(key: string): { response: unknown } | undefined;
  /** Give up a claim whose call was not stored (it failed or was aborted). */
  release?(key: string): void;
  /** Delete a stored call whose answer is no longer trusted (its endpoint later failed a weights check). */
  forget?(key: string): void;
  /**
   * Optional, for stores shared with other processes (preferred over `claim`): the stored entry; or
   * `'elsewhere'` when a live process is computing the call (wait for its answer); or else a claim
   * on the call for this process, taken over from a process that died (`'mine'`: compute it, then
   * `put` or `release`). Also claims the call against a concurrent import, as `claim` does.
   */
  acquire?(key: string): { response: unknown } | 'mine' | 'elsewhere';
}

/** How often a call another process computes is looked for in the cache: first, then at most (doubling). */
export const CLAIM_POLL_MS = { first: 25, most: 500 } as const;

export interface CacheStats {
  hits: number;
  misses: number;
  /** Calls passed through without caching (unseeded sampling, aborted). */
  bypassed: number;
}

/** A result and whether the cache (not a computation made for this call) answered it. */
export interface Tracked<R> {
  result: R;
  fromCache: boolean;
}

export interface CachedEngineOptions {
  /** Calls in flight at once (local: the model's sequences; remote: the pool's limits). Default 1. */
  capacity?: () => number;
  /**
   * Calls handed to the engine beyond `capacity`, which the engine itself keeps queued (default 0).
   * A local worker gets 1: it starts its next call the moment one ends, instead of idling while the
   * answer travels to this process and the next call travels back — the round trip that two
   * processes on a busy machine each wait to be scheduled for. The engine still computes
   * `capacity` calls at once (the worker's sequences), so outputs and batch layout are unchanged;
   * a kill loses the calls computing and the one queued, none stored.
   */
  lookahead?: number;
}

/** What every view of one engine shares: its queue, its identity, its counters, its calls in flight. */
class EngineState {
  readonly counts: CacheStats = { hits: 0, misses: 0, bypassed: 0 };
  readonly slots: Slots;
  identityPromise: Promise<EngineIdentity> | undefined;
  /** The identity once known (calls then need not wait on the promise). */
  identityKnown: EngineIdentity | undefined;
  /** One cancellable wait for the identity per caller signal (a run's calls share one signal). */
  readonly identityWaits = new WeakMap<AbortSignal, Promise<EngineIdentity>>();
  /** Misses being computed now, by key: a second caller of the same call waits for the first. */
  readonly computing = new Map<string, Promise<unknown>>();
  /** The calls under one caller signal share one listener on it (sharedSignals.ts). */
  readonly signals = new SharedSignals();
  /** Calls whose answer was distrusted after it arrived (a remote endpoint failed a later weights check). */
  distrusted = 0;

  constructor(capacity: () => number) {
    this.slots = new Slots(capacity);
  }
}

/** Keys are hashed from core's canonical JSON (sorted keys; NaN and ±Infinity refused). */
export { canonicalJson };

export function callCacheKey(identity: EngineIdentity, op: CachedOp, request: unknown): string {
  const material = canonicalJson({ modelKey: identity.modelKey, op, request, settings: identity.outputAffectingSettings });
  return createHash('sha256').update(material).digest('hex');
}

/**
 * The engine every kind calls. Each call asks the cache first (a hit takes no slot), then waits
 * for a slot in the engine's one FIFO queue, then the engine computes it and the cache stores it.
 * `withPolicy` makes a view for one run — the same queue, cache and identity, with the run's own
 * policy (compute, defer, shard) and counters — so calls from every job on this engine share the
 * bound while each run sees its own progress.
 */
export class CachedEngine implements Engine {
  private readonly state: EngineState;

  constructor(
    readonly inner: Engine,
    private readonly store: CallCacheStore,
    options: CachedEngineOptions = {},
    shared?: EngineState,
    private readonly policy: CallPolicy = COMPUTE,
    private readonly run?: RunCalls,
  ) {
    const capacity = options.capacity ?? (() => 1);
    const lookahead = Math.max(0, Math.floor(options.lookahead ?? 0));
    this.state = shared ?? new EngineState(lookahead > 0 ? () => capacity() + lookahead : capacity);
  }

  /** A view of this engine for one run: its own policy and counters, the shared queue and cache. */
  withPolicy(policy: CallPolicy, run?: RunCalls): CachedEngine {
    return new CachedEngine(this.inner, this.store, {}, this.state, policy, run);
  }

  identity(): Promise<EngineIdentity> {
    this.state.identityPromise ??= this.inner.identity().then(
      (identity) => {
        // A provisional identity (a server's GET /models failed) is not kept: the next need asks
        // the engine again (which bounds how often it asks the server). Its key parts are right.
        if (identity.provisional === undefined) this.state.identityKnown = identity;
        else this.state.identityPromise = undefined;
        return identity;
      },
      (err: unknown) => {
        this.state.identityPromise = undefined;
        throw err;
      },
    );
    return this.state.identityPromise;
  }

  /** The identity, or an abort error as soon as `signal` aborts (the lookup itself goes on for others). */
  private identityUntil(signal: AbortSignal | undefined): Promise<EngineIdentity> {
    if (!signal) return this.identity();
    let wait = this.state.identityWaits.get(signal);
    if (!wait) {
      wait = abortable(this.identity(), signal, 'the model identity lookup');
      this.state.identityWaits.set(signal, wait);
      wait.then(
        (identity) => identity.provisional !== undefined && this.state.identityWaits.delete(signal),
        () => this.state.identityWaits.delete(signal),
      );
    }
    return wait;
  }

  stats(): CacheStats {
    return { ...this.state.counts };
  }

  /**
   * Calls of this engine whose answer was distrusted (issue 35 item 1): an endpoint that answered them
   * failed a later weights check. Their cache rows are deleted; a run that used them computes again.
   */
  distrustedCount(): number {
    return this.state.distrusted;
  }

  /**
   * A remote engine checks again every endpoint that answered since its last passing weights check
   * (remoteEngine.ts `confirmAnswers`); other engines have nothing to confirm. Returns how many
   * calls were distrusted now.
   */
  async confirmAnswers(signal?: AbortSignal): Promise<number> {
    const inner = this.inner as Engine & { confirmAnswers?: (signal?: AbortSignal) => Promise<number> };
    return inner.confirmAnswers ? inner.confirmAnswers(signal) : 0;
  }

  /** The queue of this engine: calls in flight, the most at once, waiting, the bound. */
  queueStats(): SlotStats {
    return this.state.slots.stats();
  }

  /** Forget every stored call of this engine's model; returns how many. */
  async clear(): Promise<number> {
    return this.store.clearModel((await this.identity()).modelKey);
  }

  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult> {
    return this.generateTracked(request, signal).then((r) => r.result);
  }

  score(request: ScoreRequest, signal?: AbortSignal): Promise<ScoreResult> {
    return this.scoreTracked(request, signal).then((r) => r.result);
  }

  embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedResult> {
    return this.cached('embed', request, true, (s, report) => this.inner.embed(request, s, report), signal).then((r) => r.result);
  }

  /**
   * A generation and where its answer came from: `fromCache` is false only when this call made the
   * engine compute it (an answer stored earlier, or computed by a concurrent identical call, is from
   * the cache). Counting `fromCache` over a run's items therefore counts each computation once.
   */
  generateTracked(request: GenerateRequest, signal?: AbortSignal): Promise<Tracked<GenerateResult>> {
    const reproducible = request.sampling.temperature === 0 || request.sampling.seed !== undefined;
    return this.cached('generate', request, reproducible, (s, report) => this.inner.generate(request, s, report), signal, (r) => r.finishReason !== 'aborted');
  }

  /** A scoring call and where its answer came from (see generateTracked). */
  scoreTracked(request: ScoreRequest, signal?: AbortSignal): Promise<Tracked<ScoreResult>> {
    return this.cached('score', request, true, (s, report) => this.inner.score(request, s, report), signal);
  }

  /** Passed straight through: tokenizing is cheap and deterministic, neither cached nor queued. */
  tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    return this.state.signals.run(signal, (s) => this.inner.tokenize(request, s));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private cached<R>(
    op: CachedOp,
    request: unknown,
    cacheable: boolean,
    call: (signal?: AbortSignal, report?: CallReport) => Promise<R>,
    signal?: AbortSignal,
    keep: (r: R) => boolean = () => true,
  ): Promise<Tracked<R>> {
    // Everything below listens on the shared child of the caller's signal, not on the signal itself.
    return this.state.signals.run(signal, (s) => this.cachedUnder(op, request, cacheable, call, s, keep));
  }

  private async cachedUnder<R>(
    op: CachedOp,
    request: unknown,
    cacheable: boolean,
    call: (signal?: AbortSignal, report?: CallReport) => Promise<R>,
    signal?: AbortSignal,
    keep: (r: R) => boolean = () => true,
  ): Promise<Tracked<R>> {
    const counts = this.state.counts;
    if (!cacheable && this.policy.mode !== 'estimate') {
      counts.bypassed++;
      return { result: await this.inQueue(() => call(signal), signal), fromCache: false };
    }
    // Shared by every call (a remote engine asks GET /models for it): a cancelled call stops waiting.
    const identity = this.state.identityKnown ?? (await this.identityUntil(signal));
    const key = callCacheKey(identity, op, request);
    const hit = this.store.lookup ? this.store.lookup(key) : this.store.get(key);
    if (hit) return this.hit(hit.response as R, key);
    if (!computes(this.policy, key)) {
      // A cost estimate's stand-in answer: used, never stored, never computed.
      if (this.policy.mode === 'estimate' && this.policy.standIns.has(key)) return { result: this.policy.standIns.get(key) as R, fromCache: false };
      const deferred = { key, modelKey: identity.modelKey, op, request, engine: this.inner };
      this.run?.noteDeferred(deferred);
      throw new CallDeferredError(deferred);
    }
    const running = this.state.computing.get(key) as Promise<R> | undefined;
    if (running) return { result: await running, fromCache: true };
    let computedHere = false;
    /** The reports whose answer this call wrote to the store (so a later distrust deletes the row). */
    const written = new WeakSet<CallReport>();
    const computing = (async (): Promise<R> => {
      // The slot is held for the engine's work only: the cache write below happens after the next
      // queued call has gone to the engine, so the engine never waits for the workspace's writes.
      // The key stays in `computing` until the row is written, so an identical call meanwhile
      // waits for this one instead of computing it again.
      const attempt = async (claimed: boolean) => {
        // Another process (or a view that finished a moment ago) may have stored it while this waited;
        // if not, claim it, so that a concurrent cache import, or another process, leaves it to this
        // computation (and this one leaves it to a live process that claimed it first).
        if (!claimed) {
          const late = this.store.acquire ? this.store.acquire(key) : this.store.claim ? this.store.claim(key) : this.store.lookup ? this.store.lookup(key) : this.store.get(key);
          if (late === 'elsewhere') return { elsewhere: true as const };
          if (late !== undefined && late !== 'mine') return { late: true as const, response: late.response as R };
        }
        try {
          for (;;) {
            const started = performance.now();
            // Which endpoint computed it (remote pools fill this in), for the cache row and the manifest.
            const report: CallReport = { servedBy: [], attempts: 0 };
            // An endpoint that answered failed a later weights check: the row (if written) goes, and the run is told.
            report.onDistrust = () => {
              this.state.distrusted++;
              if (written.has(report)) this.store.forget?.(key);
            };
            const response = await call(signal, report);
            // Distrusted while the call ran: computed again (that endpoint is now out of the pool).
            if (report.distrusted) continue;
            // The engine's own time where it measures one (a queued call's wait is not the call's).
            return { late: false as const, response, durationMs: report.engineMs ?? performance.now() - started, report };
          }
        } catch (err) {
          this.store.release?.(key);
          throw err;
        }
      };
      let done = await this.inQueue(() => attempt(false), signal);
      // Claimed by another live process: its answer is awaited (outside the queue, so this engine's
      // slots go on computing), and the call is claimed here only once that claim is gone unanswered
      // or its process died.
      for (let pause: number = CLAIM_POLL_MS.first; 'elsewhere' in done; pause = Math.min(pause * 2, CLAIM_POLL_MS.most)) {
        await sleepUnlessAborted(pause, signal);
        const now = this.store.acquire!(key);
        if (now === 'elsewhere') continue;
        if (now !== 'mine') return now.response as R;
        try {
          done = await this.inQueue(() => attempt(true), signal);
        } catch (err) {
          this.store.release?.(key);
          throw err;
        }
      }
      if (done.late) return done.response;
      const { response, durationMs, report } = done;
      computedHere = true;
      if (!keep(response)) {
        this.store.release?.(key);
        counts.bypassed++;
        return response;
      }
      counts.misses++;
      if (this.run) this.run.computed++;
      const servedBy = report.servedBy.join(' ');
      // Distrusted between its answer and now: not kept (the run that uses it computes again).
      if (report.distrusted) {
        this.store.release?.(key);
        return response;
      }
      const stored = this.store.put({ key, modelKey: identity.modelKey, op, request, response, durationMs, ...(servedBy ? { servedBy } : {}) });
      if (stored) written.add(report);
      // Stored meanwhile by another writer (not a claiming import): the first answer stays, and this
      // run uses it too, so its results are what the cache holds.
      if (!stored) return (this.store.get(key)?.response as R | undefined) ?? response;
      return response;
    })().finally(() => this.state.computing.delete(key));
    this.state.computing.set(key, computing);
    const result = await computing;
    if (!computedHere) return this.hit(result, key);
    return { result, fromCache: false };
  }

  private hit<R>(result: R, key: string): Tracked<R> {
    this.state.counts.hits++;
    if (this.run) {
      this.run.hits++;
      this.run.hitKeys.add(key);
    }
    return { result, fromCache: true };
  }

  private inQueue<R>(work: () => Promise<R>, signal?: AbortSignal): Promise<R> {
    return this.state.slots.run(async () => {
      this.run?.started();
      try {
        return await work();
      } finally {
        this.run?.ended();
      }
    }, signal);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason ?? new EngineError('aborted', 'cancelled'));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason ?? new EngineError('aborted', 'cancelled'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal) {
      // One listener per call waiting on another process: many at once are expected, not a leak.
      setMaxListeners(0, signal);
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}
