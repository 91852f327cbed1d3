/**
 * Audit of issue 23 item 1 ("Per-query fitted a and u are in the exports"): no test read the `fits-csv` /
 * `fits-json` exports. Here the MoI demo spec runs on two of its multi-aspect questions with the demo's
 * strong-primacy simulated reader (noise 0, planted bias a ∝ 1, 0.2, 0.1, 0.05; planted u = the demo's utility
 * labels), whose listwise score is exactly s = Σ_j a_j u_{π(j)} − 1 (engine/sim/simEngine.ts). Worked by hand:
 * A = b / 1.35 with b = (1, 0.2, 0.1, 0.05): A = (1, 0.2, 0.1, 0.05) / 1.35 = (0.740741, 0.148148, 0.074074, 0.037037) with Σ A = 1. With full-length
 * prompts (a, u) is identified only up to MoI's gauge a' = λa + (1 − λ)/N, u' = u/λ − c (same predictions), so the
 * exported fit is checked by what the gauge leaves fixed: its predictions Σ_j a'_j u'_{π(j)} equal the planted
 * Σ_j A_j u_{π(j)} − 1 for all 24 orders π of the query's 4 passages, and the bias shape
 * (a'_j − 1/4)/(a'_1 − 1/4) equals (A_j − 1/4)/(A_1 − 1/4) = (4b_j − 1.35)/2.65 = (1, −0.55, −0.95, −1.15)/2.65, to 1e-6.
 * The fit must be certified and its orientation marked as the rule's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { DEMO_MOI_SIM_PROFILE, ensureDemoSimReader } from '../../src-main/services/simulation/demoSim';
import { buildSimWorld } from '../../src-main/services/simulation/simWorld';
import { openWorkbench, type Workbench } from '../planted/support';

let wb: Workbench;
let runId: number;
const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'moi.json'), 'utf8')) as Record<string, unknown>;
const QUERIES = ['ma-q1', 'ma-q2'];
const A = [1, 0.2, 0.1, 0.05].map((v) => v / 1.35);

beforeAll(async () => {
  wb = openWorkbench('audit-moi-fits');
  await loadDemoCollection(wb.services);
  ensureDemoSimReader(wb.services);
  const { experiment } = wb.services.experiments.upsert({ ...demo, name: 'MoI fits audit', tasks: undefined, queries: QUERIES, baselines: [] });
  const run = wb.services.experiments.runToContinue(experiment.id, true).run;
  await wb.services.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
  runId = run.id;
}, 240_000);
afterAll(async () => wb?.close());

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

interface FitRow {
  queryId: string;
  a: number[];
  u: Record<string, number>;
  ranking: string[];
  converged: boolean;
  orientationByRule: boolean;
}

describe('MoI exports carry the per-query fitted a and u', () => {
  it('fits-json: per query, a and u whose predictions are the planted Σ A_j u_π(j) − 1 for all 24 orders, and the planted bias shape', async () => {
    const world = buildSimWorld(wb.services.workspace.db, { ...DEMO_MOI_SIM_PROFILE } as never);
    const out = await wb.services.experiments.export(runId, 'fits-json');
    expect(out.file.name).toMatch(/-fits\.json$|fits/);
    const fits = JSON.parse(out.file.text) as FitRow[];
    expect(fits.map((f) => f.queryId)).toEqual(QUERIES);
    for (const f of fits) {
      expect(f.a).toHaveLength(4);
      expect(f.a.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
      expect(Math.min(...f.a)).toBeGreaterThanOrEqual(0);
      const shape = [2.65, -0.55, -0.95, -1.15].map((v) => v / 2.65);
      f.a.forEach((v, j) => expect(Math.abs((v - 0.25) / (f.a[0]! - 0.25) - shape[j]!), `${f.queryId} a[${j}] = ${v}`).toBeLessThan(1e-6));
      const planted = world.queries.find((q) => q.id === f.queryId)!.utility;
      const docs = Object.keys(f.u);
      expect(docs).toHaveLength(4);
      for (const order of permutations(docs)) {
        const fitted = order.reduce((acc, d, j) => acc + f.a[j]! * f.u[d]!, 0);
        const truth = order.reduce((acc, d, j) => acc + A[j]! * (planted.get(d) ?? 0), 0) - 1;
        expect(Math.abs(fitted - truth), `${f.queryId} order ${order.join(' ')}`).toBeLessThan(1e-6);
      }
      // MoI's order is by u, highest first.
      const byU = [...docs].sort((x, y) => f.u[y]! - f.u[x]!);
      expect(f.ranking.map((d) => f.u[d])).toEqual(byU.map((d) => f.u[d]));
      expect(f.converged).toBe(true);
      expect(f.orientationByRule).toBe(true);
    }
  });

  it('fits-csv: one row per query with the same a and u (space-separated, doc=value)', async () => {
    const json = JSON.parse((await wb.services.experiments.export(runId, 'fits-json')).file.text) as FitRow[];
    const csv = (await wb.services.experiments.export(runId, 'fits-csv')).file.text.split(/\r?\n/).filter((l) => l !== '');
    expect(csv[0]!.split(',').slice(0, 3)).toEqual(['query_id', 'a', 'u']);
    expect(csv).toHaveLength(1 + QUERIES.length);
    for (const [i, f] of json.entries()) {
      const cells = csv[i + 1]!.split(',');
      expect(cells[0]).toBe(f.queryId);
      expect(cells[1]!.split(' ').map(Number)).toEqual(f.a);
      const u = Object.fromEntries(cells[2]!.split(' ').map((kv) => [kv.slice(0, kv.lastIndexOf('=')), Number(kv.slice(kv.lastIndexOf('=') + 1))]));
      expect(u).toEqual(f.u);
    }
  });
});
