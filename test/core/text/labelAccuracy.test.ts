import { describe, expect, it } from 'vitest';
import { labelAccuracy } from '../../../src-main/core/text/labelAccuracy';
import { DataError } from '../../../src-main/core/errors';

describe('labelAccuracy (LaMP: strip both sides, exact match)', () => {
  it.each([
    [' 4 ', ['4'], 1],
    ['4', ['4.0'], 0], // strings, not numbers
    ['Comedy', ['comedy'], 0], // case-sensitive
    ['[1]', ['[2]', '[1]'], 1], // any reference
    ['\u0085[1]\n', ['[1]'], 1], // Python strip removes NEL (JS trim would not)
    ['\ufeff4', ['4'], 0], // ... and keeps a BOM (JS trim would remove it)
    ['', [''], 1],
    ['', ['x'], 0],
  ])('%j vs %j -> %d', (prediction, references, value) => {
    expect(labelAccuracy(prediction, references)).toBe(value);
  });

  it('needs a reference', () => {
    expect(() => labelAccuracy('x', [])).toThrow(DataError);
  });
});
