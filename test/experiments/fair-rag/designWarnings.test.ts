/**
 * Fair RAG design checks (issue 23 item 5; issue 37 item 4: unit tests, before only a Chromium test
 * caught k = candidates and nothing the smallest attainable p) on the demo collection: 8 queries with
 * 4 or 5 candidates (4 of each), k = 2, N = 200, α ∈ {0, 1, 8} → Holm over min(5 intervals, 3 α values) = 3
 * comparisons: threshold 0.05 / 3 = 0.0167. Hand-computed:
 * - k = 4 equals the candidate count of 4 of the 8 queries: they are covered (k == candidates counts);
 *   k = 3 covers none.
 * - The paired sign-flip test on n queries reaches at best 2/2ⁿ: 2/2⁴ = 0.125 > 0.0167; 2/2⁷ = 0.0156 ≤ 0.0167 <
 *   2/2⁶ = 0.031 → 7 queries; uncorrected (0.05): 2/2⁶ = 0.031 ≤ 0.05 < 2/2⁵ = 0.0625 → 6 queries.
 * - The within-query exchange test (the default) on one query with N = 20 reaches at best 1/21 = 0.048 > 0.0167,
 *   two queries (1/21)² = 0.0023 ≤ 0.0167; on 4 queries with N = 20, (1/21)⁴ = 5e-6 is below its Monte Carlo
 *   floor 1/10,000 ≤ 0.0167.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairRagSpec, TABLE2_DEFAULT_SIGNIFICANCE } from '../../../src-main/api/contract/fairRag';
import { table2Options } from '../../../src-main/experiments/fair-rag/table2';
import { loadDemoCollection } from '../../../src-main/services/collectionsDemo';
import { ensureDemoSimReader } from '../../../src-main/services/simulation/demoSim';
import { openWorkbench, type Workbench } from '../../planted/support';

let wb: Workbench;
const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;

beforeAll(async () => {
  wb = openWorkbench('fair-rag-design');
  await loadDemoCollection(wb.services);
  ensureDemoSimReader(wb.services);
});
afterAll(async () => wb.close());

const warn = (spec: Record<string, unknown>) => wb.services.experiments.designWarnings(spec);
const coded = async (spec: Record<string, unknown>, code: string) => (await warn(spec)).filter((w) => w.code === code);

describe('Fair RAG design warnings', () => {
  it('the demo as shipped (k = 2 below every candidate count, default test on 8 queries) warns of nothing', async () => {
    expect(await warn(demo)).toEqual([]);
  });

  it('k equal to a query\'s candidate count covers it (k = 4: 4 of 8 queries); k = 3 covers none', async () => {
    const w = await coded({ ...demo, k: 4 }, 'k-covers-candidates');
    expect(w).toHaveLength(1);
    expect(w[0]!.message).toBe("k = 4 is at least the number of candidates of 4 of 8 queries: on those queries every arm shows the same documents, which pulls the arms' differences towards 0.");
    expect(w[0]!.fix).toBe('choose k below the smallest candidate count (k ≤ 3), or use queries with more candidates');
    const all = await coded({ ...demo, k: 5 }, 'k-covers-candidates');
    expect(all[0]!.message).toContain('k = 5 is at least the number of candidates of every query (4, 5 candidates)');
    expect(await coded({ ...demo, k: 3 }, 'k-covers-candidates')).toEqual([]);
  });

  it('too few queries for the sign-flip test: smallest attainable p 2/2⁴ = 0.125 above α/3; 7 queries needed (6 uncorrected)', async () => {
    const spec = { ...demo, tasks: ['headline'], significance: { test: 'paired-randomization' } };
    const w = await coded(spec, 'too-few-queries');
    expect(w).toHaveLength(1);
    expect(w[0]!.message).toBe('4 queries cannot give a significant result in Table 2: the smallest p-value the paired-randomization test can reach on 4 queries is 0.125, above α/3 = 0.017 (holm correction over the 3 intervals 3 α values can fill).');
    expect(w[0]!.fix).toBe('use at least 7 queries (or the paired t-test, significance.test = paired-t)');
    const none = await coded({ ...spec, significance: { test: 'paired-randomization', correction: 'none' } }, 'too-few-queries');
    expect(none[0]!.message).toContain('is 0.125, above α = 0.05.');
    expect(none[0]!.fix).toMatch(/^use at least 6 queries/);
  });

  it('the default test (no significance block, or one without `test`) is the within-query exchange: 1/21 on one query with N = 20', async () => {
    const one = { ...demo, tasks: ['headline'], samples: 20 };
    for (const spec of [one, { ...one, significance: {} }, { ...one, significance: { alpha: 0.05 } }]) {
      // 4 headline queries: (1/21)⁴ is far below the exchange test's floor 1/10,000 ≤ 0.0167, no warning.
      expect(await coded(spec, 'too-few-queries')).toEqual([]);
    }
    const collectionId = wb.services.collections.list().find((c) => c.name === demo.collection)!.id;
    const firstQuery = wb.services.collections.listQueries({ collectionId, offset: 0, limit: 100, task: 'headline' }).items[0]!.queryId;
    for (const spec of [{ ...one, queries: [firstQuery] }, { ...one, queries: [firstQuery], significance: {} }]) {
      const w = await coded(spec, 'too-few-queries');
      expect(w).toHaveLength(1);
      expect(w[0]!.message).toBe('1 query cannot give a significant result in Table 2: the smallest p-value the within-query-exchange test can reach on 1 query is 0.048, above α/3 = 0.017 (holm correction over the 3 intervals 3 α values can fill).');
      expect(w[0]!.fix).toBe('use at least 2 queries (or the paired t-test, significance.test = paired-t)');
    }
  });
});

describe('Table 2 default significance (one constant)', () => {
  it('is the within-query exchange test, Holm, α = 0.05, wherever a spec leaves it out', () => {
    expect(TABLE2_DEFAULT_SIGNIFICANCE).toEqual({ test: 'within-query-exchange', correction: 'holm', alpha: 0.05 });
    const withBlock = FairRagSpec.parse({ ...demo, significance: {} });
    expect(withBlock.significance).toEqual({ test: 'within-query-exchange', correction: 'holm', alpha: 0.05 });
    const withoutBlock = FairRagSpec.parse({ ...demo, significance: undefined });
    expect(withoutBlock.significance).toBeUndefined();
    expect(table2Options(withoutBlock)).toEqual({ test: 'within-query-exchange', correction: 'holm', alpha: 0.05, seed: withoutBlock.seeds.sampling, uMaxZero: 'zero' });
    expect(table2Options({ ...withoutBlock, significance: { test: 'paired-t', correction: 'none', alpha: 0.1 } })).toMatchObject({ test: 'paired-t', correction: 'none', alpha: 0.1 });
  });
});
