/**
 * `simulate power` plants an effect between exactly the conditions the spec's test compares (issue 23
 * item 3): for Fair RAG, the deterministic top-1 document of the first retriever has planted utility e
 * and every other candidate 0, so the tested gap (α arms − deterministic, per query) is ≈ 0 at e = 0 and
 * grows linearly with e, and the power rises with it. A small, fast check of the machinery on the demo
 * collection (seed printed); the ≥ 400-run calibration is scripts/calibration.ts, not a unit test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoCollection } from '../../../src-main/services/collectionsDemo';
import { FAIR_RAG_EFFECT } from '../../../src-main/experiments/fair-rag/power';
import { simulatePower } from '../../../src-main/services/simulation/power';
import { openWorkbench, type Workbench } from '../../planted/support';

let wb: Workbench;
const seed = Number(process.env.POWER_TEST_SEED ?? Math.floor(Date.now() / 86_400_000));

beforeAll(async () => {
  wb = openWorkbench('power');
  await loadDemoCollection(wb.services);
});
afterAll(async () => wb.close());

describe('power with a planted effect between the compared conditions', () => {
  it('Fair RAG: the tested gap is 0 at e = 0 and linear in e; power rises from the null rate to ≈ 1', async () => {
    console.log(`power.test seed ${seed} (set POWER_TEST_SEED to replay)`);
    const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;
    // Small and fast: one retriever, α = 0 only (one Table 2 cell), N = 20, no oracle, no attribution.
    const spec = { ...demo, retrievers: [(demo.retrievers as unknown[])[0]], alphas: [0], samples: 20, oracle: false, attribution: { judge: 'none' } };
    const reps = 8;
    const report = await simulatePower(wb.services.workspace.db, { spec, effects: [0, 0.5, 1], reps, seed });
    expect(report.effect).toBe(FAIR_RAG_EFFECT);
    expect(report.test.description).toMatch(/vs the deterministic ranking on bm25/);
    const [null0, half, full] = report.rows;
    for (const r of report.rows) expect(r.reps).toBe(reps);
    // The gap the test tests: α = 0 arm − deterministic, averaged over the 8 queries and the runs.
    // At e = 1 the deterministic arm answers every query right by the planted top-1 document (p = 1) and the
    // uniform α = 0 arm shows it with probability k/n ≈ 0.4–0.5, mostly at a less attended position: a gap
    // of about −0.5 to −0.7; at e = 0.5 about half of it; at e = 0 zero up to Monte-Carlo error
    // (8 runs × 8 queries of 0/1 deterministic answers with p = 0.2: sd of the mean ≈ 0.4 / √64 = 0.05).
    expect(Math.abs(null0!.meanDifference!)).toBeLessThan(0.2);
    expect(full!.meanDifference!).toBeLessThan(-0.35);
    expect(half!.meanDifference!).toBeLessThan(null0!.meanDifference! - 0.05);
    expect(full!.meanDifference!).toBeLessThan(half!.meanDifference! - 0.05);
    // Linear in e: the gap at 0.5 is about half the gap at 1 (loose: Monte-Carlo error).
    expect(half!.meanDifference! / full!.meanDifference!).toBeGreaterThan(0.2);
    expect(half!.meanDifference! / full!.meanDifference!).toBeLessThan(0.8);
    // Power rises with the effect (monotone within Monte-Carlo error) to ≈ 1 at e = 1.
    expect(full!.power).toBeGreaterThanOrEqual(0.75);
    expect(full!.power).toBeGreaterThanOrEqual(half!.power);
    expect(half!.power + 0.25).toBeGreaterThanOrEqual(null0!.power);
  }, 300_000);
});
