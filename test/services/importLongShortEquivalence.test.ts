/**
 * Issue 25 item 3: a document longer than a megabyte read from a file takes the long-text path
 * (scanned as bytes, staged in pieces, hashed slice by slice, published by concat() in SQLite); the
 * same file given as text in memory (an upload) takes the ordinary path (JSON.parse of the line,
 * one bound value). Both must leave the same collection: the same rows, the same content hash, and
 * the same BM25 ranking with the same scores. Each import goes to a workspace of its own, since
 * FTS5's statistics (documents, average length) span every collection of a workspace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src-main/core/random/rng';
import { LONG_LINE_BYTES } from '../../src-main/io/importers/longText';
import { fileSource, textSource } from '../../src-main/io/importers/source';
import { searchFts } from '../../src-main/retrieval/fts5/ftsSearch';
import { importIntoCollection } from '../../src-main/services/collectionsImport';
import { computeContentHash } from '../../src-main/store/collectionHash';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace } from '../../src-main/store/workspace';

const dir = mkdtempSync(join(tmpdir(), 'fg-long-short-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Words (some rare, some shared with the short documents), escapes, multi-byte characters and pairs. */
function plantedText(seed: number, chars: number): string {
  const rng = createRng(seed);
  const parts = ['lorem ', 'ipsum ', 'quokka ', 'wombat ', 'é ', '日本 ', '😀 ', '\n', '"', '\\', '\t', '\u0001', 'dolor sit amet '];
  let s = '';
  while (s.length < chars) s += parts[rng.nextInt(parts.length)]!;
  return s;
}

describe('a long document imported by the long-text path and by the ordinary path', () => {
  it('gives the same rows, content hash and BM25 ranking', async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`long/short equivalence: seed ${seed}`);
    const docs = [
      { id: 'long', title: 'the long one', text: `${plantedText(seed, 1_300_000)} zyzzyva`, source: 'planted' },
      { id: 's1', text: 'lorem ipsum quokka' },
      { id: 's2', title: 'wombat', text: 'wombat wombat dolor' },
      { id: 's3', text: 'zyzzyva ipsum' },
      { id: 's4', text: plantedText(seed + 1, 3_000) },
    ];
    const path = join(dir, 'corpus.jsonl');
    writeFileSync(path, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    // From the file, the first line is read as a long line (io/importers/longText.ts).
    expect(Buffer.byteLength(JSON.stringify(docs[0]))).toBeGreaterThan(LONG_LINE_BYTES);
    const results = [];
    for (const [name, source] of [
      ['file', fileSource(path)],
      ['text', textSource(path, readFileSync(path, 'utf8'))],
    ] as const) {
      const ws = openWorkspace(join(dir, `${name}.fairground`));
      try {
        const repo = new CollectionsRepo(ws.db);
        const report = await importIntoCollection(repo, { name: 'c' }, { kind: 'corpus', sources: [source] });
        expect(report.documents.added).toBe(docs.length);
        expect(report.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
        const rows = ws.db.prepare('SELECT doc_id, title, text, attrs FROM documents WHERE collection_id = ? ORDER BY id').all(report.collectionId);
        // BM25 as FTS5 ranks (no snippets: a snippet of a common word in a megabyte takes seconds).
        const bm25 = ws.db.prepare(
          `SELECT d.doc_id, bm25(documents_fts) FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid
            WHERE documents_fts MATCH ? AND d.collection_id = ? ORDER BY rank, d.doc_id`,
        );
        const rankings = ['lorem', 'quokka', 'wombat', 'zyzzyva', 'ipsum dolor', '日本', 'title:wombat'].map((query) => bm25.raw().all(query, report.collectionId) as [string, number][]);
        // The product's search of a rare word: the same hits and scores.
        rankings.push(searchFts(ws.db, { collectionId: report.collectionId, query: 'zyzzyva', k: 10 }).hits.map((h) => [h.docId, h.score]));
        results.push({ name, hash: report.contentHash, rows, rankings });
      } finally {
        ws.close();
      }
    }
    const [file, text] = results;
    // The long text took the long path: rows as written, in the order read.
    expect(file!.rows).toEqual(docs.map((d) => ({ doc_id: d.id, title: d.title ?? '', text: d.text, attrs: d.source ? JSON.stringify({ source: d.source }) : '{}' })));
    expect(file!.rows).toEqual(text!.rows);
    expect(file!.hash).toBe(text!.hash);
    expect(file!.rankings).toEqual(text!.rankings);
    // The ranking is not empty: the long document is found by its rare last word and its common ones.
    expect(file!.rankings[3]!.map(([d]) => d)).toEqual(expect.arrayContaining(['long', 's3']));
    expect(file!.rankings[0]!.length).toBeGreaterThanOrEqual(2);
    expect(file!.rankings[7]!.map(([d]) => d).sort()).toEqual(['long', 's3']);
  }, 120_000);
});
