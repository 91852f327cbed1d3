/**
 * The wizard's "touched" rule (issue 26 item 2) rests on which spec paths an input event changed:
 * hand-computed cases of changedPaths and pathPrefixes.
 */
import { describe, expect, it } from 'vitest';
import { changedPaths, pathPrefixes } from '../../src-renderer/src/screens/experiments/specPaths';

describe('changedPaths', () => {
  it('names the leaf that changed, with dots for objects and brackets for arrays', () => {
    const a = { name: '', decoding: { maxTokens: 16, temperature: 0 }, retrievers: [{ name: 'bm25', params: { k1: 1.5 } }] };
    const b = { name: 'x', decoding: { maxTokens: 8, temperature: 0 }, retrievers: [{ name: 'bm25', params: { k1: 1.2 } }] };
    expect(changedPaths(a, b)).toEqual(['name', 'decoding.maxTokens', 'retrievers[0].params.k1']);
  });
  it('an array of another length, a key added or removed and a change of type are one path each', () => {
    expect(changedPaths({ queries: 'all' }, { queries: [] })).toEqual(['queries']);
    expect(changedPaths({ queries: ['a'] }, { queries: ['a', 'b'] })).toEqual(['queries']);
    expect(changedPaths({ k: 3 }, { k: 3, tasks: ['t'] })).toEqual(['tasks']);
    expect(changedPaths({ k: 3, agent: { model: 'm' } }, { k: 3 })).toEqual(['agent']);
    expect(changedPaths({ queries: ['a', 'b'] }, { queries: ['a', 'c'] })).toEqual(['queries[1]']);
  });
  it('equal values give no path; different roots give the root', () => {
    expect(changedPaths({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
    expect(changedPaths(1, 2)).toEqual(['']);
  });
});

describe('pathPrefixes', () => {
  it('lists every enclosing field, outermost first', () => {
    expect(pathPrefixes('retrievers[0].params.k1')).toEqual(['retrievers', 'retrievers[0]', 'retrievers[0].params', 'retrievers[0].params.k1']);
    expect(pathPrefixes('name')).toEqual(['name']);
  });
});
