import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { simplexLeastSquares } from '../../../src-main/core/moi/simplexLeastSquares';

type Matrix = number[][];

const objective = (z: Matrix, s: number[], a: number[]) => z.reduce((acc, row, i) => acc + (row.reduce((t, v, j) => t + v * a[j]!, 0) - s[i]!) ** 2, 0);
const times = (z: Matrix, a: number[]) => z.map((row) => row.reduce((t, v, j) => t + v * a[j]!, 0));

function randomMatrix(rows: number, cols: number, seed: string): Matrix {
  const rng = createRng(seed);
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => rng.nextNormal()));
}

/** Brute force over the simplex grid a = (i, j, K − i − j)/K. */
function gridMinimum(z: Matrix, s: number[], K: number): { a: number[]; f: number } {
  let best = { a: [1, 0, 0], f: Infinity };
  for (let i = 0; i <= K; i++) {
    for (let j = 0; i + j <= K; j++) {
      const a = [i / K, j / K, (K - i - j) / K];
      const f = objective(z, s, a);
      if (f < best.f) best = { a, f };
    }
  }
  return best;
}

/** Gaussian elimination with partial pivoting (independent of the code under test). */
function solveLinear(a: Matrix, b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) return null;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = m[r]![n]!;
    for (let k = r + 1; k < n; k++) v -= m[r]![k]! * x[k]!;
    x[r] = v / m[r]![r]!;
  }
  return x;
}

/** Exact optimum by enumerating supports: KKT system [2ZᵀZ 1; 1ᵀ 0] on each support, keep feasible ones. */
function supportEnumeration(z: Matrix, s: number[]): { a: number[]; f: number } {
  const L = z[0]!.length;
  let best = { a: [] as number[], f: Infinity };
  for (let mask = 1; mask < 1 << L; mask++) {
    const F = [...Array(L).keys()].filter((j) => mask & (1 << j));
    const k = F.length;
    const kkt: Matrix = Array.from({ length: k + 1 }, () => new Array<number>(k + 1).fill(0));
    const rhs = new Array<number>(k + 1).fill(0);
    F.forEach((p, r) => {
      F.forEach((q, c) => (kkt[r]![c] = 2 * z.reduce((t, row) => t + row[p]! * row[q]!, 0)));
      kkt[r]![k] = 1;
      kkt[k]![r] = 1;
      rhs[r] = 2 * z.reduce((t, row, i) => t + row[p]! * s[i]!, 0);
    });
    rhs[k] = 1;
    const sol = solveLinear(kkt, rhs);
    if (!sol || sol.slice(0, k).some((v) => v < -1e-12)) continue;
    const a = new Array<number>(L).fill(0);
    F.forEach((p, r) => (a[p] = Math.max(0, sol[r]!)));
    const f = objective(z, s, a);
    if (f < best.f) best = { a, f };
  }
  return best;
}

function expectOnSimplex(a: number[]) {
  for (const v of a) expect(v).toBeGreaterThanOrEqual(0);
  expect(a.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 14);
}

describe('simplexLeastSquares (the a-step QP)', () => {
  it('agrees with brute force on a fine grid for L = 3 (interior, edge, vertex and random optima)', () => {
    const z = randomMatrix(6, 3, 'grid');
    const cases: Record<string, number[]> = {
      interior: times(z, [0.2, 0.3, 0.5]),
      edge: times(z, [0.6, 0.5, -0.1]).map((v, i) => v + 0.01 * (i % 2)),
      vertex: times(z, [1.6, -0.2, -0.4]),
      random: randomMatrix(1, 6, 'grid-s')[0]!,
    };
    const K = 400;
    for (const [name, s] of Object.entries(cases)) {
      const qp = simplexLeastSquares(z, s);
      const grid = gridMinimum(z, s, K);
      expect(qp.converged, name).toBe(true);
      expectOnSimplex(qp.a);
      // Never worse than any grid point, and the grid gets within its resolution of it.
      expect(qp.objective, name).toBeLessThanOrEqual(grid.f + 1e-12);
      expect(grid.f - qp.objective, name).toBeLessThan(1e-3);
      qp.a.forEach((v, j) => expect(Math.abs(v - grid.a[j]!), `${name} a[${j}]`).toBeLessThanOrEqual(2 / K + 1e-9));
    }
    // The planted interior point is recovered exactly.
    simplexLeastSquares(z, cases.interior!).a.forEach((v, j) => expect(v).toBeCloseTo([0.2, 0.3, 0.5][j]!, 10));
    // The vertex case sits on a vertex.
    expect(simplexLeastSquares(z, cases.vertex!).a.filter((v) => v === 0)).toHaveLength(2);
  });

  it('matches exact support enumeration for L = 2..6, including M < L, from any feasible start', () => {
    for (let trial = 0; trial < 40; trial++) {
      const L = 2 + (trial % 5);
      const M = trial % 3 === 0 ? L - 1 : 2 * L;
      const z = randomMatrix(M, L, `enum-${trial}`);
      const s = randomMatrix(1, M, `enum-s-${trial}`)[0]!.map((v) => 2 * v);
      const exact = supportEnumeration(z, s);
      for (const start of [undefined, new Array<number>(L).fill(1 / L), [1, ...new Array<number>(L - 1).fill(0)]]) {
        const qp = simplexLeastSquares(z, s, start ? { start } : {});
        expect(qp.converged).toBe(true);
        expectOnSimplex(qp.a);
        expect(qp.objective).toBeLessThanOrEqual(exact.f + 1e-9 * (1 + exact.f));
        expect(qp.objective).toBeGreaterThanOrEqual(exact.f - 1e-9 * (1 + exact.f));
      }
    }
  });

  it('reaches the optimum when ZᵀZ is singular (duplicated columns, tied utilities)', () => {
    // u = [1, 1, 3]: columns for the two tied passages coincide in every row.
    const z = [
      [1, 1, 3],
      [1, 3, 1],
      [3, 1, 1],
      [1, 1, 3],
    ];
    const s = [2.2, 1.4, 1.2, 2.4];
    const qp = simplexLeastSquares(z, s);
    const grid = gridMinimum(z, s, 600);
    expect(qp.converged).toBe(true);
    expect(qp.objective).toBeLessThanOrEqual(grid.f + 1e-12);
    expect(grid.f - qp.objective).toBeLessThan(1e-4);
    // A constant row predicts 2 for every feasible a: all are optimal, and the start must be kept.
    const flat = simplexLeastSquares([[2, 2, 2]], [1], { start: [0.5, 0.3, 0.2] });
    expect(flat.a).toEqual([0.5, 0.3, 0.2]);
    expect(flat.objective).toBeCloseTo(1, 14);
  });

  it('checks its inputs', () => {
    expect(() => simplexLeastSquares([[1, 2]], [1, 2])).toThrow(RangeError);
    expect(() => simplexLeastSquares([[1, 2], [1]], [1, 2])).toThrow(/ragged/);
    expect(() => simplexLeastSquares([[1, 2]], [1], { start: [1] })).toThrow(RangeError);
  });
});
