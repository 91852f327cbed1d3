import { describe, expect, it } from 'vitest';
import { absoluteError, meanOf, parseDecimal, rootMeanOf, squaredError } from '../../../src-main/core/text/numericError';
import { DataError } from '../../../src-main/core/errors';

describe('parseDecimal', () => {
  it.each([
    ['4', 4],
    [' 3.5 ', 3.5],
    ['-1e-2', -0.01],
    ['.5', 0.5],
    ['5.', 5],
    ['+2', 2],
  ])('%j -> %d', (text, value) => {
    expect(parseDecimal(text, 'prediction')).toBe(value);
  });

  it.each(['', '   ', 'four', '4 stars', '0x10', 'Infinity', 'NaN', '1e999', '1,5'])('rejects %j naming the field', (text) => {
    expect(() => parseDecimal(text, 'prediction')).toThrow(DataError);
    try {
      parseDecimal(text, 'prediction');
    } catch (err) {
      expect((err as DataError).field).toBe('prediction');
    }
  });
});

describe('absoluteError / squaredError', () => {
  it('computes per-pair errors of numbers given as text', () => {
    expect(absoluteError('4', ['2'])).toBe(2);
    expect(absoluteError('2', ['4'])).toBe(2);
    expect(squaredError('1', ['4'])).toBe(9);
    expect(squaredError('3.5', ['3.5'])).toBe(0);
  });

  it('needs exactly one numeric reference', () => {
    expect(() => absoluteError('1', ['1', '2'])).toThrow(/exactly one reference/);
    expect(() => squaredError('1', [])).toThrow(DataError);
    expect(() => absoluteError('1', ['x'])).toThrow(DataError);
  });
});

describe('meanOf / rootMeanOf', () => {
  it('aggregates MAE as the mean and RMSE as the root of the mean squared error', () => {
    // errors 1 and 3: MAE = 2; squared 1 and 9: RMSE = sqrt(5) (not the mean of roots, 2)
    expect(meanOf([1, 3])).toBe(2);
    expect(rootMeanOf([1, 9])).toBe(Math.sqrt(5));
    expect(meanOf([])).toBeNull();
    expect(rootMeanOf([])).toBeNull();
  });
});
