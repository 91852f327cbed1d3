import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { exponentialGain, gainTable } from '../../../src-main/core/fairness/gains';
import { gfrc, positionWeight } from '../../../src-main/core/fairness/gfrc';
import { handExample, SIM_A_ONE_HOT } from './handExample';

describe('gains', () => {
  it('are (2^l − 1)/2^{l_max}: 0, 0.25, 0.75 for FairWeb-2 levels L0-L2', () => {
    expect([0, 1, 2].map((l) => exponentialGain(l, 2))).toEqual([0, 0.25, 0.75]);
    expect(gainTable(3)).toEqual([0, 1 / 8, 3 / 8, 7 / 8]);
  });

  it('accept a custom table of l_max + 1 values in [0, 1], naming the bad entry', () => {
    expect(gainTable(2, [0, 0.5, 1])).toEqual([0, 0.5, 1]);
    expect(() => gainTable(2, [0, 1])).toThrow(/gains: expected 3 gains/);
    expect(() => gainTable(2, [0, 1.5, 1])).toThrow(/gains\[1\]: must be in \[0, 1\]/);
  });
});

describe('positionWeight', () => {
  it('Eq. 4 gives the first word weight 1 and word L+1 weight 0; Eq. 7 is 1/L lower', () => {
    expect(positionWeight(1, 1000)).toBe(1);
    expect(positionWeight(1001, 1000)).toBe(0);
    expect(positionWeight(1000, 1000)).toBeCloseTo(0.001, 15);
    expect(positionWeight(1000, 1000, 'eq7')).toBe(0);
    expect(positionWeight(33, 1000, 'eq7')).toBeCloseTo(0.967, 15);
    expect(positionWeight(5000, 1000)).toBe(0);
  });
});

describe('gfrc on the hand example', () => {
  it('R sums pw·g over relevant nuggets; the L0 nugget adds nothing and the one past L has pw = 0', () => {
    // Eq. 6: pw(3) = 0.8, pw(8) = 0.3, pw(12) = 0; g = 0.75, 0.25, 0.75 → Σ = 0.675; R = 2/11 · 0.675
    const r = gfrc(handExample());
    expect(r.rTerms.map((t) => [t.end, t.pw, t.g])).toEqual([
      [3, expect.closeTo(0.8, 15), 0.75],
      [8, expect.closeTo(0.3, 15), 0.25],
      [12, 0, 0.75],
    ]);
    expect(r.R).toBeCloseTo(1.35 / 11, 15);
    // Eq. 7: pw = 0.7, 0.2 → Σ = 0.575; Eq. 9 swaps 2/(L+1) for 2/(L−1).
    expect(gfrc(handExample(), { rVariant: 'eq7' }).R).toBeCloseTo(1.15 / 11, 15);
    expect(gfrc(handExample(), { rVariant: 'eq9' }).R).toBeCloseTo(1.15 / 9, 15);
  });

  it('GF averages per-turn DistrSim over turns with relevant nuggets only, the turn past L included', () => {
    const r = gfrc(handExample());
    expect(r.turns.map((t) => t.turn)).toEqual([1, 2, 3]); // turn 4 holds only an L0 nugget
    expect(r.turns.map((t) => t.D.B)).toEqual([[1, 0, 0], [0, 0, 1], [0, 1, 0]]);
    // A: (1,0), (0,1), (½,½) → 0.6887219, 0.6887219, 1
    expect(r.GF.A).toBeCloseTo((2 * SIM_A_ONE_HOT + 1) / 3, 14);
    expect(r.GF.A).toBeCloseTo(0.792481, 6);
    // B by NMD against (½,½,0): 1 − 0.25, 1 − 0.75, 1 − 0.25
    expect(r.turns.map((t) => t.DistrSim.B)).toEqual([0.75, 0.25, 0.75]);
    expect(r.GF.B).toBeCloseTo(1.75 / 3, 15);
  });

  it('GFRC is the plain average of R and each GF by default, or the given weights', () => {
    const r = gfrc(handExample());
    expect(r.GFRC).toBeCloseTo((1.35 / 11 + (2 * SIM_A_ONE_HOT + 1) / 3 + 1.75 / 3) / 3, 14);
    expect(r.GFRC).toBeCloseTo(0.499514, 6);
    expect(gfrc(handExample(), { weights: { main: 1, sets: { A: 0, B: 0 } } }).GFRC).toBeCloseTo(r.R, 15);
    expect(gfrc(handExample(), { weights: { main: 0, sets: { A: 0, B: 1 } } }).GFRC).toBeCloseTo(r.GF.B!, 15);
  });

  it('uses a custom gain table', () => {
    const r = gfrc(handExample(), { gains: [0, 1, 1] });
    expect(r.R).toBeCloseTo((2 / 11) * (0.8 + 0.3), 15);
  });

  it('ordinal set by RNOD with a zero in the target', () => {
    const input = handExample();
    input.attributeSets[1] = { ...input.attributeSets[1]!, measure: 'rnod' };
    // turn 1: (1,0,0) ‖ (½,½,0): (p−p*)² = (¼,¼,0), C* = {1,2}, DW = (¼, ¼) → NOD = ¼/2 → √⅛
    expect(gfrc(input).turns[0]!.DistrSim.B).toBeCloseTo(1 - Math.sqrt(1 / 8), 15);
  });
});

describe('gfrc degenerate inputs', () => {
  it('no nuggets: R = 0 and GF = 0 because S is empty (Eq. 10)', () => {
    const r = gfrc({ ...handExample(), nuggets: [] });
    expect(r).toMatchObject({ R: 0, GF: { A: 0, B: 0 }, GFRC: 0, rTerms: [], turns: [] });
  });

  it('only L0 nuggets count as no relevant nuggets', () => {
    const input = handExample();
    input.nuggets = input.nuggets.filter((n) => n.level === 0);
    expect(gfrc(input)).toMatchObject({ R: 0, GF: { A: 0, B: 0 }, GFRC: 0 });
  });

  it('no attribute sets: GFRC is R', () => {
    const input = { ...handExample(), attributeSets: [] };
    input.nuggets = input.nuggets.map((n) => ({ ...n, groups: {} }));
    const r = gfrc(input);
    expect(r.GF).toEqual({});
    expect(r.GFRC).toBeCloseTo(1.35 / 11, 15);
  });

  it('rejects bad weights and bad input with a DataError naming the field', () => {
    expect(() => gfrc(handExample(), { weights: { main: 0.5, sets: { A: 0.5, B: 0.5 } } })).toThrow(/weights: weights sum to 1.5/);
    expect(() => gfrc(handExample(), { weights: { main: 0.5, sets: { A: 0.5 } } })).toThrow(/weights\.sets\.B: missing/);
    const bad = handExample();
    bad.nuggets[2]!.level = 3;
    expect(() => gfrc(bad)).toThrow(DataError);
    expect(() => gfrc(bad)).toThrow(/nuggets\[2\]\.level/);
  });
});
