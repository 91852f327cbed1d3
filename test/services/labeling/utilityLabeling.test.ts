/**
 * Utility labeling (Fair RAG Algorithm 1) over a real workspace and the real llama.cpp engine on a
 * generated tiny model: labels recomputed by hand from the stored outputs, a second run that makes
 * no engine call, manual overrides that survive, imported labels kept beside the new ones,
 * summaries, exports, and request errors through the API.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UtilityLabelReport, UtilityLabelRequest } from '../../../src-main/api/contract/labeling';
import { UtilityLabelRequest as RequestSchema } from '../../../src-main/api/contract/labeling';
import { RunSpec } from '../../../src-main/api/contract/retrieval';
import { createApiRouter } from '../../../src-main/handlers/index';
import { textMetric } from '../../../src-main/core/text/textMetrics';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import type { JudgmentRow } from '../../../src-main/store/collectionTypes';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { addLabelCollection } from './fixture';

let dir: string;
let services: AppServices;
let modelId: number;
let collectionId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-labels-'));
  const model = join(dir, 'tiny.gguf');
  await writeTinyGguf(model, { preset: 'tiny', seed: 3 });
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  services.settings.update({ threads: 1 });
  modelId = (await services.models.addHashed(model, 'tiny')).id;
  collectionId = addLabelCollection(services);
});

afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(over: Partial<UtilityLabelRequest> & { collectionId: number }): UtilityLabelRequest {
  return RequestSchema.parse({ generator: { kind: 'local', modelId }, rougeImpl: 'rouge-score', maxTokens: 12, minUseful: 1, ...over });
}

async function label(req: UtilityLabelRequest): Promise<UtilityLabelReport> {
  const job = await services.jobs.wait(services.labeling.start(req).id);
  expect(job.error).toBeNull();
  expect(job.status).toBe('succeeded');
  expect(job.progress).toBe(job.total);
  return job.result as UtilityLabelReport;
}

const utilityOf = (j: JudgmentRow) => j.provenance as { utility: number; baseline: number; delta: number; output: string; baselineOutput: string; metric: string };
const labelled = (cid: number) => ['q1', 'q2', 'q3', 'lamp3'].flatMap((q) => services.collections.repo.judgmentsOf(cid, q));
const countRows = (cid: number) => (services.workspace.db.prepare(`SELECT count(*) AS n FROM judgments WHERE collection_id = ?`).get(cid) as { n: number }).n;
const cacheRows = () => (services.workspace.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n;

describe('utility labeling with a tiny model', () => {
  it('previews the prompts of a real query and the size of the job', () => {
    const p = services.labeling.preview(request({ collectionId }));
    expect(p).toMatchObject({ queryId: 'q1', templateName: 'generic-qa', metric: 'rouge1 (rouge-score)', augmentedDocId: 'd1', plan: { queries: 4, skipped: 2, calls: 3 * 5 + 3 } });
    expect(p.baselinePrompt).toBe('Answer the question.\n\nQuestion: a query with many answers question 1\nAnswer:');
    expect(p.augmentedPrompt).toBe(
      'Answer the question using the documents.\n\nDocuments:\n[1] Title 1: the relevant documents rank first fair exposure for every group\n\nQuestion: a query with many answers question 1\nAnswer:',
    );
    // LaMP-3 gets Fair-RAG's prompt (score is in attrs) and is labelled with accuracy, not MAE.
    const lamp = services.labeling.preview({ ...request({ collectionId }), previewQueryId: 'lamp3' });
    expect(lamp).toMatchObject({ templateName: 'fair-rag/LaMP-3', metric: 'accuracy' });
    expect(lamp.augmentedPrompt).toBe('1 is the score for the relevant documents rank first fair exposure for every group. What is the score of the following review on a scale of 1 to 5? review: good work');
  });

  it('labels every candidate, skips what it cannot label, and a second run calls no model', async () => {
    const first = await label(request({ collectionId }));
    expect(first).toMatchObject({ queries: 4, calls: { total: 18, generated: 18, cached: 0 }, judgments: { written: 14, unchanged: 0 } });
    expect(first.skipped).toEqual([
      { queryId: 'nocand', reason: 'no candidates (choose a retrieval run for such queries)' },
      { queryId: 'noanswer', reason: 'no reference answer' },
    ]);
    expect(cacheRows()).toBe(18);
    const rows = labelled(collectionId);
    expect(rows).toHaveLength(14);
    expect(rows.every((j) => j.source === 'llm' && j.kind === 'utility')).toBe(true);
    expect(utilityOf(rows.find((j) => j.queryId === 'lamp3')!).metric).toBe('accuracy');
    // The label record names the context the tiny model (trained for 512) ran with, not the configured 4096 (issue 34 item 8c).
    expect(rows[0]!.provenance).toMatchObject({ generator: { kind: 'local', settings: { contextSize: 512, contextSizeConfigured: 4096 } } });
    const hash = services.collections.repo.get(collectionId)!.contentHash;

    const engine = services.models.engineFor({ kind: 'local', modelId });
    const before = engine.stats();
    const again = await label(request({ collectionId }));
    expect(engine.stats().misses).toBe(before.misses);
    expect(engine.stats().hits - before.hits).toBe(18);
    expect(again).toMatchObject({ calls: { total: 18, generated: 0, cached: 18 }, judgments: { written: 0, unchanged: 14 } });
    expect(labelled(collectionId)).toEqual(rows);
    expect(services.collections.repo.get(collectionId)!.contentHash).toBe(hash);
    expect(countRows(collectionId)).toBe(14);
  });

  it('labels = (δ > 0) with δ = u_j − u_0, recomputed by hand from the stored outputs', async () => {
    // Answers taken from the first run's outputs make some candidates useful: collection B has the
    // same queries and documents, and as answer the output a query got with one of its candidates.
    const a = labelled(collectionId);
    const outputOf = (q: string, d: string) => utilityOf(a.find((j) => j.queryId === q && j.docId === d)!).output;
    const answers: Record<string, string> = { q1: outputOf('q1', 'd2'), q2: outputOf('q2', 'd5'), q3: outputOf('q3', 'd12') };
    const b = addLabelCollection(services, 'tiny-lab-b', answers);

    const report = await label(request({ collectionId: b, minUseful: 2 }));
    // Same prompts, same model: every call comes from the cache of collection A's run.
    expect(report.calls).toEqual({ total: 18, cached: 18, generated: 0 });

    const rouge1 = textMetric('rouge1', { impl: 'rouge-score' });
    if (rouge1.kind !== 'prf') throw new Error('rouge1 is a P/R/F metric');
    let positives = 0;
    for (const j of labelled(b).filter((x) => x.queryId !== 'lamp3')) {
      const p = utilityOf(j);
      const answer = answers[j.queryId]!;
      expect(p.utility).toBe(rouge1.score(p.output, [answer]).f);
      expect(p.baseline).toBe(rouge1.score(p.baselineOutput, [answer]).f);
      expect(p.delta).toBe(p.utility - p.baseline);
      expect(j.label).toBe(p.utility - p.baseline > 0 ? 1 : 0);
      positives += j.label;
    }
    // The candidate whose output is the answer scores F = 1 (unless the baseline said the same).
    for (const [q, d] of [['q1', 'd2'], ['q2', 'd5'], ['q3', 'd12']] as const) {
      const j = services.collections.repo.getJudgment(b, q, d, 'utility')!;
      expect(utilityOf(j).utility).toBeCloseTo(1, 12);
    }
    expect(positives).toBeGreaterThan(0);
    expect(positives).toBeLessThan(12);

    // Filtering marks, never deletes: the summary and the exports read it from the labels.
    const summary = services.labeling.summary(b, 2);
    expect(summary.totals).toMatchObject({ queries: 6, labelled: 4, judgments: 14, useful: positives });
    const kept = summary.queries.filter((q) => q.useful >= 2).map((q) => q.queryId);
    expect(summary.queries.filter((q) => q.kept).map((q) => q.queryId)).toEqual(kept);
    expect(report).toMatchObject({ minUseful: 2, kept: kept.length, dropped: 4 - kept.length });
    expect(countRows(b)).toBe(14);
    const mapping = services.labeling.export(b, 'fairrag-mapping', 2);
    expect(mapping.queries).toBe(kept.length);
    const all = services.labeling.export(b, 'fairrag-mapping', 0);
    expect(all.content.split('\n')[0]).toBe('qid\tpid\trelevance_label');
    expect(all.rows).toBe(14);
    const q3 = all.content.split('\n').filter((l) => l.startsWith('q3\t'));
    // Candidate order, not doc-id order: d9, d10, d11, d12.
    expect(q3.map((l) => l.split('\t')[1])).toEqual(['d9', 'd10', 'd11', 'd12']);
    const delta = services.labeling.export(b, 'fairrag-delta', 0);
    const d12 = utilityOf(services.collections.repo.getJudgment(b, 'q3', 'd12', 'utility')!);
    expect(delta.content).toContain(`q3\td12\t${d12.utility}\t${d12.baseline}\t${d12.delta}\n`);
    const qrels = services.labeling.export(b, 'qrels', 0);
    expect(qrels.content.split('\n')[0]).toMatch(/^q1 0 d1 [01]$/);
    expect(qrels.fileName).toBe('tiny-lab-b_utility.qrels');
  });

  it('keeps a manual override through a re-run (its revert target is refreshed) and keeps replaced imported labels', async () => {
    const repo = services.collections.repo;
    const llm = repo.getJudgment(collectionId, 'q1', 'd3', 'utility')!;
    repo.setManualJudgment(collectionId, 'q1', 'd3', 'utility', 1 - llm.label);
    // An imported label on another candidate: the run replaces it and keeps it in provenance.previous.
    repo.db.prepare(`UPDATE judgments SET source = 'import', label = 1, provenance = '{"generator":"paper"}' WHERE collection_id = ? AND query_id = 'q2' AND doc_id = 'd6'`).run(collectionId);

    const report = await label(request({ collectionId }));
    expect(report.calls.generated).toBe(0);
    expect(report.judgments).toMatchObject({ keptManual: 1, replacedImport: 1, unchanged: 12 });
    const manual = repo.getJudgment(collectionId, 'q1', 'd3', 'utility')!;
    expect(manual).toMatchObject({ label: 1 - llm.label, source: 'manual', provenance: { previous: { label: llm.label, source: 'llm', provenance: llm.provenance } } });
    const replaced = repo.getJudgment(collectionId, 'q2', 'd6', 'utility')!;
    expect(replaced.source).toBe('llm');
    expect(replaced.provenance.previous).toEqual({ label: 1, source: 'import', provenance: { generator: 'paper' } });
    expect(countRows(collectionId)).toBe(14);

    // The summary counts the override; the delta export reports the measurement under it.
    const q1 = services.labeling.summary(collectionId, 1).queries.find((q) => q.queryId === 'q1')!;
    expect(q1.sources).toEqual({ import: 0, llm: 3, manual: 1 });
    expect(services.labeling.export(collectionId, 'fairrag-delta', 0).content).toContain(`q1\td3\t${utilityOf(llm).utility}\t`);

    // Revert restores the LLM label.
    repo.setManualJudgment(collectionId, 'q1', 'd3', 'utility', null);
    expect(repo.getJudgment(collectionId, 'q1', 'd3', 'utility')).toMatchObject({ label: llm.label, source: 'llm' });
  });

  it('refuses bad requests through the API, naming the field', async () => {
    const router = createApiRouter(services);
    const base = { collectionId, generator: { kind: 'local', modelId } };
    expect(await router.call('labels.utility.start', { ...base, template: { augmented: '{{query}} {{docs}}' } })).toMatchObject({
      ok: false,
      error: { code: 'validation', field: 'template.augmented', message: expect.stringContaining('unknown placeholder {{docs}}') },
    });
    expect(await router.call('labels.utility.start', { ...base, template: { augmented: '{{query}}' } })).toMatchObject({
      ok: false,
      error: { field: 'template.augmented', message: expect.stringContaining('never shows the document') },
    });
    expect(await router.call('labels.utility.start', { ...base, queryIds: ['nope'] })).toMatchObject({ ok: false, error: { code: 'not-found', field: 'queryIds' } });
    expect(await router.call('labels.utility.start', { ...base, metric: 'rougeLsum', rougeImpl: 'pltrdy' })).toMatchObject({ ok: false, error: { code: 'validation', field: 'metric' } });
    expect(await router.call('labels.utility.start', { ...base, generator: { kind: 'local', modelId: 999 } })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await router.call('labels.utility.start', { ...base, queryIds: ['nocand', 'noanswer'] })).toMatchObject({
      ok: false,
      error: { code: 'invalid-data', message: 'nothing to label: every query is skipped (no candidates (choose a retrieval run for such queries); no reference answer)' },
    });
    const summary = await router.call('labels.utility.summary', { collectionId });
    expect(summary).toMatchObject({ ok: true, data: { minUseful: 2, totals: { labelled: 4 } } });
    const exported = await router.call('labels.export', { collectionId, format: 'fairrag-mapping', minUseful: 0 });
    expect(exported).toMatchObject({ ok: true, data: { fileName: 'tiny-lab_relevance_mapping.tsv', rows: 14, queries: 4 } });
  });

  it('takes the candidates of a query without any from a stored retrieval run', async () => {
    const run = await services.retrieval.createRun(RunSpec.parse({ collectionId, method: 'bm25', k: 5, name: 'bm25' }), { signal: new AbortController().signal, progress: () => {} });
    const top = services.retrieval.getRun(run.id, { queryId: 'nocand', perQuery: 2 }).queries[0]!.hits.map((h) => h.docId);
    expect(top).toHaveLength(2);
    const req = request({ collectionId, queryIds: ['nocand'], candidateRun: { runId: run.id, topN: 2 } });
    expect(services.labeling.preview(req)).toMatchObject({ queryId: 'nocand', augmentedDocId: top[0], plan: { queries: 1, calls: 3 } });
    const report = await label(req);
    expect(report.calls.total).toBe(3);
    expect(services.collections.repo.judgmentsOf(collectionId, 'nocand').map((j) => j.docId).sort()).toEqual([...top].sort());
  });

  it('labels with an OpenAI-compatible server through chat messages', async () => {
    const server = await FakeOpenAiServer.start({ models: ['lab-model'] });
    try {
      const remote = await services.models.addRemote({ name: 'lab', baseUrl: server.baseUrl, model: 'lab-model', serverKind: 'openai', maxConcurrency: 2 });
      const c = addLabelCollection(services, 'remote-lab', {}, 1, 2);
      // addRemote probed the server (serverProbe.ts): count the labeling's requests only.
      const probed = server.requestsTo('/v1/chat/completions').length;
      const report = await label(request({ collectionId: c, generator: { kind: 'remote', endpointId: remote.id }, chat: true, queryIds: ['q1'] }));
      expect(report.calls).toEqual({ total: 3, cached: 0, generated: 3 });
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(probed + 3);
      const j = services.collections.repo.judgmentsOf(c, 'q1')[0]!;
      expect(j.provenance).toMatchObject({ generator: { kind: 'remote', name: 'lab', model: 'lab-model' }, chat: true });
    } finally {
      await server.close();
    }
  });
  it('round-trips imported LaMP-2 labels through the Fair-RAG mapping export and relabels with the LaMP-2 prompt', async () => {
    const fix = (f: string) => join(process.cwd(), 'test', 'fixtures', 'collections', f);
    await services.collections.importFiles({ collectionName: 'lamp2', kind: 'lamp', files: [fix('lamp2_questions.json'), fix('lamp2_outputs.json')] });
    await services.collections.importFiles({ collectionName: 'lamp2', kind: 'fairrag-mapping', files: [fix('lamp2_relevance_mapping.tsv'), fix('lamp2_delta.tsv')] });
    const c = services.collections.byName('lamp2')!.id;
    // u2's p2 differs from u1's p2, so the importer stored it as 'u2/p2'; the export writes 'p2' again.
    expect(services.collections.repo.getQuery(c, 'u2')!.candidates).toEqual(['p1', 'u2/p2', 'p3']);
    const mapping = services.labeling.export(c, 'fairrag-mapping', 0);
    expect(mapping.content).toBe(readFileSync(fix('lamp2_relevance_mapping.tsv'), 'utf8'));

    const p = services.labeling.preview({ ...request({ collectionId: c }), previewQueryId: 'u2' });
    expect(p).toMatchObject({ templateName: 'fair-rag/LaMP-2', metric: 'accuracy', augmentedDocId: 'p1', plan: { queries: 2, calls: 7 } });
    expect(p.augmentedPrompt).toBe(`the tag for the movie: A dog learns to skateboard. is comedy. ${services.collections.repo.getQuery(c, 'u2')!.text}`);
    const report = await label(request({ collectionId: c }));
    expect(report.judgments).toMatchObject({ replacedImport: 5, written: 0 });
    const relabelled = services.labeling.export(c, 'fairrag-mapping', 0);
    expect(relabelled.content.split('\n').map((l) => l.split('\t').slice(0, 2).join('\t'))).toEqual(mapping.content.split('\n').map((l) => l.split('\t').slice(0, 2).join('\t')));
  });
  it('stops between calls when cancelled and resumes under the same id without redoing finished calls', async () => {
    // maxTokens 48 makes these calls new to the cache, and long enough (tens of ms each) that
    // progress events (throttled to one per 100 ms) arrive before the last call finishes.
    const req = request({ collectionId, maxTokens: 48, queryIds: ['q1', 'q2', 'q3'] });
    let job = services.labeling.start(req);
    const off = services.events.subscribe((e) => {
      if (e.event === 'job.updated' && e.payload.id === job.id && e.payload.progress >= 3 && e.payload.status === 'running') services.jobs.cancel(job.id);
    });
    job = await services.jobs.wait(job.id);
    off();
    expect(job).toMatchObject({ status: 'cancelled', resumable: true });
    expect(job.progress).toBeLessThan(15);
    const cached = cacheRows();
    const resumed = await services.jobs.wait(services.jobs.resume(job.id).id);
    expect(resumed).toMatchObject({ id: job.id, status: 'succeeded', progress: 15 });
    const report = resumed.result as UtilityLabelReport;
    expect(report.calls.cached).toBeGreaterThanOrEqual(3);
    expect(cacheRows()).toBe(cached + report.calls.generated);
  });
});
