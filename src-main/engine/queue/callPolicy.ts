/**
 * What a run does with a call the cache cannot answer:
 *
 *   compute   ask the engine (the default)
 *   defer     record the call and do not compute it: the call is left for a batch engine
 *             (`fairground plan export`), or counted for a cost estimate (`run --dry-run`), or
 *             refused (`run --cache-only`)
 *   shard     compute only the calls of shard `index` of `count` (a deterministic function of the
 *             call's cache key), defer the rest: `run --shard k/N` spreads one plan over N
 *             workspaces whose caches are merged afterwards
 *   estimate  defer like `defer`, except calls whose stand-in answer is given (by key): those are
 *             answered with it, never computed and never stored, so a cost estimate can walk a
 *             plan's later stages (services/batchPlans/estimate.ts: stage after stage)
 *
 * A deferred call rejects with `CallDeferredError`; the kinds treat it as "this unit is not ready"
 * (its item is not written, later stages that need it wait), finish every other unit, and end the
 * run with `CallsDeferredError` naming how many calls wait.
 */
import type { Engine } from '../types';

export type CallPolicy =
  | { mode: 'compute' }
  | { mode: 'defer' }
  | { mode: 'shard'; index: number; count: number }
  | { mode: 'estimate'; standIns: ReadonlyMap<string, unknown> };

export const COMPUTE: CallPolicy = { mode: 'compute' };

/** A call left for later under a defer or shard policy. */
export interface DeferredCall {
  key: string;
  modelKey: string;
  op: 'generate' | 'score' | 'embed';
  request: unknown;
  /** The engine that would compute it (a batch export asks it how its requests look). */
  engine: Engine;
}

export class CallDeferredError extends Error {
  constructor(readonly call: DeferredCall) {
    super(`call ${call.key.slice(0, 12)}… is deferred (not in the cache)`);
    this.name = 'CallDeferredError';
  }
}

/** Raised at the end of a run that left calls for later; the run is resumable. */
export class CallsDeferredError extends Error {
  constructor(
    readonly deferred: number,
    message = `${deferred} call(s) are not in the cache yet; the run stops here and continues once they are`,
  ) {
    super(message);
    this.name = 'CallsDeferredError';
  }
}

/** The shard (0-based) of a call: its cache key's first 52 bits modulo `count`. */
export function shardOfKey(key: string, count: number): number {
  return Number(BigInt(`0x${key.slice(0, 13)}`) % BigInt(count));
}

/** Whether this policy computes a call with this key. */
export function computes(policy: CallPolicy, key: string): boolean {
  if (policy.mode === 'compute') return true;
  if (policy.mode === 'defer' || policy.mode === 'estimate') return false;
  return shardOfKey(key, policy.count) === policy.index;
}

/** `k/N` (1-based, as the CLI takes it) → a shard policy. */
export function parseShard(text: string): CallPolicy {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new RangeError(`--shard takes k/N (e.g. 2/3), not '${text}'`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || k < 1 || k > n) throw new RangeError(`--shard ${text}: k must be between 1 and N`);
  return { mode: 'shard', index: k - 1, count: n };
}
