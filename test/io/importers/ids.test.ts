/**
 * Issue 26: ids with whitespace, control characters or NUL, float ids and 1 MiB ids were accepted at import and then
 * broke `retrieve --output` and TREC exports for the whole collection. Now every importer format refuses them, naming
 * file, line and field, and the workspace is left as it was. Existing fixtures still import (integers as numbers too).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { idProblem, MAX_ID_CHARS } from '../../../src-main/io/importers/index';
import { CollectionsService } from '../../../src-main/services/collectionsService';
import { EventBus } from '../../../src-main/services/eventBus';
import { JobRunner } from '../../../src-main/services/jobRunner';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';

const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');
const fx = (name: string) => join(FIX, name);
const tmp = mkdtempSync(join(tmpdir(), 'fg-import-ids-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function file(content: string, name: string): string {
  const p = join(tmp, `${n++}-${name}`);
  writeFileSync(p, content);
  return p;
}

let ws: Workspace;
let svc: CollectionsService;
beforeEach(() => {
  ws?.close();
  ws = openWorkspace(':memory:');
  svc = new CollectionsService(ws.db, new JobRunner(ws.db, new EventBus()));
});

type Kind = Parameters<CollectionsService['importFiles']>[0]['kind'];
const imp = (kind: Kind, files: string[], name = 'C') => svc.importFiles({ collectionName: name, kind, files });
const rows = () => ['documents', 'queries', 'judgments'].map((t) => (ws.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);

async function refused(p: Promise<unknown>): Promise<DataError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

describe('idProblem', () => {
  it('accepts ordinary ids and refuses whitespace, control characters, NUL and ids past the maximum', () => {
    for (const ok of ['d1', 'MARCO_D1234', 'u1/p2', 'é-ü', '1.5', 'x'.repeat(MAX_ID_CHARS)]) expect(idProblem(ok)).toBeNull();
    expect(idProblem('c\td')).toMatch(/^contains a tab at character 2; ids may not contain whitespace/);
    expect(idProblem('a\u0000b')).toMatch(/^contains NUL at character 2/);
    expect(idProblem('a b')).toMatch(/^contains a space at character 2/);
    expect(idProblem('ab\n')).toMatch(/^contains a line break at character 3/);
    expect(idProblem('a\u00a0b')).toMatch(/^contains U\+00A0 at character 2/);
    expect(idProblem('a\u0085')).toMatch(/^contains U\+0085/);
    expect(idProblem('x'.repeat(MAX_ID_CHARS + 1))).toBe(`${MAX_ID_CHARS + 1} characters long; an id may have at most ${MAX_ID_CHARS}`);
    expect(MAX_ID_CHARS).toBe(512);
  });
});

describe('every importer refuses a bad id, naming file, line and field, and writes nothing', () => {
  const MIB = 'i'.repeat(1 << 20);
  const cases: { label: string; kind: Kind; files: () => string[]; line: number; field: string; message: RegExp }[] = [
    { label: 'corpus JSONL, tab', kind: 'corpus', files: () => [file(`{"id":"a","text":"x"}\n{"id":"c\\td","text":"y"}\n`, 'c.jsonl')], line: 2, field: 'document id', message: /document id 'c\\td' is not a usable id: contains a tab/ },
    { label: 'corpus JSONL, NUL', kind: 'corpus', files: () => [file(`{"id":"a\\u0000b","text":"x"}\n`, 'c.jsonl')], line: 1, field: 'document id', message: /'a\\u0000b' is not a usable id: contains NUL/ },
    { label: 'corpus JSONL, float', kind: 'corpus', files: () => [file(`{"id":1,"text":"x"}\n{"id":1.5,"text":"y"}\n`, 'c.jsonl')], line: 2, field: 'id', message: /the number 1\.5 is not an integer/ },
    { label: 'corpus JSONL, 1 MiB', kind: 'corpus', files: () => [file(`{"id":"${MIB}","text":"x"}\n`, 'c.jsonl')], line: 1, field: 'document id', message: /'i{120}…' \(1048576 characters\) is not a usable id: 1048576 characters long; an id may have at most 512/ },
    { label: 'corpus CSV, space', kind: 'corpus', files: () => [file('id,text\nd1,x\n"d 2",y\n', 'c.csv')], line: 3, field: 'document id', message: /'d 2' is not a usable id: contains a space/ },
    { label: 'queries JSONL, tab', kind: 'queries', files: () => [file(`{"qid":"q\\t1","query":"x"}\n`, 'q.jsonl')], line: 1, field: 'query id', message: /query id 'q\\t1'/ },
    { label: 'queries JSONL, candidates', kind: 'queries', files: () => [file(`{"qid":"q1","query":"x","candidates":["d1","d\\u00002"]}\n`, 'q.jsonl')], line: 1, field: 'candidates[1]', message: /'d\\u00002' is not a usable id: contains NUL/ },
    { label: 'qrels, NUL', kind: 'qrels', files: () => [file('q1 0 d1 1\nq1 0 d\u00002 0\n', 'x.qrels')], line: 2, field: 'document id', message: /contains NUL/ },
    { label: 'qrels mapping, 1 MiB', kind: 'qrels', files: () => [file(`qid\tpid\trelevance_label\nq1\t${MIB}\t1\n`, 'm.tsv')], line: 2, field: 'document id', message: /at most 512/ },
    { label: 'msmarco collection, NUL', kind: 'msmarco', files: () => [file('10\tA fox.\n1\u00001\tA dog.\n', 'collection.tsv')], line: 2, field: 'document id', message: /contains NUL/ },
    { label: 'fairrag mapping, control', kind: 'fairrag-mapping', files: () => [file('qid\tpid\trelevance_label\nu\u00011\tp1\t1\n', 'relevance_mapping.tsv')], line: 2, field: 'query id', message: /contains U\+0001/ },
    {
      label: 'LaMP questions, profile id with a space',
      kind: 'lamp',
      files: () => [file(JSON.stringify([{ id: 'u1', input: 'Which tag does this movie relate to among the following tags? Just answer with the tag name without further explanation. tags: [comedy, romance] description: A film.', profile: [{ id: 'p 1', tag: 't', description: 'd' }] }]), 'questions.json')],
      line: 1,
      field: 'document id',
      message: /'p 1' is not a usable id: contains a space/,
    },
  ];
  for (const c of cases) {
    it(c.label, async () => {
      const before = rows();
      const files = c.files();
      const err = await refused(imp(c.kind, files));
      expect(err.message).toMatch(c.message);
      expect(err.file).toBe(files[0]);
      expect(err.line).toBe(c.line);
      expect(err.field).toBe(c.field);
      expect(err.message.length).toBeLessThan(600);
      expect(rows()).toEqual(before);
    });
  }

  it('the fixtures of every format still import', async () => {
    await imp('corpus', [fx('corpus.jsonl')], 'A');
    await imp('corpus', [fx('corpus.csv')], 'B');
    await imp('queries', [fx('queries.jsonl')], 'A');
    await imp('qrels', [fx('qrels.txt')], 'A');
    await imp('lamp', [fx('lamp2_outputs.json'), fx('lamp2_questions.json')], 'L');
    await imp('fairrag-mapping', [fx('lamp2_relevance_mapping.tsv'), fx('lamp2_delta.tsv')], 'L');
    await imp('msmarco', [fx('collection.tsv'), fx('queries.dev.tsv'), fx('qrels.dev.tsv')], 'M');
    expect(rows().every((k) => k > 0)).toBe(true);
  });
});
