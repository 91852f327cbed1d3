/**
 * Fair RAG Table 2's `calibration` field (issue 23 item 2): absent ("not simulated") until "Check
 * calibration" (the `simulate.calibration` job) measures the null rejection rate of the table's test
 * from the simulator; then stored once per spec and carried by the run's metrics, its LaTeX caption and
 * its manifest, without being computed again on a view. The stored rate is the one `simulate power`
 * measures at effect 0 with the same runs and seeds (recomputed here independently), with its Wilson
 * interval; a changed spec has none. The seed is printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { ensureDemoSimReader } from '../../src-main/services/simulation/demoSim';
import { calibrationKey, readCalibration } from '../../src-main/services/simulation/calibrationStore';
import { simulatePower, wilson } from '../../src-main/services/simulation/power';
import { openWorkbench, runSpec, type Workbench } from '../planted/support';

let wb: Workbench;
const seed = Number(process.env.CALIBRATION_TEST_SEED ?? Math.floor(Date.now() / 86_400_000) % 100_000);

beforeAll(async () => {
  wb = openWorkbench('calibration');
  await loadDemoCollection(wb.services);
  ensureDemoSimReader(wb.services);
});
afterAll(async () => wb.close());

const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;
// Small and fast: one retriever, α = 0 only (one Table 2 cell), N = 10, no oracle, no attribution judge.
const spec = { ...demo, name: 'calibration check', retrievers: [(demo.retrievers as unknown[])[0]], alphas: [0], samples: 10, oracle: false, attribution: { judge: 'none' } };

describe("Table 2's measured calibration", () => {
  it('is absent until checked, then the stored simulate-power null rate, carried by metrics, caption and manifest', async () => {
    console.log(`fairRagCalibration.test seed ${seed} (set CALIBRATION_TEST_SEED to replay)`);
    const db = wb.services.workspace.db;
    const runId = await runSpec(wb.services, spec);
    const before = wb.services.experiments.metrics(runId);
    if (before.kind !== 'fair-rag') throw new Error('not a Fair RAG run');
    expect(before.table2.calibration).toBeUndefined();
    const texBefore = await wb.services.experiments.export(runId, 'latex-table2');
    expect(texBefore.file.text).toContain('Null rejection rate: not simulated.');
    expect((texBefore.manifest.evaluation as { significance: Record<string, unknown> }).significance.calibration).toBeUndefined();

    const runs = 8;
    const router = createApiRouter(wb.services);
    const started = (await router.call('simulate.calibration', { runId, runs, seed })) as { ok: boolean; data: { id: string } };
    expect(started.ok, JSON.stringify(started)).toBe(true);
    const job = await wb.services.jobs.wait(started.data.id);
    expect(job.error).toBeNull();
    const cal = job.result as { nullRejectionRate: number; lo: number; hi: number; runs: number; alpha: number; seed: number; test: string; source: string };

    // The same null simulated independently with the same runs and seeds gives the same count of starred runs.
    const direct = await simulatePower(db, { spec: { ...spec, attribution: { judge: 'none' } }, effects: [0], reps: runs, seed });
    const row = direct.rows[0]!;
    expect(cal).toMatchObject({ runs, alpha: 0.05, seed, nullRejectionRate: row.significant / runs });
    expect([cal.lo, cal.hi]).toEqual([wilson(row.significant, runs).low, wilson(row.significant, runs).high]);
    expect(cal.test).toContain(direct.test.test);
    expect(cal.source).toContain("the spec's reader 'Simulated reader (lost in the middle)'");
    expect(cal.source).toContain(`seeds ${seed}…${seed + runs - 1}`);

    // Stored once: the run's metrics, caption and manifest carry it; reading it starts no job.
    const jobsBefore = wb.services.jobs.list().length;
    const after = wb.services.experiments.metrics(runId);
    if (after.kind !== 'fair-rag') throw new Error('not a Fair RAG run');
    expect(after.table2.calibration).toEqual(cal);
    expect(wb.services.jobs.list().length).toBe(jobsBefore);
    const tex = await wb.services.experiments.export(runId, 'latex-table2');
    // The notes under the table (at the table's α, so α is not repeated).
    expect(tex.file.text).toContain(`Measured null rejection rate: ${cal.nullRejectionRate.toFixed(3)} [${cal.lo.toFixed(3)}, ${cal.hi.toFixed(3)}] (${runs} simulated runs).`);
    expect((tex.manifest.evaluation as { significance: { calibration: unknown } }).significance.calibration).toEqual(cal);
    const manifest = JSON.parse((await wb.services.experiments.export(runId, 'manifest')).file.text) as { evaluation: { significance: { calibration?: unknown } } };
    expect(manifest.evaluation.significance.calibration).toEqual(cal);

    // A different design has its own (absent) calibration; a spec whose collection is not here cannot be simulated.
    expect(readCalibration(db, { ...spec, samples: 11 })).toBeUndefined();
    expect(readCalibration(db, { ...spec, name: 'renamed', description: 'other words' })).toEqual(cal);
    expect(calibrationKey(db, { ...spec, collection: 'not here' })).toBeNull();
  }, 120_000);
});
