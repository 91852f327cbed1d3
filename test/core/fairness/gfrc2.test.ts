import { describe, expect, it } from 'vitest';
import { gfrc2 } from '../../../src-main/core/fairness/gfrc2';
import { handExample, SIM_A_ONE_HOT } from './handExample';

describe('gfrc2 on the hand example', () => {
  it('opens a user cluster at each relevant nugget end ≤ L; L0 words count as non-relevant', () => {
    const { clusters } = gfrc2(handExample());
    // n4 ends at 12 > L = 10: Prob = 0 (Eq. 14), no cluster.
    expect(clusters.map((c) => [c.wc, c.GWCrel, c.WCnonrel, c.GNP])).toEqual([
      // wc 3: GWCrel = 2·2, WCnonrel = 3 − 2, GNP = 4/5
      [3, 4, 1, 0.8],
      // wc 8: GWCrel = 4 + 1·2, WCnonrel = 8 − 4 (words 1, 4, 5, 6; word 5 is the L0 nugget), GNP = 6/10
      [8, 6, 4, 0.6],
    ]);
  });

  it('D is cumulative across turns (Eq. 18), unlike GFRC\'s per-turn D', () => {
    const { clusters } = gfrc2(handExample());
    expect(clusters[1]!.D).toEqual({ A: [0.5, 0.5], B: [0.5, 0, 0.5] });
    expect(clusters[0]!.DistrSim.A).toBeCloseTo(SIM_A_ONE_HOT, 15);
    expect(clusters[1]!.DistrSim.A).toBe(1);
    // B by NMD: (1,0,0) → 1 − 0.5/2; (½,0,½): CP (½,½,1) vs (½,1,1) → 1 − 0.5/2
    expect(clusters.map((c) => c.DistrSim.B)).toEqual([0.75, 0.75]);
  });

  it('Experience averages GNP and the DistrSims; the E-measures divide sums by L (Eq. 19-21)', () => {
    const r = gfrc2(handExample());
    const e1 = (0.8 + SIM_A_ONE_HOT + 0.75) / 3;
    const e2 = (0.6 + 1 + 0.75) / 3;
    expect(r.clusters.map((c) => c.Experience)).toEqual([expect.closeTo(e1, 15), expect.closeTo(e2, 15)]);
    expect(r.EGNP).toBeCloseTo(0.14, 15);
    expect(r.EGF.A).toBeCloseTo((SIM_A_ONE_HOT + 1) / 10, 15);
    expect(r.EGF.B).toBeCloseTo(0.15, 15);
    expect(r.GFRC2).toBeCloseTo((e1 + e2) / 10, 15);
    expect(r.GFRC2).toBeCloseTo(0.152957, 6);
  });

  it('takes configurable weights (Eq. 12)', () => {
    const utilityOnly = gfrc2(handExample(), { weights: { main: 1, sets: { A: 0, B: 0 } } });
    expect(utilityOnly.GFRC2).toBeCloseTo(utilityOnly.EGNP, 15);
    const bOnly = gfrc2(handExample(), { weights: { main: 0, sets: { A: 0, B: 1 } } });
    expect(bOnly.GFRC2).toBeCloseTo(bOnly.EGF.B!, 15);
    expect(() => gfrc2(handExample(), { weights: { main: 1, sets: { A: 0, B: 0, C: 0 } } })).toThrow(/weights\.sets\.C: unknown attribute set/);
  });

  it('soft membership vectors are averaged like hard ones', () => {
    const input = handExample();
    input.nuggets[0]!.groups.A = [0.5, 0.5];
    expect(gfrc2(input).clusters[0]!.DistrSim.A).toBe(1);
    expect(gfrc2(input).clusters[1]!.D.A).toEqual([0.25, 0.75]);
  });
});

describe('gfrc2 degenerate inputs', () => {
  it('no nuggets (an empty conversation): no clusters and zero scores', () => {
    expect(gfrc2({ ...handExample(), nuggets: [] })).toEqual({ clusters: [], EGNP: 0, EGF: { A: 0, B: 0 }, GFRC2: 0 });
  });

  it('only L0 nuggets: no clusters', () => {
    const input = handExample();
    input.nuggets = input.nuggets.filter((n) => n.level === 0);
    expect(gfrc2(input).clusters).toEqual([]);
  });

  it('every relevant nugget past L: no clusters, while a nugget ending exactly at L still counts', () => {
    const input = handExample();
    input.L = 2;
    expect(gfrc2(input).GFRC2).toBe(0);
    input.L = 3;
    expect(gfrc2(input).clusters.map((c) => c.wc)).toEqual([3]);
  });

  it('no attribute sets: Experience is GNP', () => {
    const input = { ...handExample(), attributeSets: [] };
    input.nuggets = input.nuggets.map((n) => ({ ...n, groups: {} }));
    const r = gfrc2(input);
    expect(r.clusters.map((c) => c.Experience)).toEqual([0.8, 0.6]);
    expect(r.GFRC2).toBeCloseTo(r.EGNP, 15);
  });

  it('nuggets given out of order are read in word order', () => {
    const input = handExample();
    input.nuggets.reverse();
    expect(gfrc2(input)).toEqual(gfrc2(handExample()));
  });
});
