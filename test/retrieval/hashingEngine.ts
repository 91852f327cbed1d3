/**
 * A deterministic stand-in embedding engine for tests that exercise batching, resuming and runs
 * without a model: each text becomes a bag of its lower-cased words hashed into `dimensions`
 * buckets (so texts sharing words are similar). It implements the full `Engine` interface.
 */
import { hash32 } from '../../src-main/core/random/rng';
import { estimateTokenize } from '../../src-main/engine/tokenBudget';
import { EngineError, type EmbedRequest, type EmbedResult, type Engine, type EngineIdentity, type TokenizeRequest, type TokenizeResult } from '../../src-main/engine/types';

export class HashingEngine implements Engine {
  calls = 0;
  embedded: string[] = [];
  closed = false;
  /** Abort this controller after this many embed calls (tests of cancellation). */
  abortAfter?: { calls: number; controller: AbortController };
  /** Called after every embed call with the number of calls so far. */
  afterCall?: (calls: number) => void;

  constructor(
    readonly dimensions = 32,
    readonly modelKey = `hashing-${dimensions}`,
  ) {}

  async identity(): Promise<EngineIdentity> {
    return { kind: 'remote', modelKey: this.modelKey, modelName: `hashing ${this.dimensions}`, outputAffectingSettings: {}, versions: {} };
  }

  async embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedResult> {
    if (signal?.aborted) throw new EngineError('aborted', 'embed cancelled');
    this.calls++;
    this.embedded.push(...request.texts);
    const vectors = request.texts.map((t) => {
      const v = new Array<number>(this.dimensions).fill(0);
      for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[hash32(w) % this.dimensions]! += 1;
      v[0]! += 0.01; // never the zero vector
      return v;
    });
    if (this.abortAfter && this.calls >= this.abortAfter.calls) this.abortAfter.controller.abort();
    this.afterCall?.(this.calls);
    return { vectors, dimensions: this.dimensions };
  }

  async generate(): Promise<never> {
    throw new EngineError('unsupported', 'hashing engine only embeds');
  }

  async score(): Promise<never> {
    throw new EngineError('unsupported', 'hashing engine only embeds');
  }

  async tokenize(request: TokenizeRequest): Promise<TokenizeResult> {
    return estimateTokenize(request);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
