/**
 * A corpus whose documents are longer than a megabyte (issue 25 item 3): their texts are staged in
 * pieces and published by concat() inside SQLite. What a reader sees must be what a short document
 * would give: the exact text (escapes, multi-byte characters, surrogate pairs), the same content
 * hash as computed from the stored rows (before the lock, for a new collection; range by range for a
 * big one), the full-text index finding words of the long text with snippets, a re-import that
 * changes nothing, and a conflict naming the file and the line of the long document.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRng } from '../../src-main/core/random/rng';
import { DataError } from '../../src-main/core/errors';
import { fileSource } from '../../src-main/io/importers/source';
import { searchFts } from '../../src-main/retrieval/fts5/ftsSearch';
import { importIntoCollection, RANGE_DOCUMENTS } from '../../src-main/services/collectionsImport';
import { computeContentHash } from '../../src-main/store/collectionHash';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

let dir: string;
let ws: Workspace;
let repo: CollectionsRepo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-longimport-'));
  ws = openWorkspace(join(dir, 'w.fairground'));
  repo = new CollectionsRepo(ws.db);
});
afterEach(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

function plantedText(seed: number, chars: number): string {
  const rng = createRng(seed);
  const parts = ['lorem ', 'ipsum ', 'é', 'ß ', '日本 ', '😀 ', '\n', '"', '\\', '\t', 'dolor '.repeat(7)];
  let s = '';
  while (s.length < chars) s += parts[rng.nextInt(parts.length)]!;
  return s;
}

const texts = (id: number) => ws.db.prepare(`SELECT doc_id AS docId, title, text FROM documents WHERE collection_id = ? ORDER BY id`).all(id) as { docId: string; title: string; text: string }[];

describe('importing documents longer than a megabyte', () => {
  it('stores the exact texts in read order, with the stored rows’ content hash, indexed for search; a re-import changes nothing; a changed long text is a conflict naming its line', async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`planted long texts: seed ${seed}`);
    const long1 = `${plantedText(seed, 700_000)} zyzzyvaquux ${plantedText(seed + 1, 700_000)}`;
    const long2 = 'plain words only '.repeat(80_000) + 'quokkafinale';
    const docs = [
      { id: 's1', text: 'a short document' },
      { id: 'L1', title: 'the long one', text: long1, source: 'planted' },
      { id: 's2', text: 'another short one' },
      { id: 'L2', text: long2 },
    ];
    const path = join(dir, 'corpus.jsonl');
    writeFileSync(path, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const report = await importIntoCollection(repo, { name: 'c' }, { kind: 'corpus', sources: [fileSource(path)] });
    expect(report.documents.added).toBe(4);
    expect(texts(report.collectionId)).toEqual(docs.map((d) => ({ docId: d.id, title: d.title ?? '', text: d.text })));
    expect(repo.getDocument(report.collectionId, 'L1')!.attrs).toEqual({ source: 'planted' });
    // The hash computed from the staging's pieces is the stored rows' hash.
    expect(report.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
    for (const [word, doc] of [
      ['zyzzyvaquux', 'L1'],
      ['quokkafinale', 'L2'],
    ] as const) {
      const hits = searchFts(ws.db, { collectionId: report.collectionId, query: word, k: 5 }).hits;
      expect(hits.map((h) => h.docId)).toEqual([doc]);
      expect(hits[0]!.snippetHtml).toContain(`<mark>${word}</mark>`);
    }
    const again = await importIntoCollection(repo, { name: 'c' }, { kind: 'corpus', sources: [fileSource(path)] });
    expect(again.noop).toBe(true);
    expect(again.documents.unchanged).toBe(4);
    expect(again.contentHash).toBe(report.contentHash);
    // The long text changed by one character far inside: a conflict on line 2, nothing written.
    const changed = docs.map((d) => (d.id === 'L1' ? { ...d, text: `${long1.slice(0, 1_000_000)}X${long1.slice(1_000_001)}` } : d));
    writeFileSync(path, changed.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const err = await importIntoCollection(repo, { name: 'c' }, { kind: 'corpus', sources: [fileSource(path)] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).reason).toBe("document 'L1' is already in the collection with a different text");
    expect({ file: (err as DataError).file, line: (err as DataError).line }).toEqual({ file: path, line: 2 });
    expect(texts(report.collectionId).map((d) => d.text)).toEqual(docs.map((d) => d.text));
    // A new long document next to the unchanged ones is added; the hash is again the stored rows'.
    writeFileSync(path, [...docs, { id: 'L3', text: long2.replace('quokkafinale', 'wombatcoda') }].map((d) => JSON.stringify(d)).join('\n') + '\n');
    const more = await importIntoCollection(repo, { name: 'c' }, { kind: 'corpus', sources: [fileSource(path)] });
    expect(more.documents).toMatchObject({ added: 1, unchanged: 4 });
    expect(more.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
    expect(searchFts(ws.db, { collectionId: report.collectionId, query: 'wombatcoda', k: 5 }).hits.map((h) => h.docId)).toEqual(['L3']);
  });

  it('a big new collection written range by range keeps long texts in place, its hash that of the stored rows', async () => {
    const n = RANGE_DOCUMENTS + 40;
    const long = (k: number) => `${'range words '.repeat(100_000)}marker${k}`;
    const lines: string[] = [];
    const expected: string[] = [];
    for (let i = 0; i < n; i++) {
      // Long documents in the first range, on its last row, and in the second range.
      const text = i === 3 || i === RANGE_DOCUMENTS - 1 || i === RANGE_DOCUMENTS + 7 ? long(i) : `doc ${i}`;
      lines.push(JSON.stringify({ id: `d${i}`, text }));
      expected.push(text);
    }
    const path = join(dir, 'big.jsonl');
    writeFileSync(path, lines.join('\n') + '\n');
    const report = await importIntoCollection(repo, { name: 'big' }, { kind: 'corpus', sources: [fileSource(path)] });
    expect(report.documents.added).toBe(n);
    expect(texts(report.collectionId).map((d) => d.text)).toEqual(expected);
    expect(report.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
    expect(searchFts(ws.db, { collectionId: report.collectionId, query: `marker${RANGE_DOCUMENTS + 7}`, k: 3 }).hits.map((h) => h.docId)).toEqual([`d${RANGE_DOCUMENTS + 7}`]);
  });

  it('a long text reference never reaches a writer that would store it as empty', () => {
    const c = repo.create('x', '');
    expect(() => repo.addDocuments(c.id, [{ docId: 'd', text: '', longText: { longTextId: 1 } }])).toThrow(/long text of the import staging/);
  });
});
