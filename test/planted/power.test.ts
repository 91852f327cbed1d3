/**
 * `simulate power` (issue 14). The spec's own test (MoI Table 1: paired t-test of MoI vs the retriever
 * order, α = 0.05) under a planted null effect (utility scale 0: no document helps, every order is
 * answered right with the closed-book probability, independently per prompt) is significant in about
 * α of the runs; under a strong planted effect it is significant in most runs, more often with more
 * queries. And the CLI runs on the three demo specs.
 *
 * Repetitions are bounded by the time budget of npm test (a run costs ~0.1–0.3 s here): 60 null runs
 * give a binomial standard error of 0.028 at α = 0.05, so the check is |power − α| ≤ 3 SE.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatePowerCommand } from '../../src-main/cli/commands/simulatePower';
import { createApiRouter } from '../../src-main/handlers/index';
import { simulatePower, wilson } from '../../src-main/services/simulation/power';
import { runCliCaptured } from '../support/cli';
import { addPrimacyCases, openWorkbench, type Workbench } from './support';

let wb: Workbench;
const Q = 16;

let spec: Record<string, unknown>;

beforeAll(() => {
  wb = openWorkbench('power');
  // The useful passage is last in retriever order: under a primacy bias only an order that moves it up answers surely.
  spec = { ...addPrimacyCases(wb.services, { collection: 'power-cases', reader: 'Simulated reader (power)', count: Q, middleUtility: 0.1, closedBook: 0.3 }), name: 'power moi' };
});
afterAll(async () => wb.close());

describe('simulate power', () => {
  it('a planted null effect is significant in about α of the runs', async () => {
    const reps = 60;
    const report = await simulatePower(wb.services.workspace.db, { spec, effects: [0], reps, queries: [Q] });
    expect(report).toMatchObject({ kind: 'moi', simulatedReader: true, test: { alpha: 0.05, correction: 'holm' } });
    expect(report.profile).toMatchObject({ collection: 'power-cases', bias: 'primacy', closedBookAccuracy: 0.3 });
    const [row] = report.rows;
    expect(row).toMatchObject({ effect: 0, queries: Q, reps });
    const se = Math.sqrt((0.05 * 0.95) / reps);
    expect(Math.abs(row!.power - 0.05), `null power ${row!.power}`).toBeLessThanOrEqual(3 * se);
    expect(Math.abs(row!.meanDifference!)).toBeLessThan(0.05);
    expect([row!.low, row!.high]).toEqual(Object.values(wilson(row!.significant, reps)));
    // Wilson's interval for 3 of 60, by hand: centre (0.05 + z²/120)/(1 + z²/60).
    const z = 1.959963984540054;
    expect(wilson(3, 60).low).toBeCloseTo((0.05 + (z * z) / 120 - z * Math.sqrt((0.05 * 0.95) / 60 + (z * z) / 14400)) / (1 + (z * z) / 60), 12);
  }, 120_000);

  it('a strong planted effect is detected, more often with more queries', async () => {
    const report = await simulatePower(wb.services.workspace.db, { spec, effects: [1], reps: 8, queries: [3, Q], seed: 100 });
    const [few, many] = report.rows;
    // Expected difference per query (MoI puts the useful passage first): 1 − (0.3 + 0.7·(0.1/2 + 1/3)) = 0.43.
    expect(many!.meanDifference!).toBeGreaterThan(0.25);
    expect(many!.power).toBeGreaterThanOrEqual(0.75);
    expect(many!.power).toBeGreaterThan(few!.power);
  }, 120_000);

  it('fairground simulate power runs on the three demo specs (CSV written, says simulated)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-power-cli-'));
    try {
      for (const name of ['fair-rag', 'moi', 'richrag']) {
        const file = resolve('resources', 'demo', 'experiments', `${name}.json`);
        const csv = join(dir, `${name}.csv`);
        const args = ['simulate', 'power', file, '--effect', '0,1', '--reps', '1', '--queries', '2', '--workspace', join(dir, 'w.fairground'), '--csv', csv, ...(name === 'fair-rag' ? ['--samples', '4'] : [])];
        const r = await runCliCaptured(args, { cwd: dir, commands: [simulatePowerCommand] });
        expect(r.stderr + r.stdout, name).toContain('simulated reader');
        expect(r.code, r.stderr).toBe(0);
        const lines = readFileSync(csv, 'utf8').trim().split('\n');
        expect(lines[2]).toBe('effect,queries,samples,reps,significant,power,low,high,meanDifference');
        expect(lines.slice(3).map((l) => l.split(',').slice(0, 4).join(','))).toEqual(name === 'fair-rag' ? ['0,2,4,1', '1,2,4,1'] : ['0,2,,1', '1,2,,1']);
      }
      const bad = await runCliCaptured(['simulate', 'power', resolve('resources', 'demo', 'experiments', 'moi.json'), '--reps', '2', '--workspace', join(dir, 'w.fairground')], { cwd: dir, commands: [simulatePowerCommand] });
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('--effect is required');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the API: simulate.power starts a job whose result is the report and its CSV; models.addSim checks the profile', async () => {
    const router = createApiRouter(wb.services);
    const { experiment } = wb.services.experiments.upsert({ ...spec, name: 'power api' });
    const r = (await router.call('simulate.power', { experimentId: experiment.id, effects: [1], reps: 2, queries: [4] })) as { ok: boolean; data: { id: string } };
    expect(r.ok).toBe(true);
    const job = await wb.services.jobs.wait(r.data.id);
    expect(job.status).toBe('succeeded');
    const result = job.result as { rows: { effect: number; queries: number; reps: number }[]; csv: string; note: string };
    expect(result.rows).toEqual([expect.objectContaining({ effect: 1, queries: 4, reps: 2 })]);
    expect(result.csv).toContain('# simulated reader');
    expect(await router.call('simulate.power', { experimentId: experiment.id, effects: [2], reps: 2 })).toMatchObject({ ok: false, error: { code: 'validation' } });
    expect(await router.call('models.addSim', { profile: { collection: 'nope' } })).toMatchObject({ ok: false, error: { code: 'validation', field: 'profile.collection' } });
    const added = (await router.call('models.addSim', { name: 'My reader', profile: { collection: 'power-cases', bias: [3, 2, 1] } })) as { ok: boolean; data: { name: string; kind: string } };
    expect(added, JSON.stringify(added)).toMatchObject({ ok: true });
    expect(await router.call('models.list', {})).toMatchObject({ ok: true, data: expect.arrayContaining([expect.objectContaining({ kind: 'sim', metadata: expect.objectContaining({ profile: expect.objectContaining({ collection: 'power-cases' }) }) })]) });
    expect(added.data).toMatchObject({ name: 'My reader (simulated reader)', kind: 'sim' });
  }, 60_000);
});
