import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { CollectionNameTakenError, CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

let ws: Workspace;
let repo: CollectionsRepo;
beforeEach(() => {
  ws?.close();
  ws = openWorkspace(':memory:');
  repo = new CollectionsRepo(ws.db);
});

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const T0 = new Date('2026-01-02T03:04:05.000Z');

function seed() {
  const c = repo.create('tiny', 'a test', T0);
  repo.addDocuments(c.id, [{ docId: 'a', title: 'T', text: 'x', attrs: { b: 1, a: 2 } }]);
  repo.addQueries(c.id, [{ queryId: 'q', text: 'what?', answers: ['yes'], task: 'qa', metric: 'accuracy', candidates: ['a'] }]);
  repo.addJudgments(c.id, [{ queryId: 'q', docId: 'a', kind: 'utility', label: 1, provenance: { delta: 0.5 } }]);
  return c.id;
}

describe('collections', () => {
  it('creates, lists with counts, renames and deletes', () => {
    const c = repo.create('first', '', T0);
    expect(c).toMatchObject({ name: 'first', description: '', sources: [], createdAt: '2026-01-02T03:04:05.000Z', counts: { documents: 0, queries: 0, judgments: 0 } });
    expect(() => repo.create('first')).toThrow(CollectionNameTakenError);
    const id = seed();
    expect(repo.list().map((x) => [x.name, x.counts])).toEqual([
      ['first', { documents: 0, queries: 0, judgments: 0 }],
      ['tiny', { documents: 1, queries: 1, judgments: 1 }],
    ]);
    expect(repo.update(id, { description: 'new' })!.description).toBe('new');
    expect(() => repo.update(id, { name: 'first' })).toThrow(CollectionNameTakenError);
    expect(repo.delete(id)).toBe(true);
    expect(repo.delete(id)).toBe(false);
    expect(ws.db.prepare(`SELECT count(*) AS n FROM documents`).get()).toEqual({ n: 0 });
  });
});

describe('content hash', () => {
  it('is SHA-256 of the canonical serialisation (hand-written here)', () => {
    expect(repo.create('empty').contentHash).toBe(sha('fairground-collection-v1\n'));
    const id = seed();
    const expected = sha(
      'fairground-collection-v1\n' +
        'D\t["a","T","x",{"a":2,"b":1}]\n' +
        'Q\t["q","what?",["yes"],"qa","accuracy",null,["a"],{}]\n' +
        'J\t["q","a","utility",1,"import",{"delta":0.5}]\n',
    );
    expect(repo.refreshContentHash(id)).toBe(expected);
  });

  it('orders rows by id bytes, not by insertion', () => {
    const a = repo.create('a');
    repo.addDocuments(a.id, [
      { docId: 'b', text: '2' },
      { docId: 'B', text: '1' },
      { docId: 'é', text: '3' },
    ]);
    // 'B' (0x42) < 'b' (0x62) < 'é' (0xC3 0xA9)
    expect(repo.refreshContentHash(a.id)).toBe(sha('fairground-collection-v1\nD\t["B","","1",{}]\nD\t["b","","2",{}]\nD\t["é","","3",{}]\n'));
  });
});

describe('adding rows', () => {
  it('counts identical rows as unchanged and rejects a different row with the same id', () => {
    const id = seed();
    expect(repo.addDocuments(id, [{ docId: 'a', title: 'T', text: 'x', attrs: { a: 2, b: 1 } }, { docId: 'n', text: 'new' }])).toMatchObject({ added: 1, unchanged: 1 });
    let err: unknown;
    try {
      repo.addDocuments(id, [{ docId: 'm', text: 'also new' }, { docId: 'a', title: 'T', text: 'x', attrs: { a: 3 }, file: 'in.jsonl', line: 7 }]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataError);
    expect(err).toMatchObject({ file: 'in.jsonl', line: 7, field: 'attrs', message: "in.jsonl:7: attrs: document 'a' is already in the collection with a different attrs" });
    expect(repo.getDocument(id, 'm')).toBeUndefined(); // the whole batch rolled back
    expect(() => repo.addQueries(id, [{ queryId: 'q', text: 'what?', answers: ['no'], task: 'qa', metric: 'accuracy', candidates: ['a'] }])).toThrow(/different answers/);
  });
});

describe('browsing', () => {
  it('pages documents in import order and filters by an attrs value', () => {
    const c = repo.create('p');
    repo.addDocuments(
      c.id,
      Array.from({ length: 7 }, (_, i) => ({ docId: `d${i}`, text: `t${i}`, attrs: i % 3 === 0 ? { provider: 'x' } : i === 1 ? {} : { provider: 'y' } })),
    );
    expect(repo.listDocuments(c.id, { offset: 2, limit: 3 })).toMatchObject({ total: 7, items: [{ docId: 'd2' }, { docId: 'd3' }, { docId: 'd4' }] });
    expect(repo.listDocuments(c.id, { attr: { key: 'provider', value: 'x' } }).items.map((d) => d.docId)).toEqual(['d0', 'd3', 'd6']);
    expect(repo.listDocuments(c.id, { attr: { key: 'provider', value: null } }).items.map((d) => d.docId)).toEqual(['d1']);
    expect(repo.attrValues(c.id, 'provider')).toEqual([
      { value: 'y', count: 3 },
      { value: 'x', count: 3 },
      { value: null, count: 1 },
    ].sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value))));
  });

  it('lists queries with candidate and judgment counts, filtered by task', () => {
    const id = seed();
    repo.addQueries(id, [{ queryId: 'r', text: 'other', task: null }]);
    repo.addJudgments(id, [{ queryId: 'q', docId: 'zz', kind: 'relevance', label: 0 }]);
    expect(repo.listQueries(id).items.map((q) => [q.queryId, q.candidateCount, q.judged, q.positive])).toEqual([
      ['q', 1, 2, 1],
      ['r', null, 0, 0],
    ]);
    expect(repo.listQueries(id, { task: 'qa' }).total).toBe(1);
    expect(repo.listQueries(id, { task: null }).items.map((q) => q.queryId)).toEqual(['r']);
    expect(repo.tasks(id)).toEqual([
      { task: null, metric: null, count: 1 },
      { task: 'qa', metric: 'accuracy', count: 1 },
    ]);
  });

  it('returns a query with its candidates first, then other judged documents, each with its judgments', () => {
    const id = seed();
    repo.addJudgments(id, [
      { queryId: 'q', docId: 'a', kind: 'relevance', label: 2 },
      { queryId: 'q', docId: 'zz', kind: 'relevance', label: 0 },
    ]);
    const q = repo.getQueryWithJudgments(id, 'q')!;
    expect(q.query.answers).toEqual(['yes']);
    expect(q.documents.map((d) => [d.doc.docId, d.missing, d.judgments.map((j) => `${j.kind}=${j.label}`)])).toEqual([
      ['a', false, ['relevance=2', 'utility=1']],
      ['zz', true, ['relevance=0']],
    ]);
  });
});

describe('manual labels', () => {
  it('records an override as manual, keeps what it replaced, and restores it', () => {
    const id = seed();
    const h0 = repo.get(id)!.contentHash;
    const later = new Date('2026-02-01T00:00:00.000Z');
    expect(repo.setManualJudgment(id, 'q', 'a', 'utility', 0, later)).toEqual({
      queryId: 'q',
      docId: 'a',
      kind: 'utility',
      label: 0,
      source: 'manual',
      provenance: { previous: { label: 1, source: 'import', provenance: { delta: 0.5 } } },
      updatedAt: '2026-02-01T00:00:00.000Z',
    });
    expect(repo.get(id)!.contentHash).not.toBe(h0);
    // A second override still remembers the imported label.
    expect(repo.setManualJudgment(id, 'q', 'a', 'utility', 1)!.provenance).toEqual({ previous: { label: 1, source: 'import', provenance: { delta: 0.5 } } });
    expect(repo.setManualJudgment(id, 'q', 'a', 'utility', null)).toMatchObject({ label: 1, source: 'import', provenance: { delta: 0.5 } });
    expect(repo.get(id)!.contentHash).toBe(h0);
    // A manual label with nothing under it disappears when cleared.
    expect(repo.setManualJudgment(id, 'q', 'new', 'relevance', 2)).toMatchObject({ source: 'manual', provenance: {} });
    expect(repo.setManualJudgment(id, 'q', 'new', 'relevance', null)).toBeUndefined();
  });
});
