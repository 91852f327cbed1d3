import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src-main/core/canonicalJson';
import { callCacheKey, canonicalJson as cacheCanonical } from '../../src-main/engine/callCache';
import { stableStringify } from '../../src-main/io/importers/records';
import { canonicalJson as storeCanonical } from '../../src-main/store/canonicalJson';

const identity = { modelKey: 'sha256:abc', outputAffectingSettings: { contextSize: 4096, gpu: 'cpu', seed: 1 } } as unknown as Parameters<typeof callCacheKey>[0];

describe('one canonical JSON (#16.9)', () => {
  it('keeps every call-cache key as it was (digests computed with the engine’s function before the merge)', () => {
    expect(callCacheKey(identity, 'generate', { prompt: 'Hello', maxTokens: 16, temperature: 0, stop: ['\n'], extra: undefined })).toBe(
      'a15d9f4a3f5092e45be74c2ff78f3c9db2998c3de135e416ef0b56f7d8db7d89',
    );
    expect(callCacheKey(identity, 'score', { prompt: 'Q: x\nA:', continuations: ['yes', 'no'], nested: { b: 2, a: [1, { d: 4, c: 3 }] } })).toBe(
      '20c27797ba861e939d23daa71fff24c1fe7feec70f6ea9c93b93a41bdbc397ba',
    );
    expect(callCacheKey(identity, 'embed', { texts: ['é', '☃', ''], normalize: true })).toBe('6109764cdde64eaa7f7036b0135fb13d0256004f4531603660b9fc63f53a72fc');
  });

  it('is the same function for the cache, the store and the importers, and refuses NaN and ±Infinity', () => {
    expect(cacheCanonical).toBe(canonicalJson);
    expect(storeCanonical).toBe(canonicalJson);
    expect(stableStringify).toBe(canonicalJson);
    expect(canonicalJson({ b: [1, { d: undefined, c: null }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":null}]}');
    // The store's copy wrote NaN as null; the cache's refused it.
    expect(() => canonicalJson({ u: Number.NaN })).toThrow('canonical JSON cannot carry NaN');
    expect(() => canonicalJson([Infinity])).toThrow(RangeError);
  });
});
