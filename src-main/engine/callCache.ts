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
import type { EmbedRequest, EmbedResult, Engine, EngineIdentity, GenerateRequest, GenerateResult, ScoreRequest, ScoreResult } from './types';

export type CachedOp = 'generate' | 'score' | 'embed';

export interface CallCacheStore {
  get(key: string): { response: unknown } | undefined;
  put(entry: { key: string; modelKey: string; op: CachedOp; request: unknown; response: unknown; durationMs: number }): void;
  clearModel(modelKey: string): number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Calls passed through without caching (unseeded sampling, aborted). */
  bypassed: number;
}

/**
 * JSON with object keys sorted at every level and `undefined` members dropped, so equal values
 * give equal text. Numbers that JSON cannot carry (NaN, ±Infinity) are refused: JSON.stringify
 * would turn them into null and two different requests would share a key.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError(`cannot use ${v} in a cache key`);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
  });
}

export function callCacheKey(identity: EngineIdentity, op: CachedOp, request: unknown): string {
  const material = canonicalJson({ modelKey: identity.modelKey, op, request, settings: identity.outputAffectingSettings });
  return createHash('sha256').update(material).digest('hex');
}

export class CachedEngine implements Engine {
  private readonly counts: CacheStats = { hits: 0, misses: 0, bypassed: 0 };
  private identityPromise: Promise<EngineIdentity> | undefined;

  constructor(
    readonly inner: Engine,
    private readonly store: CallCacheStore,
  ) {}

  identity(): Promise<EngineIdentity> {
    this.identityPromise ??= this.inner.identity().catch((err: unknown) => {
      this.identityPromise = undefined;
      throw err;
    });
    return this.identityPromise;
  }

  stats(): CacheStats {
    return { ...this.counts };
  }

  /** Forget every stored call of this engine's model; returns how many. */
  async clear(): Promise<number> {
    return this.store.clearModel((await this.identity()).modelKey);
  }

  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult> {
    const reproducible = request.sampling.temperature === 0 || request.sampling.seed !== undefined;
    return this.cached('generate', request, reproducible, () => this.inner.generate(request, signal), (r) => r.finishReason !== 'aborted');
  }

  score(request: ScoreRequest, signal?: AbortSignal): Promise<ScoreResult> {
    return this.cached('score', request, true, () => this.inner.score(request, signal));
  }

  embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedResult> {
    return this.cached('embed', request, true, () => this.inner.embed(request, signal));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async cached<R>(op: CachedOp, request: unknown, cacheable: boolean, call: () => Promise<R>, keep: (r: R) => boolean = () => true): Promise<R> {
    if (!cacheable) {
      this.counts.bypassed++;
      return call();
    }
    const identity = await this.identity();
    const key = callCacheKey(identity, op, request);
    const hit = this.store.get(key);
    if (hit) {
      this.counts.hits++;
      return hit.response as R;
    }
    const started = performance.now();
    const response = await call();
    if (!keep(response)) {
      this.counts.bypassed++;
      return response;
    }
    this.counts.misses++;
    this.store.put({ key, modelKey: identity.modelKey, op, request, response, durationMs: performance.now() - started });
    return response;
  }
}
