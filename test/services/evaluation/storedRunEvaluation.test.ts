/**
 * Issue 17 item 4: stored retrieval runs evaluated against their collection's judgments, through
 * the API, equal the evaluation of the exported run and qrels files; hand-computed on a
 * two-query collection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSpec } from '../../../src-main/api/contract/retrieval';
import { createApiRouter } from '../../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { evaluateIrRuns } from '../../../src-main/services/evaluation/irEvaluation';

let dir: string;
let s: AppServices;
let collectionId: number;
let bm25: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stored-eval-'));
  s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  const repo = s.collections.repo;
  collectionId = repo.create('Fruit').id;
  repo.addDocuments(collectionId, [
    { docId: 'd1', text: 'apple pie with apple' },
    { docId: 'd2', text: 'banana bread' },
    { docId: 'd3', text: 'cherry tart' },
  ]);
  repo.addQueries(collectionId, [
    { queryId: 'q1', text: 'apple' },
    { queryId: 'q2', text: 'banana' },
  ]);
  // q1: d1 relevant (BM25 ranks it first: RR 1); q2: only d3 relevant, which BM25 never retrieves (RR 0).
  repo.addJudgments(collectionId, [
    { queryId: 'q1', docId: 'd1', kind: 'relevance', label: 1 },
    { queryId: 'q2', docId: 'd3', kind: 'relevance', label: 1 },
    { queryId: 'q2', docId: 'd2', kind: 'relevance', label: 0 },
  ]);
  const job = s.retrieval.startRun(RunSpec.parse({ collectionId, method: 'bm25', name: 'bm25 run' }));
  await s.jobs.wait(job.id);
  bm25 = s.retrieval.listRuns(collectionId)[0]!.id;
});

afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('evaluation.storedRuns', () => {
  it("evaluates a stored run against the collection's qrels (hand-computed RR and P@1)", async () => {
    const router = createApiRouter(s);
    const r = await router.call('evaluation.storedRuns', { collectionId, runIds: [bm25, bm25], measures: ['RR', 'P@1'] });
    expect(r.ok).toBe(true);
    const ev = (r as { data: ReturnType<typeof evaluateIrRuns> }).data;
    expect(ev.systems.map((x) => x.name)).toEqual(['bm25 run', 'bm25 run (2)']);
    expect(ev.systems[0]!.perQuery.RR).toEqual({ q1: 1, q2: 0 });
    expect(ev.systems[0]!.means.RR).toBeCloseTo(0.5, 12);
    expect(ev.systems[0]!.means['P@1']).toBeCloseTo(0.5, 12);
    expect(ev.inputs.find((i) => i.role === 'qrels')!.name).toBe('Fruit.relevance.qrels');
  });

  it('equals evaluating the exported run and qrels files', async () => {
    const router = createApiRouter(s);
    const r = (await router.call('evaluation.storedRuns', { collectionId, runIds: [bm25], measures: ['nDCG@10', 'AP'] })) as { data: ReturnType<typeof evaluateIrRuns> };
    const text = s.retrieval.exportTrec(bm25, { metadata: true }).text;
    const files = evaluateIrRuns({
      runs: [{ name: 'bm25 run', text }],
      qrels: { name: 'q', text: 'q1 0 d1 1\nq2 0 d2 0\nq2 0 d3 1\n' },
      measures: ['nDCG@10', 'AP'],
      test: 't',
      correction: 'holm',
      alpha: 0.05,
      permutations: 10000,
      seed: 42,
    });
    expect(r.data.systems[0]!.means).toEqual(files.systems[0]!.means);
  });

  it('says so when the collection has no judgments of the kind, or the run is not in it', async () => {
    const router = createApiRouter(s);
    expect(await router.call('evaluation.storedRuns', { collectionId, runIds: [bm25], measures: ['RR'], judgments: 'utility' })).toMatchObject({
      ok: false,
      error: { code: 'validation', field: 'judgments', message: expect.stringContaining("collection 'Fruit' has no utility judgments") },
    });
    expect(await router.call('evaluation.storedRuns', { collectionId, runIds: [9999], measures: ['RR'] })).toMatchObject({ ok: false, error: { code: 'not-found', field: 'runIds[0]' } });
  });
});
