/**
 * collections.importBundle through the router on a real in-memory workspace (issue 17 item 4: one
 * import takes a corpus, queries and qrels together): paths and uploads in one job, one commit;
 * a bad line in the qrels fails the job naming file and line, and nothing is written, not even
 * the collection.
 */
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ImportReport, Job } from '../../src-main/api/contract/index';
import { createApiRouter } from '../../src-main/handlers/index';
import type { Router } from '../../src-main/api/router';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';

const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');
let services: AppServices;
let router: Router;

beforeEach(async () => {
  await services?.close();
  services = createAppServices(':memory:', { transport: 'http' });
  services.paths.setAllowedFolders([FIX]);
  router = createApiRouter(services, (err) => {
    throw err;
  });
});
afterAll(async () => {
  await services?.close();
});

async function call<T = unknown>(method: string, input: unknown): Promise<T> {
  const env = await router.call(method, input);
  if (!env.ok) throw Object.assign(new Error(env.error.message), { body: env.error });
  return env.data as T;
}
async function callError(method: string, input: unknown) {
  const env = await router.call(method, input);
  if (env.ok) throw new Error(`${method} succeeded`);
  return env.error;
}

describe('collections.importBundle', () => {
  it('imports a corpus, its queries and qrels from paths as one job into a new collection', async () => {
    const job = await call<Job>('collections.importBundle', {
      collectionName: 'Energy',
      corpus: { path: join(FIX, 'corpus.jsonl') },
      queries: { path: join(FIX, 'queries.jsonl') },
      qrels: { path: join(FIX, 'qrels.txt') },
    });
    expect(job).toMatchObject({ kind: 'collections.importBundle', title: 'Import corpus, queries, qrels into Energy' });
    const done = await services.jobs.wait(job.id);
    expect(done.status).toBe('succeeded');
    const report = done.result as ImportReport;
    // corpus.jsonl: d1, d2, d3 and 4; queries.jsonl: q1, q2; qrels.txt: 5 judgment lines, of which only 'd99' names no document.
    expect(report).toMatchObject({ created: true, documents: { added: 4 }, queries: { added: 2 }, judgments: { added: 5, unknownDocuments: 1, unknownQueries: 0 } });
    expect(report.files.map((f) => [f.file, f.kind, f.rows])).toEqual([
      [join(FIX, 'corpus.jsonl'), 'corpus', 4],
      [join(FIX, 'queries.jsonl'), 'queries', 2],
      [join(FIX, 'qrels.txt'), 'qrels', 5],
    ]);
    expect(await call('collections.list', {})).toEqual([expect.objectContaining({ name: 'Energy', counts: { documents: 4, queries: 2, judgments: 5 } })]);
    // The judgments of q1 point at the documents imported in the same job.
    const q1 = await call<{ documents: { doc: { docId: string }; missing: boolean; judgments: { label: number }[] }[] }>('queries.get', { collectionId: report.collectionId, queryId: 'q1' });
    expect(q1.documents.map((d) => [d.doc.docId, d.missing, d.judgments[0]?.label])).toEqual([
      ['d1', false, 2],
      ['d2', false, 0],
    ]);
  });

  it('a bad qrels line fails the job with file and line, and creates nothing', async () => {
    const job = await call<Job>('collections.importBundle', {
      collectionName: 'Broken',
      corpus: { file: { name: 'docs.jsonl', content: '{"id":"a","text":"x"}\n{"id":"b","text":"y"}\n' } },
      queries: { file: { name: 'q.csv', content: 'id,text\nq1,what\n' } },
      qrels: { file: { name: 'bad.qrels', content: 'q1 0 a 1\nq1 0 b\n' } },
    });
    const done = await services.jobs.wait(job.id);
    expect(done).toMatchObject({ status: 'failed', error: expect.stringMatching(/^bad\.qrels:2: /) });
    expect(await call('collections.list', {})).toEqual([]);
  });

  it('refuses a part with neither or both of path and file, and a path outside the allowed folders', async () => {
    expect(await callError('collections.importBundle', { collectionName: 'X', corpus: {} })).toMatchObject({ code: 'validation', field: 'corpus.path' });
    expect(await callError('collections.importBundle', { collectionName: 'X', corpus: { path: '/etc/hostname' } })).toMatchObject({ field: 'corpus.path' });
    expect(await call('collections.list', {})).toEqual([]);
  });
});
