import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunSpec } from '../../src-main/api/contract/retrieval';
import { createApiRouter } from '../../src-main/handlers/index';
import { bm25Scores } from '../../src-main/core/retrieval/bm25';
import { reciprocalRankFusion } from '../../src-main/core/retrieval/rrf';
import { parseRun, parseIrMetadataHeader } from '../../src-main/io/trec';
import { createAppServices } from '../../src-main/services/appServices';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';
import { RetrievalService } from '../../src-main/services/retrievalService';
import type { Workspace } from '../../src-main/store/workspace';
import { ZOO, addCollection, addDocuments, addQueries, openTestWorkspace } from './fixture';
import { HashingEngine } from './hashingEngine';

let ws: Workspace;
let jobs: JobRunner;
let engine: HashingEngine;
let service: RetrievalService;
let zoo: number;

const ctx = () => ({ signal: new AbortController().signal, progress: () => {} });
const spec = (s: Record<string, unknown>) => RunSpec.parse(s);

beforeEach(() => {
  ws = openTestWorkspace();
  jobs = new JobRunner(ws.db, new EventBus());
  engine = new HashingEngine();
  service = new RetrievalService(ws.db, jobs, { openEngine: async () => engine });
  zoo = addCollection(ws.db, 'zoo');
  addDocuments(ws.db, zoo, ZOO);
  addQueries(ws.db, zoo, [
    { queryId: 'q1', text: 'penguins' },
    { queryId: 'q2', text: 'birds bees', candidates: ['z1', 'z2', 'z5'] },
    { queryId: 'q3', text: '?!' },
    { queryId: 'q4', text: 'eagles hunt fish' },
  ]);
});
afterEach(async () => {
  await jobs.shutdown();
  await service.close();
  ws.close();
});

describe('BM25 runs', () => {
  it('FTS5 for whole-collection queries, in-memory BM25 over candidates, nothing for term-less queries', async () => {
    const run = await service.createRun(spec({ collectionId: zoo, method: 'bm25', k: 10 }), ctx());
    expect(run).toMatchObject({ name: 'bm25', method: 'bm25', queries: 3 });
    const results = service.repo.results(run.id);
    const byQuery = (q: string) => results.filter((r) => r.queryId === q);
    expect(byQuery('q1').map((r) => r.docId)).toEqual(['z3', 'z1']);
    expect(byQuery('q3')).toEqual([]);
    expect(byQuery('q4').map((r) => r.docId)).toEqual(['z2', 'z4']);
    // q2 ranks exactly its 3 candidates with rank_bm25 BM25Okapi over "title text"
    const texts = ['z1', 'z2', 'z5'].map((id) => ZOO.find((d) => d.docId === id)!).map((d) => `${d.title} ${d.text}`);
    const scores = bm25Scores('birds bees', texts);
    const expected = ['z1', 'z2', 'z5'].map((id, i) => ({ id, score: scores[i]! })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    expect(byQuery('q2').map((r) => [r.docId, r.score])).toEqual(expected.map((e) => [e.id, e.score]));
    expect(byQuery('q2').map((r) => r.rank)).toEqual([1, 2, 3]);
    expect(expected[0]!.id).toBe('z5');
  });

  it('k truncates, names are numbered, a taken name is refused, parameters are stored', async () => {
    const a = await service.createRun(spec({ collectionId: zoo, method: 'bm25', k: 1, candidates: { idf: 'lucene', tokenizer: 'whitespace' } }), ctx());
    const b = await service.createRun(spec({ collectionId: zoo, method: 'bm25', k: 1 }), ctx());
    expect([a.name, b.name]).toEqual(['bm25', 'bm25-2']);
    expect(service.repo.results(a.id).every((r) => r.rank === 1)).toBe(true);
    expect(a.params).toMatchObject({ k: 1, candidates: { idf: 'lucene', tokenizer: 'whitespace', k1: 1.5, b: 0.75 } });
    await expect(service.createRun(spec({ collectionId: zoo, method: 'bm25', name: 'bm25' }), ctx())).rejects.toThrow(/already exists/);
  });

  it('stop words and stemming are opt-in for candidate sets', async () => {
    addDocuments(ws.db, zoo, [
      { docId: 'c1', text: 'the penguin' },
      { docId: 'c2', text: 'the penguins are here' },
      { docId: 'c3', text: 'a fox' },
    ]);
    addQueries(ws.db, zoo, [{ queryId: 'qs', text: 'the penguins', candidates: ['c1', 'c2', 'c3'] }]);
    const plain = await service.createRun(spec({ collectionId: zoo, method: 'bm25' }), ctx());
    const stemmed = await service.createRun(spec({ collectionId: zoo, method: 'bm25', candidates: { stem: true, stopwords: 'english' } }), ctx());
    const scores = (runId: number) => Object.fromEntries(service.repo.results(runId, { queryId: 'qs' }).map((r) => [r.docId, r.score]));
    // plain: "penguins" only in c2; stemmed: penguin(s) in c1 and c2, "the" dropped
    expect(scores(plain.id).c1).toBeCloseTo(bm25Scores('the penguins', ['the penguin', 'the penguins are here', 'a fox'])[0]!, 12);
    const s = scores(stemmed.id);
    expect(s.c1).toBeGreaterThan(s.c2!); // same tf, c1 shorter (2 tokens → 1 after stop words)
    expect(s.c3).toBe(0);
    expect(stemmed.params).toMatchObject({ candidates: { stem: true, stopwords: 'english' } });
  });

  it('an unknown candidate id is a data error, an unknown collection is not found', async () => {
    addQueries(ws.db, zoo, [{ queryId: 'bad', text: 'x', candidates: ['nope'] }]);
    await expect(service.createRun(spec({ collectionId: zoo, method: 'bm25' }), ctx())).rejects.toMatchObject({ code: 'invalid-data' });
    expect(() => service.search({ collectionId: 999, query: 'x', k: 1, weights: { title: 1, text: 1 } })).toThrow(/no collection/);
  });
});

describe('dense runs and RRF', () => {
  it('a dense run needs a built set; candidates restrict the ranking', async () => {
    await expect(service.createRun(spec({ collectionId: zoo, method: 'dense', model: 'hash' }), ctx())).rejects.toMatchObject({ code: 'conflict' });
    const built = await service.buildDense({ collectionId: zoo, model: 'hash', metric: 'cosine', batchSize: 2 }, ctx());
    expect(built).toMatchObject({ embedded: 5, skipped: 0, total: 5, dimensions: 32 });
    expect(service.embeddingSets(zoo)).toMatchObject([{ status: 'ready', vectors: 5, documents: 5, modelKey: 'hashing-32' }]);
    const run = await service.createRun(spec({ collectionId: zoo, method: 'dense', model: 'hash', k: 3 }), ctx());
    const results = service.repo.results(run.id);
    expect(new Set(results.filter((r) => r.queryId === 'q2').map((r) => r.docId))).toEqual(new Set(['z1', 'z2', 'z5']));
    expect(results.filter((r) => r.queryId === 'q1')[0]!.docId).toMatch(/z[13]/); // the penguin documents share its only word
    expect(results.filter((r) => r.queryId === 'q3')).toHaveLength(3); // words-free query still embeds ("?!" is not blank)
    expect(run.params).toMatchObject({ metric: 'cosine', modelKey: 'hashing-32', dimensions: 32 });
    const again = await service.buildDense({ collectionId: zoo, model: 'hash', metric: 'cosine', batchSize: 2 }, ctx());
    expect(again).toMatchObject({ embedded: 0, skipped: 5 });
  });

  it('RRF of two stored runs equals core RRF of their rankings', async () => {
    const bm25 = await service.createRun(spec({ collectionId: zoo, method: 'bm25' }), ctx());
    await service.buildDense({ collectionId: zoo, model: 'hash', metric: 'cosine', batchSize: 16 }, ctx());
    const dense = await service.createRun(spec({ collectionId: zoo, method: 'dense', model: 'hash', metric: 'dot' }), ctx());
    const fused = await service.createRun(spec({ collectionId: zoo, method: 'rrf', runIds: [bm25.id, dense.id], k: 4 }), ctx());
    const lists = (runId: number, q: string) => service.repo.results(runId, { queryId: q }).map((r) => r.docId);
    for (const q of ['q1', 'q2', 'q4']) {
      const want = reciprocalRankFusion([lists(bm25.id, q), lists(dense.id, q)]).slice(0, 4);
      expect(service.repo.results(fused.id, { queryId: q }).map((r) => [r.docId, r.score])).toEqual(want.map((w) => [w.id, w.score]));
    }
    // q3 is only in the dense run: fused from that one list
    expect(service.repo.results(fused.id, { queryId: 'q3' }).length).toBeGreaterThan(0);
    await expect(service.createRun(spec({ collectionId: zoo, method: 'rrf', runIds: [bm25.id, bm25.id] }), ctx())).rejects.toThrow(/twice/);
  });

  it('dense build runs as a cancellable, resumable job', async () => {
    // Call 1 is the probe that learns the dimension, then one document per call; the cancel arrives
    // during call 3 (document 2), whose vector is still stored; the loop stops before document 3.
    let jobId = '';
    engine.afterCall = (calls) => {
      if (calls === 3) jobs.cancel(jobId);
    };
    const job = service.startDenseBuild({ collectionId: zoo, model: 'hash', metric: 'cosine', batchSize: 1 });
    jobId = job.id;
    const done = await jobs.wait(job.id);
    expect(done.status).toBe('cancelled');
    const [set] = service.embeddingSets(zoo);
    expect(set!.status).toBe('partial');
    expect(set!.vectors).toBe(2);
    engine.afterCall = undefined;
    const resumed = await jobs.wait(jobs.resume(job.id).id); // the job tray's Resume: same id, stored params
    expect(resumed.id).toBe(job.id);
    expect(resumed.status).toBe('succeeded');
    expect((resumed.result as { skipped: number }).skipped).toBe(set!.vectors);
    expect(service.embeddingSets(zoo)[0]).toMatchObject({ status: 'ready', vectors: 5 });
  });
});

describe('runs as data: get, list, export, delete', () => {
  it('exports a TREC run that reads back in the stored order with strictly decreasing scores', async () => {
    const run = await service.createRun(spec({ collectionId: zoo, method: 'bm25', name: 'my bm25' }), ctx());
    const { text, tag, filename } = service.exportTrec(run.id, { metadata: true });
    expect(tag).toBe('my_bm25');
    expect(filename).toBe('my_bm25.trec');
    expect(parseIrMetadataHeader(text)).toMatchObject({ tag: 'my_bm25', method: { retrieval: 'bm25' }, data: { collection: 'zoo' } });
    const rows = parseRun(text);
    const stored = service.repo.results(run.id);
    expect(rows.map((r) => [r.qid, r.docno, r.rank])).toEqual(stored.map((r) => [r.queryId, r.docId, r.rank]));
    for (let i = 1; i < rows.length; i++) if (rows[i]!.qid === rows[i - 1]!.qid) expect(rows[i]!.score).toBeLessThan(rows[i - 1]!.score);
    expect(service.exportTrec(run.id, { metadata: false, tag: 'x' }).text.startsWith('q1 Q0 z3 1 ')).toBe(true);
  });

  it('the stored run and the export carry the real scores, tied documents in trec_eval order (docno descending) (#16.1, #34.1)', async () => {
    addDocuments(ws.db, zoo, [
      { docId: 'twin-a', text: 'quokka' },
      { docId: 'twin-b', text: 'quokka' },
    ]);
    addQueries(ws.db, zoo, [{ queryId: 'q5', text: 'quokka' }]);
    const run = await service.createRun(spec({ collectionId: zoo, method: 'bm25' }), ctx());
    const q5 = service.repo.results(run.id, { queryId: 'q5' });
    // Stored in the one rank order too (issue 34: before, the stored run had twin-a first).
    expect(q5.map((r) => r.docId)).toEqual(['twin-b', 'twin-a']);
    expect(q5[0]!.score).toBe(q5[1]!.score);
    const text = service.exportTrec(run.id, { metadata: false }).text;
    const lines = text.split('\n').filter((l) => l.startsWith('q5 '));
    // Before: 'q5 Q0 twin-a 1 2 bm25', 'q5 Q0 twin-b 2 1 bm25' (rank numbers instead of BM25 scores).
    expect(lines).toEqual([`q5 Q0 twin-b 1 ${q5[0]!.score} bm25`, `q5 Q0 twin-a 2 ${q5[0]!.score} bm25`]);
    // Every exported score is the stored score, bit for bit, and the file reads with a strict six-column reader.
    const stored = new Map(service.repo.results(run.id).map((r) => [`${r.queryId} ${r.docId}`, r.score]));
    const back = parseRun(text, 'export', { columns: 'strict' });
    expect(back.length).toBe(stored.size);
    for (const r of back) expect(r.score).toBe(stored.get(`${r.qid} ${r.docno}`));
  });

  it('get returns the top hits per query with titles and query texts; list and delete', async () => {
    const run = await service.createRun(spec({ collectionId: zoo, method: 'bm25' }), ctx());
    const got = service.getRun(run.id, { perQuery: 1 });
    expect(got.queries.map((q) => [q.queryId, q.text, q.hits.length])).toEqual([
      ['q1', 'penguins', 1],
      ['q2', 'birds bees', 1],
      ['q4', 'eagles hunt fish', 1],
    ]);
    expect(got.queries[0]!.hits[0]).toMatchObject({ rank: 1, docId: 'z3', title: 'Penguin colonies' });
    expect(service.getRun(run.id, { perQuery: 10, queryId: 'q2' }).queries[0]!.hits).toHaveLength(3);
    expect(service.listRuns(zoo).map((r) => r.id)).toEqual([run.id]);
    expect(service.deleteRun(run.id)).toBe(true);
    expect(service.repo.results(run.id)).toEqual([]);
    expect(() => service.getRun(run.id, { perQuery: 1 })).toThrow(/no retrieval run/);
  });
});

describe('over the API router', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('search, runs.create (a job), runs.get, runs.exportTrec, and typed errors', async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-retrieval-'));
    const services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
    try {
      const c = addCollection(services.workspace.db, 'zoo');
      addDocuments(services.workspace.db, c, ZOO);
      addQueries(services.workspace.db, c, [{ queryId: 'q1', text: 'penguins' }]);
      const router = createApiRouter(services);
      const search = await router.call('retrieval.search', { collectionId: c, query: 'Penguins NEAR( "colony*' });
      expect(search).toMatchObject({ ok: true, data: { terms: ['Penguins', 'NEAR', 'colony'] } });
      const hits = (search as { data: { hits: { docId: string; snippetHtml: string }[] } }).data.hits;
      expect(hits[0]!.docId).toBe('z3');
      expect(hits[0]!.snippetHtml).toContain('<mark>');
      const bad = await router.call('retrieval.search', { collectionId: c, query: 'x', k: 0 });
      expect(bad).toMatchObject({ ok: false, error: { code: 'validation', field: 'k' } });
      const job = (await router.call('retrieval.runs.create', { collectionId: c, method: 'bm25', k: 5 })) as { ok: true; data: { id: string } };
      expect(job.ok).toBe(true);
      const finished = await services.jobs.wait(job.data.id);
      expect(finished.status).toBe('succeeded');
      const runId = (finished.result as { id: number }).id;
      const got = await router.call('retrieval.runs.get', { runId });
      expect(got).toMatchObject({ ok: true, data: { run: { name: 'bm25', queries: 1 }, queries: [{ queryId: 'q1', hits: [{ docId: 'z3' }, { docId: 'z1' }] }] } });
      const exported = await router.call('retrieval.runs.exportTrec', { runId, metadata: false });
      expect(exported).toMatchObject({ ok: true, data: { tag: 'bm25' } });
      expect((exported as { data: { text: string } }).data.text.split('\n')[0]).toMatch(/^q1 Q0 z3 1 [0-9.e-]+ bm25$/);
      expect(await router.call('retrieval.runs.list', {})).toMatchObject({ ok: true, data: [{ id: runId }] });
      expect(await router.call('retrieval.runs.get', { runId: 999 })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      expect(await router.call('retrieval.dense.sets', {})).toEqual({ ok: true, data: [] });
    } finally {
      await services.close();
    }
  });
});
