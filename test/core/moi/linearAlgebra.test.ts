import { describe, expect, it } from 'vitest';
import { cholesky, choleskySolve } from '../../../src-main/core/moi/cholesky';
import { numericalRank, pivotedLeastSquares } from '../../../src-main/core/moi/pivotedQr';

describe('cholesky', () => {
  it('factors the textbook example exactly and solves with it', () => {
    const a = [
      [4, 12, -16],
      [12, 37, -43],
      [-16, -43, 98],
    ];
    expect(cholesky(a)).toEqual([
      [2, 0, 0],
      [6, 1, 0],
      [-8, 5, 3],
    ]);
    // x = [1, 2, 3] -> b = A x
    const x = choleskySolve(a, [4 + 24 - 48, 12 + 74 - 129, -16 - 86 + 294]);
    x.forEach((v, i) => expect(v).toBeCloseTo(i + 1, 12));
  });

  it('refuses a matrix that is not positive definite', () => {
    expect(() =>
      cholesky([
        [1, 2],
        [2, 4],
      ]),
    ).toThrow(/not positive definite/);
  });
});

describe('pivotedLeastSquares', () => {
  it('fits a least-squares line (closed form: intercept 1.5, slope 1)', () => {
    const { x, rank } = pivotedLeastSquares(
      [
        [1, 0],
        [1, 1],
        [1, 2],
        [1, 3],
      ],
      [1, 3, 4, 4],
    );
    expect(rank).toBe(2);
    expect(x[0]).toBeCloseTo(1.5, 12);
    expect(x[1]).toBeCloseTo(1, 12);
  });

  it('returns a basic minimiser and the rank of a rank-deficient matrix', () => {
    // Columns 0 and 2 are equal: any x0 + x2 = c is optimal. Same residual as the full-rank fit on [col0, col1].
    const a = [
      [1, 0, 1],
      [1, 1, 1],
      [1, 2, 1],
      [1, 3, 1],
    ];
    const { x, rank } = pivotedLeastSquares(a, [1, 3, 4, 4]);
    expect(rank).toBe(2);
    expect(x[0]! + x[2]!).toBeCloseTo(1.5, 12);
    expect(x[1]).toBeCloseTo(1, 12);
    expect(x.filter((v) => v === 0)).toHaveLength(1);
    expect(
      numericalRank([
        [1, 2],
        [2, 4],
      ]),
    ).toBe(1);
    expect(
      numericalRank([
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ]),
    ).toBe(3);
    expect(numericalRank([[0, 0]])).toBe(0);
  });
});
