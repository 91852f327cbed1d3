/**
 * The collections API through the router (contract validation, handlers, service, jobs) on a real
 * in-memory workspace: imports as jobs from paths and from uploaded contents, errors with file and
 * line, previews, browsing and manual labels.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { ImportReport, Job } from '../../src-main/api/contract/index';
import { createApiRouter } from '../../src-main/handlers/index';
import type { Router } from '../../src-main/api/router';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';

const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');
const tmp = mkdtempSync(join(tmpdir(), 'fg-coll-svc-'));
let services: AppServices;
let router: Router;

beforeEach(async () => {
  await services?.close();
  services = createAppServices(':memory:', { transport: 'http' });
  // Browser mode reads files only under allowed folders (issue 15); an in-memory workspace has no folder of its own.
  services.paths.setAllowedFolders([FIX, tmp]);
  router = createApiRouter(services, (err) => {
    throw err;
  });
});
afterAll(async () => {
  await services?.close();
  rmSync(tmp, { recursive: true, force: true });
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
async function finished(job: Job): Promise<Job> {
  return services.jobs.wait(job.id);
}

describe('collections API', () => {
  it('imports files by path as a job and lists the collection with counts', async () => {
    const job = await call<Job>('collections.import', { collectionName: 'News', kind: 'corpus', files: [join(FIX, 'corpus.jsonl')] });
    expect(job).toMatchObject({ kind: 'collections.import', title: 'Import corpus into News', status: 'running' });
    const done = await finished(job);
    expect(done.status).toBe('succeeded');
    const report = done.result as ImportReport;
    expect(report).toMatchObject({ created: true, noop: false, documents: { added: 4 }, message: "added 4 documents to 'News'" });
    expect(await call('collections.list', {})).toEqual([
      { id: report.collectionId, name: 'News', description: '', contentHash: report.contentHash, createdAt: expect.any(String), counts: { documents: 4, queries: 0, judgments: 0 } },
    ]);
    const detail = await call<{ providers: unknown; sources: unknown[] }>('collections.get', { id: report.collectionId });
    expect(detail.providers).toEqual([
      { value: 'coastal-news', count: 2 },
      { value: 'home-energy', count: 2 },
    ]);
    expect(detail.sources).toHaveLength(1);
    // One that a running (or dead) import is still filling is not offered.
    services.collections.repo.create('News 2 (importing 4194999-1)');
    expect((await call<{ name: string }[]>('collections.list', {})).map((c) => c.name)).toEqual(['News']);
  });

  it('refuses relative paths and unreadable files before starting a job', async () => {
    expect(await callError('collections.import', { collectionName: 'X', kind: 'corpus', files: ['rel/corpus.jsonl'] })).toMatchObject({ code: 'validation', field: 'files[0]' });
    const missing = join(tmp, 'nope.jsonl');
    expect(await callError('collections.import', { collectionName: 'X', kind: 'corpus', files: [missing] })).toMatchObject({
      code: 'not-found',
      field: 'files[0]',
      message: `files[0]: no such file: ${missing}`,
    });
    // Outside the allowed folders, and not a regular file: refused before any job (issue 15).
    expect(await callError('collections.import', { collectionName: 'X', kind: 'corpus', files: ['/etc/passwd'] })).toMatchObject({ code: 'forbidden', field: 'files[0]' });
    expect(await callError('collections.import', { collectionName: 'X', kind: 'corpus', files: ['/dev/zero'] })).toMatchObject({ code: 'forbidden', field: 'files[0]' });
    expect(services.jobs.list()).toEqual([]);
  });

  it('imports uploaded contents (utf8 and base64) and reports invalid UTF-8 with its line', async () => {
    const text = '{"id": "a", "text": "eins"}\n{"id": "b", "text": "zwei"}\n';
    const job = await call<Job>('collections.importText', { collectionName: 'Up', kind: 'corpus', files: [{ name: 'docs.jsonl', content: Buffer.from(text).toString('base64'), encoding: 'base64' }] });
    const report = (await finished(job)).result as ImportReport;
    expect(report.files).toEqual([{ file: 'docs.jsonl', kind: 'corpus', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), rows: 2, importedAt: expect.any(String) }]);
    // The job parameters keep the file name, not the content.
    expect(JSON.stringify(services.workspace.db.prepare(`SELECT params FROM jobs WHERE id = ?`).get(job.id))).not.toContain('eins');
    const bad = Buffer.concat([Buffer.from('{"id": "c", "text": "ok"}\n{"id": "d", "text": "'), Buffer.from([0xff]), Buffer.from('"}\n')]);
    expect(await callError('collections.importText', { collectionName: 'Up', kind: 'corpus', files: [{ name: 'bad.jsonl', content: bad.toString('base64'), encoding: 'base64' }] })).toMatchObject({
      code: 'invalid-data',
      file: 'bad.jsonl',
      line: 2,
    });
  });

  it('a malformed line fails the job with file and line, and changes nothing', async () => {
    const first = await finished(await call<Job>('collections.importText', { collectionName: 'Up', kind: 'corpus', files: [{ name: 'a.jsonl', content: '{"id":"a","text":"x"}\n' }] }));
    const before = await call('collections.list', {});
    const job = await finished(await call<Job>('collections.importText', { collectionName: 'Up', kind: 'corpus', files: [{ name: 'b.jsonl', content: '{"id":"b","text":"y"}\n{"id":"c",\n' }] }));
    expect(first.status).toBe('succeeded');
    expect(job).toMatchObject({ status: 'failed', error: expect.stringMatching(/^b\.jsonl:2: invalid JSON/) });
    expect(await call('collections.list', {})).toEqual(before);
  });

  it('previews an upload: columns, first rows and the guessed mapping', async () => {
    const preview = await call<{ format: string; columns: string[]; rows: unknown[]; suggested: unknown }>('collections.previewFile', {
      kind: 'corpus',
      file: { name: 'c.csv', content: 'doc,headline,body,provider\nc1,"Rain, again","Wet ""day""",w\n' },
    });
    expect(preview).toMatchObject({
      format: 'csv',
      columns: ['doc', 'headline', 'body', 'provider'],
      rows: [{ doc: 'c1', headline: 'Rain, again', body: 'Wet "day"', provider: 'w' }],
      suggested: { idColumn: 'doc', textColumn: 'body', titleColumn: 'headline' },
    });
    expect(await callError('collections.previewFile', { kind: 'corpus' })).toMatchObject({ code: 'validation' });
  });

  it('browses documents and queries, and overrides a label by hand', async () => {
    const files = ['lamp2_questions.json', 'lamp2_outputs.json'].map((f) => join(FIX, f));
    const r = (await finished(await call<Job>('collections.import', { collectionName: 'LaMP', kind: 'lamp', files }))).result as ImportReport;
    await finished(await call<Job>('collections.import', { collectionName: 'LaMP', kind: 'fairrag-mapping', files: [join(FIX, 'lamp2_relevance_mapping.tsv')] }));
    const id = r.collectionId;
    const page = await call<{ total: number; items: { docId: string }[] }>('documents.list', { collectionId: id, offset: 1, limit: 2 });
    expect(page).toMatchObject({ total: 4, items: [{ docId: 'p2' }, { docId: 'u2/p2' }] });
    expect(await call('documents.get', { collectionId: id, docId: 'p3' })).toMatchObject({ text: 'Two astronomers share one telescope.' });
    expect(await callError('documents.get', { collectionId: id, docId: 'zz' })).toMatchObject({ code: 'not-found' });
    expect(await call('queries.list', { collectionId: id })).toMatchObject({ total: 2, items: [{ queryId: 'u1', candidateCount: 2, judged: 2, positive: 1 }, { queryId: 'u2', positive: 2 }] });
    const q = await call<{ documents: { doc: { docId: string }; judgments: { label: number; source: string }[] }[] }>('queries.get', { collectionId: id, queryId: 'u2' });
    expect(q.documents.map((d) => [d.doc.docId, d.judgments.map((j) => j.label)])).toEqual([
      ['p1', [0]],
      ['u2/p2', [1]],
      ['p3', [1]],
    ]);
    const set = await call<{ judgment: { label: number; source: string; provenance: unknown }; contentHash: string }>('judgments.setManual', {
      collectionId: id,
      queryId: 'u2',
      docId: 'p1',
      kind: 'utility',
      label: 1,
    });
    expect(set.judgment).toMatchObject({ label: 1, source: 'manual', provenance: { previous: { label: 0, source: 'import' } } });
    expect(set.contentHash).not.toBe(r.contentHash);
    const back = await call<{ judgment: { label: number; source: string } }>('judgments.setManual', { collectionId: id, queryId: 'u2', docId: 'p1', kind: 'utility', label: null });
    expect(back.judgment).toMatchObject({ label: 0, source: 'import' });
    expect(await callError('judgments.setManual', { collectionId: id, queryId: 'nope', docId: 'p1', kind: 'utility', label: 1 })).toMatchObject({ code: 'not-found', field: 'queryId' });
  });

  it('creates (unique names) and deletes collections', async () => {
    const c = await call<{ id: number }>('collections.create', { name: 'Empty' });
    expect(await callError('collections.create', { name: 'Empty' })).toMatchObject({ code: 'conflict', field: 'name' });
    expect(await callError('collections.create', { name: '  ' })).toMatchObject({ code: 'validation', field: 'name' });
    expect(await call('collections.delete', { id: c.id })).toEqual({ deleted: true });
    expect(await callError('collections.get', { id: c.id })).toMatchObject({ code: 'not-found' });
  });

  it('a cancelled import writes nothing and can be resumed from its parameters', async () => {
    const big = join(tmp, 'big.jsonl');
    writeFileSync(big, Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: `d${i}`, text: 'some text' })).join('\n'));
    const job = await call<Job>('collections.import', { collectionName: 'Big', kind: 'corpus', files: [big] });
    await call('jobs.cancel', { id: job.id });
    expect(await finished(job)).toMatchObject({ status: 'cancelled', resumable: true });
    expect(await call('collections.list', {})).toEqual([]);
    services.jobs.resume(job.id);
    expect(await finished(job)).toMatchObject({ status: 'succeeded', result: { documents: { added: 5000 } } });
  });

  it('uploads are a job kind of their own that cannot be resumed', async () => {
    const job = await finished(await call<Job>('collections.importText', { collectionName: 'U', kind: 'corpus', files: [{ name: 'x.jsonl', content: '{"id":"a","text":"b"}' }] }));
    expect(job).toMatchObject({ kind: 'collections.importText', status: 'succeeded', resumable: false });
  });
});
