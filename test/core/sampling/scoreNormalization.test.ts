import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { normalizeScores } from '../../../src-main/core/sampling/scoreNormalization';
import { plackettLuceLogits } from '../../../src-main/core/sampling/plackettLuce';

describe('normalizeScores (footnote 3: [1, 2])', () => {
  it('maps min → 1 and max → 2 linearly', () => {
    // s̄ = 1 + (s − 0)/(10 − 0): 0 → 1, 5 → 1.5, 10 → 2.
    expect(normalizeScores([0, 5, 10])).toEqual([1, 1.5, 2]);
    expect(normalizeScores([3, 1, 2])).toEqual([2, 1, 1.5]);
  });

  it('code mode equals paper mode when no score is negative', () => {
    expect(normalizeScores([0, 5, 10], 'code')).toEqual([1, 1.5, 2]);
  });

  it('code mode reproduces the negative-score shift quirk', () => {
    // min = −2, max = 2, range 4. Paper: 1 + (s + 2)/4 → [1, 1.5, 2].
    // Code: s ← s − min = s + 2, then 1 + (s + 2 − min)/4 = 1 + (s + 4)/4 → [1.5, 2, 2.5].
    expect(normalizeScores([-2, 0, 2], 'paper')).toEqual([1, 1.5, 2]);
    expect(normalizeScores([-2, 0, 2], 'code')).toEqual([1.5, 2, 2.5]);
  });

  it('all-equal scores (and a single item) map to 1: uniform sampling, not the code NaN freeze', () => {
    expect(normalizeScores([0, 0, 0])).toEqual([1, 1, 1]);
    expect(normalizeScores([-3, -3], 'code')).toEqual([1, 1]);
    expect(normalizeScores([7])).toEqual([1]);
    expect(normalizeScores([])).toEqual([]);
  });

  it('rejects non-finite scores as data errors', () => {
    expect(() => normalizeScores([1, Number.NaN])).toThrow(DataError);
    expect(() => normalizeScores([Infinity, 1])).toThrow(/item 1/);
    expect(() => normalizeScores([-1e308, 1e308])).toThrow(/overflows/);
  });
});

describe('plackettLuceLogits (Eq. 2: w = s̄^α)', () => {
  it('raises the normalised scores to the power α', () => {
    // s̄ = [1, 1.5, 2]; α = 2 → [1, 2.25, 4]; α = 3 → [1, 3.375, 8].
    expect(plackettLuceLogits([0, 5, 10], 2)).toEqual([1, 2.25, 4]);
    expect(plackettLuceLogits([0, 5, 10], 3)).toEqual([1, 3.375, 8]);
  });

  it('α = 0 gives equal logits (uniform)', () => {
    expect(plackettLuceLogits([0, 5, 10], 0)).toEqual([1, 1, 1]);
  });

  it('uses the code normalisation when asked', () => {
    // code s̄ = [1.5, 2, 2.5] (see above); α = 2 → [2.25, 4, 6.25].
    expect(plackettLuceLogits([-2, 0, 2], 2, 'code')).toEqual([2.25, 4, 6.25]);
  });

  it('rejects negative, non-finite and overflowing α', () => {
    expect(() => plackettLuceLogits([0, 1], -1)).toThrow(RangeError);
    expect(() => plackettLuceLogits([0, 1], Number.NaN)).toThrow(RangeError);
    // 2^1100 = Infinity.
    expect(() => plackettLuceLogits([0, 1], 1100)).toThrow(/overflow/);
  });
});
