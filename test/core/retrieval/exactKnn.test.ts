import { describe, expect, it } from 'vitest';
import { cosineSimilarity, dotProduct, exactKnn } from '../../../src-main/core/retrieval/exactKnn';

describe('exact KNN', () => {
  it('cosine and dot on hand-checkable vectors', () => {
    expect(dotProduct([1, 2, 3], [4, 5, 6])).toBe(32);
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([1, 1], [2, 2])).toBeCloseTo(1, 15);
    expect(cosineSimilarity([3, 4], [4, 3])).toBeCloseTo(24 / 25, 15);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(() => dotProduct([1], [1, 2])).toThrow(/dimensions/);
  });

  it('ranks by cosine or by dot product (which prefers long vectors)', () => {
    const items = [
      { id: 'short', vector: [1, 0] },
      { id: 'long', vector: [3, 3] },
      { id: 'away', vector: [-1, 0] },
    ];
    expect(exactKnn([1, 0], items, 3, 'cosine').map((h) => h.id)).toEqual(['short', 'long', 'away']);
    expect(exactKnn([1, 0], items, 2, 'dot').map((h) => h.id)).toEqual(['long', 'short']);
    expect(exactKnn([1, 0], items, 0)).toEqual([]);
  });
});
