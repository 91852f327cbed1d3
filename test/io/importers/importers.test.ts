/**
 * The importers end to end into a real SQLite workspace (through the collections service, which
 * stages and commits): every format, the no-op re-import, conflicts, and malformed input — each
 * error names file, line and field, and the workspace is left exactly as it was.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { ImportCancelledError } from '../../../src-main/io/importers/index';
import { CollectionsService } from '../../../src-main/services/collectionsService';
import { EventBus } from '../../../src-main/services/eventBus';
import { JobRunner } from '../../../src-main/services/jobRunner';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';

const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');
const fx = (name: string) => join(FIX, name);
const tmp = mkdtempSync(join(tmpdir(), 'fg-importers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function file(content: string | Buffer, name = `f${n++}.jsonl`): string {
  const p = join(tmp, name);
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
type Mapping = Parameters<CollectionsService['importFiles']>[0]['mapping'];
const imp = (kind: Kind, files: string[], mapping?: Mapping, name = 'C') => svc.importFiles({ collectionName: name, kind, files, mapping });

/** Everything an import could change: row counts, content hashes, sources. */
function snapshot(): unknown {
  const count = (t: string) => (ws.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  return {
    collections: ws.db.prepare(`SELECT id, name, content_hash, sources FROM collections ORDER BY id`).all(),
    documents: count('documents'),
    queries: count('queries'),
    judgments: count('judgments'),
  };
}

async function rejects(p: Promise<unknown>): Promise<DataError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

describe('corpus and query imports', () => {
  it('imports a JSONL corpus: guessed mapping, numeric ids, other keys as attrs, blank lines skipped', async () => {
    const r = await imp('corpus', [fx('corpus.jsonl')]);
    expect(r).toMatchObject({ created: true, noop: false, documents: { added: 4, unchanged: 0 } });
    const c = svc.repo.get(r.collectionId)!;
    expect(c.counts).toEqual({ documents: 4, queries: 0, judgments: 0 });
    expect(svc.repo.getDocument(c.id, '4')).toEqual({ docId: '4', title: '', text: 'Heat pumps move heat instead of making it.', attrs: { provider: 'home-energy', year: 2021 } });
    expect(svc.repo.getDocument(c.id, 'd1')!.attrs).toEqual({ provider: 'coastal-news' });
    const sha = createHash('sha256').update(readFileSync(fx('corpus.jsonl'))).digest('hex');
    expect(c.sources).toEqual([{ file: fx('corpus.jsonl'), kind: 'corpus', sha256: sha, rows: 4, importedAt: expect.any(String) }]);
    expect(c.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('imports an RFC 4180 CSV corpus with quotes, doubled quotes and a line break inside a field', async () => {
    const r = await imp('corpus', [fx('corpus.csv')]);
    const id = r.collectionId;
    expect(svc.repo.getDocument(id, 'c1')).toEqual({ docId: 'c1', title: 'Rain, again', text: 'It rained "all" day.\nThen it stopped.', attrs: { provider: 'weather-desk' } });
    expect(svc.repo.getDocument(id, 'c3')).toEqual({ docId: 'c3', title: '', text: 'Fog "lifted"', attrs: { provider: '' } });
    expect(svc.repo.listDocuments(id).items.map((d) => d.docId)).toEqual(['c1', 'c2', 'c3']);
  });

  it('uses an explicit mapping with chosen attr columns', async () => {
    const r = await imp('corpus', [fx('corpus.csv')], { idColumn: 'doc', textColumn: 'headline', attrColumns: [] });
    expect(svc.repo.getDocument(r.collectionId, 'c2')).toEqual({ docId: 'c2', title: '', text: 'Sunny', attrs: {} });
  });

  it('rejects a mapping that names a column the CSV lacks', async () => {
    const err = await rejects(imp('corpus', [fx('corpus.csv')], { idColumn: 'nope' }));
    expect(err).toMatchObject({ file: fx('corpus.csv'), line: 1, field: 'idColumn' });
  });

  it('imports queries with answers (string or list), task, metric and sub-aspects', async () => {
    const r = await imp('queries', [fx('queries.jsonl')]);
    expect(r.queries.added).toBe(2);
    expect(svc.repo.getQuery(r.collectionId, 'q1')).toEqual({
      queryId: 'q1',
      text: 'How does tidal power work?',
      answers: ['Turbines in a barrage'],
      task: 'qa',
      metric: 'rougeL',
      subaspects: null,
      candidates: null,
      attrs: {},
    });
    expect(svc.repo.getQuery(r.collectionId, 'q2')).toMatchObject({
      answers: ['Solar and heat pumps'],
      task: null,
      subaspects: [
        { aspect: 'solar', answer: 'panels on roofs' },
        { aspect: 'heat pumps', answer: 'move heat' },
      ],
    });
  });

  it('reads a TSV query set without a header by column number', async () => {
    const p = file('a1\tfirst query\na2\tsecond\n', 'q.tsv');
    const r = await imp('queries', [p], { header: false, idColumn: '1', textColumn: '2', task: 'adhoc' });
    expect(svc.repo.getQuery(r.collectionId, 'a2')).toMatchObject({ text: 'second', task: 'adhoc', attrs: {} });
  });
});

describe('judgments', () => {
  it('imports TREC qrels and reports judgments of unknown documents', async () => {
    await imp('corpus', [fx('corpus.jsonl')]);
    await imp('queries', [fx('queries.jsonl')]);
    const r = await imp('qrels', [fx('qrels.txt')]);
    expect(r.judgments).toEqual({ added: 5, unchanged: 0, kept: 0, replaced: 0, unknownQueries: 0, unknownDocuments: 1 });
    expect(r.message).toContain('1 judgments name documents not in the collection');
    const detail = svc.repo.getQueryWithJudgments(r.collectionId, 'q2')!;
    expect(detail.documents.map((d) => [d.doc.docId, d.missing, d.judgments[0]!.label, d.judgments[0]!.kind])).toEqual([
      ['4', false, 1, 'relevance'],
      ['d3', false, 1, 'relevance'],
      ['d99', true, 1, 'relevance'],
    ]);
  });

  it('rejects a pair judged twice in one qrels file', async () => {
    const err = await rejects(imp('qrels', [file('q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n', 'dup.qrels')]));
    expect(err).toMatchObject({ line: 3, field: 'docno' });
  });
});

describe('LaMP and Fair-RAG labels', () => {
  it('imports questions + outputs: profiles as candidate sets, repeated profile ids namespaced, metric preset', async () => {
    // Files in either order.
    const r = await imp('lamp', [fx('lamp2_outputs.json'), fx('lamp2_questions.json')]);
    expect(r).toMatchObject({ documents: { added: 4 }, queries: { added: 2 } });
    const id = r.collectionId;
    expect(svc.repo.getQuery(id, 'u1')).toMatchObject({
      answers: ['comedy'],
      task: 'LaMP-2',
      metric: 'accuracy',
      candidates: ['p1', 'p2'],
      attrs: { metrics: ['accuracy', 'f1'], label_metric: 'accuracy' },
    });
    // u2's p1 is u1's p1 (same content): shared. u2's p2 differs from u1's p2: renamed.
    expect(svc.repo.getQuery(id, 'u2')!.candidates).toEqual(['p1', 'u2/p2', 'p3']);
    expect(svc.repo.getDocument(id, 'p1')).toEqual({ docId: 'p1', title: '', text: 'A dog learns to skateboard.', attrs: { tag: 'comedy' } });
    expect(svc.repo.getDocument(id, 'u2/p2')).toEqual({ docId: 'u2/p2', title: '', text: 'A mime gets stuck in a real box.', attrs: { tag: 'comedy', profile_id: 'p2' } });
    expect(r.files.map((f) => [f.kind, f.rows])).toEqual([
      ['lamp-questions', 2],
      ['lamp-outputs', 2],
    ]);

    // Utility labels with their deltas; (u2, p2) goes to the renamed document.
    const labels = await imp('fairrag-mapping', [fx('lamp2_relevance_mapping.tsv'), fx('lamp2_delta.tsv')], { generator: 'flanT5XXL' });
    expect(labels.judgments).toMatchObject({ added: 5, unknownDocuments: 0, unknownQueries: 0 });
    expect(svc.repo.getJudgment(id, 'u2', 'u2/p2', 'utility')).toMatchObject({ label: 1, source: 'import', provenance: { generator: 'flanT5XXL', utility: 1, baseline: 0, delta: 1 } });
    expect(svc.repo.getJudgment(id, 'u2', 'p1', 'utility')).toMatchObject({ label: 0, provenance: { delta: -1, baseline: 1, utility: 0 } });
    expect(labels.files.map((f) => f.kind)).toEqual(['fairrag-delta', 'fairrag-mapping']);
  });

  it('labels from a delta file alone: useful iff delta > 0 (Algorithm 1)', async () => {
    const r = await imp('fairrag-mapping', [fx('lamp2_delta.tsv')]);
    expect(svc.repo.getJudgment(r.collectionId, 'u1', 'p1', 'utility')!.label).toBe(1);
    expect(svc.repo.getJudgment(r.collectionId, 'u2', 'p1', 'utility')!.label).toBe(0);
    expect(svc.repo.getJudgment(r.collectionId, 'u1', 'p2', 'utility')).toMatchObject({ label: 0, provenance: { delta: 0, rule: 'delta > 0' } });
  });

  it('recognises the task from the prompt when there is no outputs file', async () => {
    const r = await imp('lamp', [fx('lamp2_questions.json')]);
    expect(svc.repo.getQuery(r.collectionId, 'u1')).toMatchObject({ task: 'LaMP-2', answers: [] });
  });

  it('gives every LaMP task its metric preset', async () => {
    const q = (input: string) => file(JSON.stringify([{ id: '1', input, profile: [{ id: 'a', title: 'T', text: 'x' }] }]), `t${n}.json`);
    const expected: [string, string, string[], string][] = [
      ['For an author who has written the paper with the title "X", which reference is related?', 'accuracy', ['accuracy', 'f1'], 'accuracy'],
      ['What is the score of the following review on a scale of 1 to 5? review: fine', 'mae', ['mae', 'rmse'], 'accuracy'],
      ['Generate a headline for the following article: x', 'rougeL', ['rouge1', 'rougeL'], 'rougeL'],
      ['Generate a title for the following abstract of a paper: x', 'rougeL', ['rouge1', 'rougeL'], 'rougeL'],
      ['Generate a subject for the following email: x', 'rougeL', ['rouge1', 'rougeL'], 'rougeL'],
      ['Paraphrase the following tweet without any explanation before or after it: x', 'rougeL', ['rouge1', 'rougeL'], 'rougeL'],
    ];
    for (const [i, [input, metric, metrics, label]] of expected.entries()) {
      const r = await imp('lamp', [q(input)], undefined, `L${i}`);
      expect(svc.repo.getQuery(r.collectionId, '1')).toMatchObject({ metric, attrs: { metrics, label_metric: label } });
    }
    // LaMP-2 comes from the fixture above; the task names are LaMP-1, 3, 4, 5, 6, 7 in order.
    expect(svc.repo.list().map((c) => svc.repo.getQuery(c.id, '1')!.task)).toEqual(['LaMP-1', 'LaMP-3', 'LaMP-4', 'LaMP-5', 'LaMP-6', 'LaMP-7']);
    expect(svc.repo.getDocument(svc.repo.byName('L0')!.id, 'a')).toEqual({ docId: 'a', title: 'T', text: 'x', attrs: {} });
  });

  it('rejects a gold output without a question, naming its line', async () => {
    const outputs = file('{"task": "LaMP_2", "golds": [\n {"id": "u1", "output": "comedy"},\n {"id": "u2", "output": "romance"},\n {"id": "zz", "output": "x"}\n]}', 'out.json');
    const before = snapshot();
    const err = await rejects(imp('lamp', [fx('lamp2_questions.json'), outputs]));
    expect(err).toMatchObject({ file: outputs, line: 4, field: 'golds.id' });
    expect(snapshot()).toEqual(before);
  });

  it('rejects a profile item without an id, naming the question line and the item', async () => {
    const questions = file('[\n{"id": "a", "input": "q", "profile": []},\n{"id": "b", "input": "q",\n "profile": [{"text": "x"}]}\n]', 'noid.json');
    const err = await rejects(imp('lamp', [questions], { lampTask: 'LaMP-7' }));
    expect(err).toMatchObject({ file: questions, line: 3, field: 'profile[0].id' });
  });
});

describe('MS MARCO', () => {
  it('imports collection, queries and qrels given in any order', async () => {
    const r = await imp('msmarco', [fx('qrels.dev.tsv'), fx('queries.dev.tsv'), fx('collection.tsv')]);
    expect(r).toMatchObject({ documents: { added: 3 }, queries: { added: 2 }, judgments: { added: 2, unknownDocuments: 0 } });
    expect(svc.repo.getDocument(r.collectionId, '10')!.text).toBe('The "quick" brown fox.');
    expect(r.files.map((f) => f.kind)).toEqual(['corpus', 'queries', 'qrels']);
  });

  it('rejects a passage line without a tab', async () => {
    const err = await rejects(imp('msmarco', [file('1\tok\n2 no tab here\n', 'collection.tsv')]));
    expect(err).toMatchObject({ line: 2, field: 'columns' });
  });
});

describe('re-imports and conflicts', () => {
  it('re-importing identical content is a no-op: nothing written, hash and sources unchanged', async () => {
    await imp('corpus', [fx('corpus.jsonl')]);
    const before = snapshot();
    // Same content in another format and order.
    const same = file(
      ['{"id":"d3","title":"Solar roofs","text":"Rooftop panels cut a household\'s grid demand at midday.","provider":"home-energy"}', '{"provider":"home-energy","id":"4","text":"Heat pumps move heat instead of making it.","year":2021}'].join('\n'),
    );
    const r = await imp('corpus', [same]);
    expect(r).toMatchObject({ noop: true, created: false, documents: { added: 0, unchanged: 2 } });
    expect(r.message).toMatch(/^no change/);
    expect(r.contentHash).toBe(r.previousContentHash);
    expect(snapshot()).toEqual(before);
  });

  it('the content hash does not depend on import order or file format', async () => {
    const a = await imp('corpus', [fx('corpus.jsonl')], undefined, 'A');
    const lines = readFileSync(fx('corpus.jsonl'), 'utf8').trim().split('\n').filter(Boolean).reverse();
    const b = await imp('corpus', [file(JSON.stringify(lines.map((l) => JSON.parse(l))), 'rev.json')], undefined, 'B');
    expect(b.contentHash).toBe(a.contentHash);
  });

  it('a conflicting id (same id, other text) is a DataError naming the file and line; nothing is written', async () => {
    await imp('corpus', [fx('corpus.jsonl')]);
    const before = snapshot();
    const p = file('{"id": "new1", "text": "fresh"}\n{"id": "d2", "title": "Wind farms", "text": "Changed text.", "provider": "coastal-news"}\n');
    const err = await rejects(imp('corpus', [p]));
    expect(err).toMatchObject({ file: p, line: 2, field: 'text' });
    expect(err.message).toContain("document 'd2' is already in the collection with a different text");
    expect(snapshot()).toEqual(before);
  });

  it('a conflicting label is a DataError; a stored manual label is never overwritten silently (issue 34: its difference is an error too)', async () => {
    await imp('qrels', [fx('qrels.txt')]);
    const id = svc.repo.byName('C')!.id;
    const err = await rejects(imp('qrels', [file('q1 0 d2 1\n', 'x.qrels')]));
    expect(err).toMatchObject({ line: 1, field: 'label' });
    svc.repo.setManualJudgment(id, 'q1', 'd2', 'relevance', 3);
    const differs = await rejects(imp('qrels', [fx('qrels.txt')]));
    expect(differs).toMatchObject({ line: 2, field: 'label' });
    expect(differs.message).toContain("1 imported relevance label differs from the stored ones (query 'q1' document 'd2': stored manual label 3, imported 0 (line 2))");
    expect(svc.repo.getJudgment(id, 'q1', 'd2', 'relevance')).toMatchObject({ label: 3, source: 'manual' });
    // The same value as the manual label is kept, not a difference.
    svc.repo.setManualJudgment(id, 'q1', 'd2', 'relevance', 0);
    const r = await imp('qrels', [fx('qrels.txt')]);
    expect(r).toMatchObject({ noop: true, judgments: { unchanged: 4, kept: 1 } });
    expect(svc.repo.getJudgment(id, 'q1', 'd2', 'relevance')).toMatchObject({ label: 0, source: 'manual' });
  });
});

describe('malformed input: DataError with file and line, workspace unchanged', () => {
  const cases: [string, () => string, Kind, Mapping, { line?: number; field?: string }, RegExp][] = [
    ['bad JSON', () => file('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": "c", "text": }\n'), 'corpus', undefined, { line: 3 }, /invalid JSON/],
    ['missing id', () => file('{"id": "a", "text": "x"}\n{"text": "no id"}\n'), 'corpus', undefined, { line: 2, field: 'id' }, /missing id/],
    ['empty id', () => file('{"id": "a", "text": "x"}\n{"id": " ", "text": "blank id"}\n'), 'corpus', undefined, { line: 2, field: 'id' }, /missing id/],
    ['missing text', () => file('{"id": "a", "text": "x"}\n{"id": "b"}\n'), 'corpus', undefined, { line: 2, field: 'text' }, /missing/],
    ['duplicate id', () => file('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n\n{"id": "a", "text": "z"}\n'), 'corpus', undefined, { line: 4, field: 'id' }, /duplicate document id 'a' \(first on line 1\)/],
    ['duplicate id', () => file('{"id": "a-b", "text": "x"}\n{"id": "a-b", "text": "y"}\n'), 'corpus', undefined, { line: 2, field: 'id' }, /duplicate document id 'a-b' \(first on line 1\)$/],
    // Issue 26: an id with a line break is refused where it first appears (ids.test.ts has every format).
    ['id with a line break', () => file('{"id": "a\\nb", "text": "x"}\n{"id": "a\\nb", "text": "y"}\n'), 'corpus', undefined, { line: 1, field: 'document id' }, /document id 'a\\nb' is not a usable id: contains a line break at character 2/],
    ['not an object', () => file('{"id": "a", "text": "x"}\n["b", "y"]\n'), 'corpus', undefined, { line: 2 }, /expected a JSON object/],
    ['wrong column count', () => file('id,text\n1,one\n2,two,extra\n', 'w.csv'), 'corpus', undefined, { line: 3, field: 'columns' }, /expected 2 columns \(as in the header\), got 3/],
    ['unclosed quote', () => file('id,text\n1,"one\n2,two\n', 'q.csv'), 'corpus', undefined, { line: 2, field: 'column 2' }, /never closed/],
    ['invalid UTF-8', () => file(Buffer.concat([Buffer.from('{"id": "a", "text": "x"}\n{"id": "b", "text": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')])), 'corpus', undefined, { line: 2 }, /invalid UTF-8/],
    ['bad subaspects', () => file('{"id": "q", "text": "t", "subaspects": [{"answer": "x"}]}\n'), 'queries', undefined, { line: 1, field: 'subaspects[0].aspect' }, /missing/],
    ['bad qrels label', () => file('q1 0 d1 1\nq1 0 d2 x\n', 'b.qrels'), 'qrels', undefined, { line: 2, field: 'rel' }, /not an integer/],
    ['qrels column count', () => file('q1 0 d1 1\nq1 d2 1\n', 'c.qrels'), 'qrels', undefined, { line: 2, field: 'columns' }, /expected 4 columns/],
    ['mapping header', () => file('qid\tdoc\tlabel\nq\td\t1\n', 'm.tsv'), 'fairrag-mapping', undefined, { line: 1, field: 'header' }, /expected the header/],
    ['LaMP question without input', () => file('[{"id": "1", "profile": []}]', 'l.json'), 'lamp', { lampTask: 'LaMP-4' }, { line: 1, field: 'input' }, /missing/],
    ['empty file', () => file(''), 'corpus', undefined, {}, /no documents in the file/],
  ];
  for (const [name, make, kind, mapping, where, message] of cases) {
    it(name, async () => {
      await imp('corpus', [fx('corpus.jsonl')]);
      await imp('qrels', [fx('qrels.txt')]);
      const before = snapshot();
      const path = make();
      const err = await rejects(imp(kind, [path], mapping));
      expect(err.file).toBe(path);
      expect(err).toMatchObject(where);
      if (where.line === undefined) expect(err.line).toBeUndefined();
      expect(err.message).toMatch(message);
      expect(err.message).not.toContain('\n');
      expect(err.message.startsWith(`${path}${where.line !== undefined ? `:${where.line}` : ''}: `)).toBe(true);
      expect(snapshot()).toEqual(before);
    });
  }

  it('a duplicate across two files of one import names the first file', async () => {
    const a = file('{"id": "x", "text": "1"}\n');
    const b = file('{"id": "y", "text": "2"}\n{"id": "x", "text": "3"}\n');
    const err = await rejects(imp('corpus', [a, b]));
    expect(err).toMatchObject({ file: b, line: 2 });
    expect(err.message).toContain(`first in ${a} line 1`);
    expect(svc.repo.list()).toEqual([]);
  });

  it('a cancelled import writes nothing', async () => {
    const controller = new AbortController();
    const big = file(Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: `d${i}`, text: 'x' })).join('\n'));
    const p = svc.importFiles({ collectionName: 'C', kind: 'corpus', files: [big] }, { signal: controller.signal, progress: (done) => done > 1000 && controller.abort() });
    await expect(p).rejects.toBeInstanceOf(ImportCancelledError);
    expect(svc.repo.list()).toEqual([]);
    expect(snapshot()).toMatchObject({ documents: 0 });
  });
});
