/**
 * MoI's planted effect in `simulate power` (issue 23 item 3): the strength e of the reader's position
 * bias, with the same total attention (engine/sim/profile.ts biasAtStrength). At e = 0 no order of the
 * same passages changes an answer, so MoI's order and the retriever order (Table 1's compared rows) are
 * equal in distribution and the test is significant in about α of the runs; the power rises with e.
 * Grid points beyond the spec's queries use replicated queries. Small seeded grid (seed printed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { biasAtStrength } from '../../../src-main/engine/sim/profile';
import { MOI_EFFECT } from '../../../src-main/experiments/moi/power';
import { powerCsv, simulatePower } from '../../../src-main/services/simulation/power';
import { addPrimacyCases, openWorkbench, type Workbench } from '../../planted/support';

let wb: Workbench;
const Q = 8;
const seed = Number(process.env.POWER_GRID_TEST_SEED ?? Math.floor(Date.now() / 86_400_000) % 100_000);

let spec: Record<string, unknown>;

beforeAll(() => {
  wb = openWorkbench('power-grid');
  // The useful passage is last in retriever order: under a primacy bias only an order that moves it up answers surely.
  spec = { ...addPrimacyCases(wb.services, { collection: 'grid-cases', reader: 'Simulated reader (grid)', count: Q, middleUtility: 0, closedBook: 0.2 }), name: 'grid moi' };
});
afterAll(async () => wb.close());

describe('the position-bias strength', () => {
  it('keeps the total relative attention and is linear in the strength (hand-computed)', () => {
    // bias ∝ 1, 0.2, 0.1, 0.05: ã = the vector itself (its max is 1); mean ã = 0.3375.
    const zero = biasAtStrength([1, 0.2, 0.1, 0.05], 4, 0);
    zero.relative.forEach((v) => expect(v).toBeCloseTo(0.3375, 12));
    zero.a.forEach((v) => expect(v).toBeCloseTo(0.25, 12));
    const half = biasAtStrength([1, 0.2, 0.1, 0.05], 4, 0.5);
    [0.66875, 0.26875, 0.21875, 0.19375].forEach((v, i) => expect(half.relative[i]).toBeCloseTo(v, 12));
    expect(half.a.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    expect(biasAtStrength([1, 0.2, 0.1, 0.05], 4, 1).relative).toEqual([1, 0.2, 0.1, 0.05]);
  });
});

describe('MoI power grid (replicated queries beyond the spec)', () => {
  it('is about α at effect 0 and rises monotonically with the effect', async () => {
    console.log(`powerGrid.test seed ${seed} (set POWER_GRID_TEST_SEED to replay)`);
    const db = wb.services.workspace.db;
    // The null: 30 runs of 16 queries (8 of the spec's, 8 replicates). Binomial(30, 0.05): P(X ≤ 5) = 0.997.
    const nullReport = await simulatePower(db, { spec, effects: [0], reps: 30, queries: [2 * Q], seed });
    const n0 = nullReport.rows[0]!;
    expect(nullReport.effect).toBe(MOI_EFFECT);
    expect(n0).toMatchObject({ effect: 0, queries: 2 * Q, replicated: Q, reps: 30 });
    expect(n0.significant, `null rejections ${n0.significant} of 30`).toBeLessThanOrEqual(5);
    expect(Math.abs(n0.meanDifference!)).toBeLessThan(0.08);
    expect(nullReport.note).toContain("rows with more queries than the spec's 8 add replicates");
    expect(powerCsv(nullReport).split('\n')[2]).toBe('effect,queries,samples,reps,significant,power,low,high,meanDifference,replicatedQueries');
    // The effects: expected gap per query at e (MoI puts the useful passage first; primacy ã = 1, 1/2, 1/3, mean 11/18):
    // accuracy c + (1 − c)·ã₁(e) − (c + (1 − c)·ã₃(e)) = 0.8·e·(1 − 1/3) ≈ 0.53·e when MoI finds the passage; the primary
    // measure (rougeL) gives a wrong answer partial credit, and MoI's fit does not always find it: 0.17–0.21 at e = 1 measured (seed 20785).
    const report = await simulatePower(db, { spec, effects: [0.5, 1], reps: 8, queries: [2 * Q], seed: seed + 1000 });
    console.log(JSON.stringify([n0, ...report.rows]));
    const [half, full] = report.rows;
    // Monotone in the tested gap; the power over 8 runs per effect is too coarse to order e = 0 and 0.5 (measured at
    // seed 20785: power 0.10 / 0.00 / 0.375, gap −0.017 / 0.008 / 0.172: MoI's fit finds the useful passage less often
    // when the bias is weak, so the gap is not linear in e).
    expect(half!.meanDifference!).toBeGreaterThan(n0.meanDifference!);
    expect(full!.meanDifference!).toBeGreaterThan(half!.meanDifference! + 0.05);
    expect(full!.meanDifference!).toBeGreaterThan(0.12);
    expect(full!.power).toBeGreaterThanOrEqual(half!.power);
    expect(full!.power).toBeGreaterThan(n0.power);
  }, 240_000);
});

describe('the reader lapse in simulate power, and one run read under another test', () => {
  it('λ = 1 leaves only the closed-book answer in every order; λ = 0.5 keeps the planted gap (noise 0, hand-computed)', async () => {
    const db = wb.services.workspace.db;
    // Noise 0: right iff p ≥ 0.5. MoI's order puts the useful passage first (ã = 1), the retriever order last (ã = 1/3):
    // λ = 1: p = c = 0.2 in both orders → every answer wrong in both rows, difference exactly 0;
    // λ = 0.5: MoI p = 0.2 + 0.8·0.5·1 = 0.6 (right), retriever p = 0.2 + 0.8·0.5/3 = 0.333 (wrong).
    const tests: string[] = [];
    const gone = await simulatePower(db, { spec, effects: [1], reps: 1, noise: 0, lapse: 1, seed: 1, inspect: (_m, _cell, reanalyse) => tests.push(String((reanalyse({ significance: { test: 'randomization', correction: 'holm', alpha: 0.05 } }).table1 as { test: string }).test)) });
    expect(gone.rows[0]!.meanDifference).toBe(0);
    expect(gone.note).toContain("the reader's lapse rate is 1");
    expect(tests).toEqual(['two-sided paired randomization test against Retriever over queries']);
    const kept = await simulatePower(db, { spec, effects: [1], reps: 1, noise: 0, lapse: 0.5, seed: 1 });
    expect(kept.rows[0]!.meanDifference!).toBeGreaterThan(0.3);
    await expect(simulatePower(db, { spec, effects: [1], reps: 1, lapse: 2 })).rejects.toThrow(/lapse must be a number in \[0, 1\]/);
  }, 120_000);
});
