/**
 * The bundled Fair RAG demo teaches the paper (issue 23 item 6): on the simulated reader (planted truth:
 * the demo's utility labels, noise 0), its defaults (k = 2 below the queries' 4–5 candidates, N = 200,
 * α 0 / 1 / 8) pass the design checks (whose samples check computes, from exact Plackett–Luce marginals on
 * the first retriever's scores and the utility labels, the gap between adjacent α arms and the N that
 * separates it), and Fig. 4's and Table 2's α arms on that retriever come out in the planted order: BM25
 * ranks the useful documents first, so EU and EE-D̄ rise with α (the old N = 20 with α 0/1/2/4/8 could
 * not separate the arms: the design check says so).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoCollection } from '../../../src-main/services/collectionsDemo';
import { ensureDemoSimReader } from '../../../src-main/services/simulation/demoSim';
import { openWorkbench, type Workbench } from '../../planted/support';

let wb: Workbench;
const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;

beforeAll(async () => {
  wb = openWorkbench('demo-order');
  await loadDemoCollection(wb.services);
  ensureDemoSimReader(wb.services);
});
afterAll(async () => wb.close());

describe('the Fair RAG demo orders its α arms as the planted utilities predict', () => {
  it('its defaults pass the design checks; the old N = 20 with α 0/1/2/4/8 does not', async () => {
    expect(demo).toMatchObject({ k: 2, samples: 200, alphas: [0, 1, 8] });
    expect(await wb.services.experiments.designWarnings(demo)).toEqual([]);
    const old = await wb.services.experiments.designWarnings({ ...demo, k: 3, samples: 20, alphas: [0, 1, 2, 4, 8] });
    expect(old.map((w) => w.code)).toEqual(['samples-too-few']);
    const paperK = await wb.services.experiments.designWarnings({ ...demo, k: 5 });
    expect(paperK.map((w) => w.code)).toContain('k-covers-candidates');
  });

  it('EU and EE-D̄ rise with α on the first retriever (Fig. 4, Table 2)', async () => {
    const { experiment } = wb.services.experiments.upsert(demo);
    const run = wb.services.experiments.runToContinue(experiment.id, true).run;
    await wb.services.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
    const m = wb.services.experiments.metrics(run.id) as { aggregates: { condition: string; measures: Record<string, { mean: number }> }[] };
    const arm = (c: string) => m.aggregates.find((a) => a.condition === c)!.measures;
    const eu = [0, 1, 8].map((a) => arm(`bm25/alpha=${a}`).eu!.mean);
    const eed = [0, 1, 8].map((a) => arm(`bm25/alpha=${a}`).eeDNorm!.mean);
    console.log(`bm25 EU by α 0/1/8: ${eu.map((x) => x.toFixed(4)).join(' / ')}; EE-D̄: ${eed.map((x) => x.toFixed(4)).join(' / ')}`);
    expect(eu[0]!).toBeLessThan(eu[1]!);
    expect(eu[1]!).toBeLessThan(eu[2]!);
    expect(eed[0]!).toBeLessThan(eed[1]!);
    expect(eed[1]!).toBeLessThan(eed[2]!);
  }, 120_000);
});
