/**
 * Issue 26 item 7: collections.previewFile returns a preview only of a file that parses as the
 * chosen kind. Through the router (contract, handler, service) on files on disk: a text file as
 * TSV with no tab, a CSV with a wrong column count, a binary file, a key file and a prose file as
 * qrels, a prose file as LaMP, and an empty file are refused with an error naming file, line and
 * field, and no line of the file comes back; real files of each kind still preview.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from '../../src-main/api/router';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';

const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');
const tmp = mkdtempSync(join(tmpdir(), 'fg-preview-'));
let services: AppServices;
let router: Router;

const KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACBXcEhrbXpKUnNNbEpmY2t3eU5nQ1NxbGtPb0pEcUpBZQAAAJgAAAAAAAAA',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');

beforeAll(() => {
  services = createAppServices(':memory:', { transport: 'http' });
  services.paths.setAllowedFolders([FIX, tmp]);
  router = createApiRouter(services, (err) => {
    throw err;
  });
  writeFileSync(join(tmp, 'notes.tsv'), 'Dear diary\nToday I wrote a secret: hunter2\nand nothing else\n');
  writeFileSync(join(tmp, 'ragged.csv'), 'id,text\nd1,one\nd2,two,three\n');
  writeFileSync(join(tmp, 'blob.tsv'), Buffer.from([0x69, 0x64, 0x09, 0x74, 0x65, 0x78, 0x74, 0x0a, 0x00, 0x01, 0x02, 0x09, 0x7f, 0x0a]));
  writeFileSync(join(tmp, 'id_ed25519'), `${KEY}\n`);
  writeFileSync(join(tmp, 'secret.key'), `${'k'.repeat(44)}\n`);
  writeFileSync(join(tmp, 'empty.tsv'), '');
  writeFileSync(join(tmp, 'good.tsv'), 'id\ttext\nd1\tRain again\n');
  writeFileSync(join(tmp, 'good.qrels'), 'q1 0 d1 1\nq1 0 d2 0\n');
  writeFileSync(join(tmp, 'late.qrels'), 'q1 0 d1 1\nq1 0 d2 0\nDear diary hunter2\nq2 0 d3 1\n');
  // Issue 36 item 2: files that begin like JSON but are not LaMP, and credential-like text as a corpus.
  writeFileSync(join(tmp, 'credentials'), '[default]\naws_access_key_id = AKIAhunter2\naws_secret_access_key = hunter2\n');
  writeFileSync(join(tmp, 'config.json'), '{"auths": {"https://index.docker.io/v1/": {"auth": "aHVudGVyMg==hunter2"}}}\n');
  writeFileSync(join(tmp, 'netrc'), 'machine api.example.com login bob password hunter2\n');
  writeFileSync(join(tmp, 'header-only.tsv'), 'user\thunter2\n');
  writeFileSync(join(tmp, 'spaced.qrels'), 'q1\t0\td1\t1\nq1   0   d2   0\n');
  // A LaMP questions file cut short (as an upload's first 256 KB is): the whole questions before the cut.
  const lamp = readFileSync(join(FIX, 'lamp2_questions.json'), 'utf8');
  writeFileSync(join(tmp, 'cut_questions.json'), lamp.slice(0, lamp.indexOf('"id": "u2"') + 20));
  writeFileSync(join(tmp, 'bad_second.json'), '[{"id": "u1", "input": "Plain hello", "profile": []},\n {"id": "u 2", "input": "hunter2", "profile": []}]\n');
});
afterAll(async () => {
  await services?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function preview(kind: string, file: string) {
  const env = await router.call('collections.previewFile', { kind, path: join(tmp, file) });
  return env;
}

async function refused(kind: string, file: string): Promise<{ message: string; field?: string | undefined }> {
  const env = await preview(kind, file);
  if (env.ok) throw new Error(`previewed ${file} as ${kind}: ${JSON.stringify(env.data)}`);
  expect(JSON.stringify(env.error)).not.toContain('hunter2');
  expect(JSON.stringify(env.error)).not.toContain('b3BlbnNzaC1rZXkt');
  expect(env.error.message).toContain(file);
  return env.error;
}

describe('previewFile refuses files that do not parse as the chosen kind', () => {
  it('a prose file as TSV (no tab): one column is not a corpus', async () => {
    const e = await refused('corpus', 'notes.tsv');
    expect(e.message).toMatch(/notes\.tsv:1: .*1 column \(no tab on the first line\).*needs an id and a text column/);
    expect(e.field).toBe('columns');
    await refused('queries', 'notes.tsv');
  });

  it('a CSV with a wrong column count on line 3', async () => {
    const e = await refused('corpus', 'ragged.csv');
    expect(e.message).toMatch(/ragged\.csv:3: .*expected 2 columns/);
  });

  it('a binary file: control characters, named with their line', async () => {
    const e = await refused('corpus', 'blob.tsv');
    expect(e.message).toMatch(/blob\.tsv:2: file: not a text file \(control character U\+0000\)/);
    await refused('qrels', 'blob.tsv');
  });

  it('a key file and a prose file as qrels, LaMP, the Fair-RAG mapping or MS MARCO', async () => {
    for (const kind of ['qrels', 'fairrag-mapping', 'msmarco', 'lamp', 'corpus']) {
      await refused(kind, 'id_ed25519');
      await refused(kind, 'notes.tsv');
    }
    await refused('qrels', 'secret.key');
    await refused('corpus', 'secret.key');
  });

  it('a qrels file with a bad line after good ones previews only the lines before it (the import names the bad line)', async () => {
    const q = await preview('qrels', 'late.qrels');
    expect(q.ok && q.data).toMatchObject({ format: 'text', lines: ['q1 0 d1 1', 'q1 0 d2 0'] });
    expect(JSON.stringify(q)).not.toContain('hunter2');
  });

  it('an empty file', async () => {
    expect((await refused('qrels', 'empty.tsv')).message).toMatch(/empty/);
  });

  it('files of the chosen kind still preview', async () => {
    const t = await preview('corpus', 'good.tsv');
    expect(t.ok && t.data).toMatchObject({ format: 'tsv', columns: ['id', 'text'], rows: [{ id: 'd1', text: 'Rain again' }] });
    const q = await preview('qrels', 'good.qrels');
    expect(q.ok && q.data).toMatchObject({ format: 'text', lines: ['q1 0 d1 1', 'q1 0 d2 0'] });
    const env = await router.call('collections.previewFile', { kind: 'corpus', path: join(FIX, 'corpus.jsonl') });
    expect(env.ok).toBe(true);
  });
});

/** The preview's lines; the error's message when it was refused. */
function linesOf(env: Awaited<ReturnType<Router['call']>>): string[] {
  if (!env.ok) throw new Error(env.error.message);
  return (env.data as { lines: string[] }).lines;
}

describe('a preview is built from parsed records only, never raw lines (issue 36 item 2)', () => {
  it('a file that begins with [ or { but is not LaMP is refused as LaMP, naming its line, quoting none of it', async () => {
    const aws = await refused('lamp', 'credentials');
    expect(aws.message).toMatch(/credentials:1: invalid JSON/);
    const docker = await refused('lamp', 'config.json');
    expect(docker.message).toMatch(/config\.json: golds: missing/);
  });

  it('credential-like text as a corpus or queries is refused at line 1; a header with no row is not a corpus', async () => {
    expect((await refused('corpus', 'netrc')).message).toMatch(/netrc:1: invalid JSON/);
    expect((await refused('queries', 'netrc')).message).toMatch(/netrc:1: /);
    const header = await refused('corpus', 'header-only.tsv');
    expect(header.message).toMatch(/header-only\.tsv:1: rows: no documents in the file \(a header line and no row\)/);
  });

  it('LaMP questions come back as the records the importer read (id, input, task, profile size), not the file', async () => {
    const env = await router.call('collections.previewFile', { kind: 'lamp', path: join(FIX, 'lamp2_questions.json') });
    expect(linesOf(env).map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        id: 'u1',
        input: 'Which tag does this movie relate to among the following tags? Just answer with the tag name without further explanation. tags: [comedy, romance] description: Two rivals open bakeries on the same street.',
        task: 'LaMP-2',
        profile: 2,
      },
      expect.objectContaining({ id: 'u2', task: 'LaMP-2' }),
    ]);
    expect(linesOf(env).join('\n')).not.toContain('skateboard'); // a profile item's text: not a question record
  });

  it('LaMP outputs come back as the task and the golds read', async () => {
    const env = await router.call('collections.previewFile', { kind: 'lamp', path: join(FIX, 'lamp2_outputs.json') });
    expect(linesOf(env)).toEqual(['{"task":"LaMP-2"}', '{"id":"u1","output":"comedy"}', '{"id":"u2","output":"romance"}']);
  });

  it('a LaMP file cut short, or with a bad question after a good one, previews the good questions only', async () => {
    const cut = await preview('lamp', 'cut_questions.json');
    expect(linesOf(cut).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['u1']);
    const bad = await preview('lamp', 'bad_second.json');
    expect(linesOf(bad)).toEqual(['{"id":"u1","input":"Plain hello","task":null,"profile":0}']);
    expect(JSON.stringify(bad)).not.toContain('hunter2');
  });

  it('qrels and the Fair-RAG mapping are written back from their records; tables come back as rows with no lines', async () => {
    const q = await preview('qrels', 'spaced.qrels');
    expect(linesOf(q)).toEqual(['q1 0 d1 1', 'q1 0 d2 0']);
    const m = await router.call('collections.previewFile', { kind: 'fairrag-mapping', path: join(FIX, 'lamp2_relevance_mapping.tsv') });
    expect(linesOf(m).slice(0, 2)).toEqual(['u1 p1 1', 'u1 p2 0']);
    const ms = await router.call('collections.previewFile', { kind: 'msmarco', path: join(FIX, 'collection.tsv') });
    expect(linesOf(ms).slice(0, 2)).toEqual(['10\tThe "quick" brown fox.', '11\tA lazy dog sleeps.']);
    const t = await preview('corpus', 'good.tsv');
    expect(t.ok && t.data).toMatchObject({ rows: [{ id: 'd1', text: 'Rain again' }], lines: [] });
  });
});
