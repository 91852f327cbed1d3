/** Issue 35 item 8: concurrent calls of one engine under one signal add one abort listener to it, removed when they end. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CachedEngine, type CallCacheStore } from '../../../src-main/engine/callCache';
import { SharedSignals } from '../../../src-main/engine/queue/sharedSignals';
import type { Engine, EngineIdentity, TokenizeResult } from '../../../src-main/engine/types';

describe('SharedSignals', () => {
  it('one listener on the source for any number of leases; aborts with the source’s reason; detaches after the last', () => {
    const shared = new SharedSignals();
    const source = new AbortController();
    const leases = Array.from({ length: 50 }, () => shared.acquire(source.signal));
    expect(new Set(leases.map((l) => l.signal)).size).toBe(1);
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(1);
    for (const l of leases.slice(1)) l.done();
    leases[1]!.done(); // idempotent: does not end the first one's lease
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(1);
    const reason = new Error('stop');
    source.abort(reason);
    expect(leases[0]!.signal.aborted).toBe(true);
    expect(leases[0]!.signal.reason).toBe(reason);
    leases[0]!.done();
    const fresh = new AbortController();
    const l = shared.acquire(fresh.signal);
    l.done();
    expect(getEventListeners(fresh.signal, 'abort')).toHaveLength(0);
  });

  it('40 concurrent tokenize calls through a CachedEngine: at most one listener on the caller’s signal, none after', async () => {
    const source = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: number[] = [];
    const inner = {
      identity: async (): Promise<EngineIdentity> => ({ kind: 'sim', modelKey: 'm', modelName: 'm', outputAffectingSettings: {}, versions: {} }),
      async tokenize(request: { texts: string[] }, signal?: AbortSignal): Promise<TokenizeResult> {
        // Each call listens on the signal it is given, as the real engines do.
        const onAbort = (): void => undefined;
        signal?.addEventListener('abort', onAbort, { once: true });
        seen.push(getEventListeners(source.signal, 'abort').length);
        await gate;
        signal?.removeEventListener('abort', onAbort);
        return { counts: request.texts.map((t) => t.length), source: 'server' };
      },
      close: async () => undefined,
    } as unknown as Engine;
    const store: CallCacheStore = { get: () => undefined, put: () => true, clearModel: () => 0 };
    const engine = new CachedEngine(inner, store);
    const calls = Array.from({ length: 40 }, (_, i) => engine.tokenize({ texts: [`text ${i}`] }, source.signal));
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(40);
    expect(Math.max(...seen)).toBe(1);
    release();
    expect((await Promise.all(calls)).map((r) => r.counts[0])).toEqual(Array.from({ length: 40 }, (_, i) => `text ${i}`.length));
    expect(getEventListeners(source.signal, 'abort')).toHaveLength(0);
  });
});
