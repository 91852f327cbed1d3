import { describe, expect, it } from 'vitest';
import { errorToUtility, lampRatingAbsoluteError, LAMP_RATING_MAX_ERROR, parsePythonFloat } from '../../../src-main/core/text/lampRating';

describe('parsePythonFloat', () => {
  it.each([
    ['4', 4],
    [' 4.0\n', 4],
    ['4.', 4],
    ['.5', 0.5],
    ['1e3', 1000],
    ['1_000', 1000], // PEP 515 underscores
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['inf', Number.POSITIVE_INFINITY],
  ])('%j -> %d', (text, value) => {
    expect(parsePythonFloat(text)).toBe(value);
  });

  it('gives NaN for "nan" and null where Python raises', () => {
    expect(parsePythonFloat('nan')).toBeNaN();
    for (const t of ['', 'four', '4 stars', '1__0', '_1', '0x10', '4/5']) expect(parsePythonFloat(t)).toBeNull();
  });
});

describe('lampRatingAbsoluteError (LaMP-3 create_mapping)', () => {
  it('is |pred − gold| for a numeric prediction', () => {
    expect(lampRatingAbsoluteError('5', '3')).toBe(2);
    expect(lampRatingAbsoluteError(' 2 ', '4')).toBe(2);
  });

  it.each([
    // unparsable prediction -> 1.0 if |1 − g| > |5 − g| else 5.0
    ['1', 4], // |0| > |4|? no -> 5.0 -> error 4
    ['2', 3], // 1 > 3? no -> 5.0 -> error 3
    ['3', 2], // 2 > 2? no (the tie goes to 5.0) -> error 2
    ['4', 3], // 3 > 1 -> 1.0 -> error 3
    ['5', 4], // 4 > 0 -> 1.0 -> error 4
  ])('scores an unparsable prediction against gold %s as error %d', (gold, error) => {
    expect(lampRatingAbsoluteError('I loved it', gold)).toBe(error);
  });

  it('refuses a non-numeric gold', () => {
    expect(() => lampRatingAbsoluteError('3', 'three')).toThrow(RangeError);
  });
});

describe('errorToUtility (Fair-RAG lower-is-better flip)', () => {
  it('maps u -> 4 − u on the 1..5 scale', () => {
    expect(LAMP_RATING_MAX_ERROR).toBe(4);
    expect(errorToUtility(0)).toBe(4);
    expect(errorToUtility(1.5)).toBe(2.5);
    expect(errorToUtility(4)).toBe(0);
    expect(errorToUtility(2, 10)).toBe(8);
  });
});
