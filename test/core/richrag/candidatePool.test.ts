import { describe, expect, it } from 'vitest';
import { mergeCandidatePool, type AspectList } from '../../../src-main/core/richrag/candidatePool';

const LISTS: AspectList[] = [
  { aspect: 's1', results: [{ id: 'a', score: 0.9 }, { id: 'b', score: 0.8 }, { id: 'c', score: 0.7 }] },
  { aspect: 's2', results: [{ id: 'b', score: 0.95 }, { id: 'd', score: 0.6 }] },
  { aspect: 's3', results: [{ id: 'e', score: 0.5 }] },
];

describe('mergeCandidatePool (Eq. 3-4)', () => {
  it('round-robin by rank (default): rank 1 of s1, s2, s3, then rank 2, …; duplicates keep their first place', () => {
    // rank 1: a(s1) b(s2) e(s3); rank 2: b(s1, again) d(s2); rank 3: c(s1)
    expect(mergeCandidatePool(LISTS, { capacity: 10 })).toEqual([
      { id: 'a', aspects: ['s1'] },
      { id: 'b', aspects: ['s1', 's2'] },
      { id: 'e', aspects: ['s3'] },
      { id: 'd', aspects: ['s2'] },
      { id: 'c', aspects: ['s1'] },
    ]);
  });

  it('cuts at the capacity M; s(d) still names every list that retrieved d', () => {
    // M = 2: [a, b]; b's entry in s1 (rank 2) comes after the cut but s1 still retrieved it
    expect(mergeCandidatePool(LISTS, { capacity: 2 })).toEqual([
      { id: 'a', aspects: ['s1'] },
      { id: 'b', aspects: ['s1', 's2'] },
    ]);
  });

  it('by score: highest first, so a weak aspect can lose all its documents to the cut', () => {
    // b .95 (s2), a .9, b .8 (dup), c .7, d .6, e .5 → [b, a, c, d, e]; M = 3 drops s3's only document
    expect(mergeCandidatePool(LISTS, { capacity: 3, order: 'score' })).toEqual([
      { id: 'b', aspects: ['s1', 's2'] },
      { id: 'a', aspects: ['s1'] },
      { id: 'c', aspects: ['s1'] },
    ]);
    // the same M round-robin keeps s3's e
    expect(mergeCandidatePool(LISTS, { capacity: 3 }).map((p) => p.id)).toEqual(['a', 'b', 'e']);
  });

  it('breaks score ties by rank, then by list order', () => {
    const tied: AspectList[] = [
      { aspect: 'x', results: [{ id: 'p', score: 2 }, { id: 'q', score: 1 }] },
      { aspect: 'y', results: [{ id: 'r', score: 1 }, { id: 's', score: 1 }] },
    ];
    // score 1: q (x, rank 2), r (y, rank 1), s (y, rank 2) → r first (rank 1), then q (list x) before s
    expect(mergeCandidatePool(tied, { capacity: 9, order: 'score' }).map((p) => p.id)).toEqual(['p', 'r', 'q', 's']);
  });

  it('handles empty lists and no lists', () => {
    expect(mergeCandidatePool([], { capacity: 3 })).toEqual([]);
    expect(mergeCandidatePool([{ aspect: 'z', results: [] }, LISTS[2]!], { capacity: 3 })).toEqual([{ id: 'e', aspects: ['s3'] }]);
  });

  it('names the field of bad input', () => {
    expect(() => mergeCandidatePool(LISTS, { capacity: 0 })).toThrow('capacity: must be a positive integer, got 0');
    expect(() => mergeCandidatePool([LISTS[0]!, { ...LISTS[1]!, aspect: 's1' }], { capacity: 3 })).toThrow(
      "lists[1].aspect: duplicate sub-aspect 's1' (first at lists[0])",
    );
    const dup: AspectList = { aspect: 'w', results: [{ id: 'a', score: 1 }, { id: 'a', score: 0 }] };
    expect(() => mergeCandidatePool([dup], { capacity: 3 })).toThrow("lists[0].results[1].id: duplicate document id 'a' in this list (first at results[0])");
    const nan: AspectList = { aspect: 'w', results: [{ id: 'a', score: Number.NaN }] };
    expect(() => mergeCandidatePool([nan], { capacity: 3 })).toThrow('lists[0].results[0].score: not a finite number: NaN');
  });
});
