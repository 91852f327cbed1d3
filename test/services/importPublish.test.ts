/**
 * The import's short publish (issue 15 item 5): documents go from the TEMP staging into the
 * collection with one INSERT … SELECT, and a new collection's content hash is computed from the
 * staging before the write lock — the results must be those of the row-by-row commit: the same
 * content hash as computed from the stored rows, the same conflict errors (file, line, field),
 * the same unchanged counts. While another writer holds the lock, the import waits, saying who
 * holds it, past SQLite's busy timeout, and a cancel ends the wait with nothing written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { fileSource, textSource } from '../../src-main/io/importers/source';
import { importIntoCollection, type ImportInput } from '../../src-main/services/collectionsImport';
import { resourcesDir } from '../../src-main/services/paths';
import { computeContentHash } from '../../src-main/store/collectionHash';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

let dir: string;
let ws: Workspace;
let repo: CollectionsRepo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-publish-'));
  ws = openWorkspace(join(dir, 'w.fairground'));
  repo = new CollectionsRepo(ws.db);
});
afterEach(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

const corpus = (name: string, lines: object[]): ImportInput => ({ kind: 'corpus', sources: [textSource(name, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')] });

function demoInputs(): ImportInput[] {
  const f = (n: string) => fileSource(join(resourcesDir(), 'demo', n));
  return [
    { kind: 'corpus', sources: [f('documents.jsonl')] },
    { kind: 'queries', sources: [f('queries.jsonl')] },
    { kind: 'fairrag-mapping', sources: [f('utility_mapping.tsv'), f('utility_delta.tsv')] },
    { kind: 'qrels', sources: [f('qrels.txt')] },
  ];
}

describe('publishing an import', () => {
  it('a new collection gets the content hash of its stored rows, computed before the lock (the demo in one import or four)', async () => {
    const refresh = vi.spyOn(repo, 'refreshContentHash');
    const one = await importIntoCollection(repo, { name: 'one' }, demoInputs());
    // Only create() hashes the empty collection inside the transaction; the full hash came from the staging.
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(one.created).toBe(true);
    expect(one.contentHash).toBe(computeContentHash(ws.db, one.collectionId));
    expect(repo.get(one.collectionId)!.contentHash).toBe(one.contentHash);
    let last = one;
    for (const input of demoInputs()) last = await importIntoCollection(repo, { name: 'four' }, input);
    expect(last.contentHash).toBe(one.contentHash);
    expect(repo.get(last.collectionId)!.counts).toEqual(repo.get(one.collectionId)!.counts);
    expect(repo.get(one.collectionId)!.counts.documents).toBeGreaterThan(40);
  });

  it('judgments renamed to LaMP profile documents (<query>/<doc>) hash as stored', async () => {
    const report = await importIntoCollection(repo, { name: 'lamp' }, [
      corpus('docs.jsonl', [
        { id: 'q1/p1', text: 'first profile item' },
        { id: 'p2', text: 'shared item' },
      ]),
      { kind: 'queries', sources: [textSource('queries.jsonl', '{"id": "q1", "text": "tag it"}\n')] },
      { kind: 'fairrag-mapping', sources: [textSource('mapping.tsv', 'qid\tpid\trelevance_label\nq1\tp1\t1\nq1\tp2\t0\n')] },
    ]);
    expect(report.judgments).toMatchObject({ added: 2, unknownDocuments: 0 });
    expect(repo.qrelsOf(report.collectionId, 'utility')).toEqual([
      { queryId: 'q1', docId: 'p2', label: 0 },
      { queryId: 'q1', docId: 'q1/p1', label: 1 },
    ]);
    expect(report.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
  });

  it('into an existing collection: same content is unchanged, new rows are added, and the hash is that of the rows', async () => {
    await importIntoCollection(repo, { name: 'c' }, corpus('a.jsonl', [{ id: 'd1', text: 'one' }, { id: 'd2', text: 'two' }]));
    const again = await importIntoCollection(repo, { name: 'c' }, corpus('b.jsonl', [{ id: 'd3', text: 'three' }, { id: 'd1', text: 'one' }]));
    expect(again).toMatchObject({ created: false, noop: false, documents: { added: 1, unchanged: 1 } });
    expect(repo.listDocuments(again.collectionId).items.map((d) => d.docId)).toEqual(['d1', 'd2', 'd3']);
    expect(again.contentHash).toBe(computeContentHash(ws.db, again.collectionId));
    const noop = await importIntoCollection(repo, { name: 'c' }, corpus('b.jsonl', [{ id: 'd3', text: 'three' }, { id: 'd1', text: 'one' }]));
    expect(noop).toMatchObject({ noop: true, documents: { added: 0, unchanged: 2 }, contentHash: again.contentHash });
  });

  it('a document already there with other content is refused naming the first such line, and nothing is written', async () => {
    const first = await importIntoCollection(repo, { name: 'c' }, corpus('a.jsonl', [{ id: 'd1', title: 'T', text: 'one' }, { id: 'd2', text: 'two' }]));
    const attempt = importIntoCollection(
      repo,
      { name: 'c' },
      corpus('b.jsonl', [
        { id: 'd9', text: 'new' },
        { id: 'd2', text: 'TWO' },
        { id: 'd1', title: 'other', text: 'one' },
      ]),
    );
    await expect(attempt).rejects.toThrow(DataError);
    await expect(attempt).rejects.toMatchObject({ message: expect.stringContaining(`document 'd2' is already in the collection with a different text`), file: 'b.jsonl', line: 2, field: 'text' });
    const titleClash = importIntoCollection(repo, { name: 'c' }, corpus('c.jsonl', [{ id: 'd1', title: 'other', text: 'one' }]));
    await expect(titleClash).rejects.toMatchObject({ file: 'c.jsonl', line: 1, field: 'title' });
    expect(repo.listDocuments(first.collectionId).items.map((d) => d.docId)).toEqual(['d1', 'd2']);
    expect(repo.get(first.collectionId)!.contentHash).toBe(first.contentHash);
  });
});

describe('an import while another writer holds the lock', () => {
  /** Another connection holds the write lock, having named itself in the `-writer` note as withWriteLock does. */
  function holdLock(what: string | null): Workspace {
    const other = openWorkspace(ws.path);
    other.db.exec('BEGIN IMMEDIATE');
    other.db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES ('held', '', '')`).run();
    if (what !== null) writeFileSync(`${ws.path}-writer.${process.pid}`, JSON.stringify({ pid: process.pid, host: hostname(), what, since: new Date().toISOString() }));
    return other;
  }

  it('waits past the busy timeout, says who it waits for, then publishes', async () => {
    const other = holdLock('import is publishing');
    ws.db.pragma('busy_timeout = 50');
    const messages: string[] = [];
    const release = setTimeout(() => {
      rmSync(`${ws.path}-writer.${process.pid}`, { force: true });
      other.db.exec('COMMIT');
    }, 600);
    try {
      const report = await importIntoCollection(repo, { name: 'c' }, corpus('a.jsonl', [{ id: 'd1', text: 'one' }]), { progress: (_d, _t, m) => m && messages.push(m) });
      expect(report.documents.added).toBe(1);
    } finally {
      clearTimeout(release);
      other.close();
    }
    expect(messages).toContain(`waiting for the workspace: another import is publishing (pid ${process.pid})`);
    expect(messages.indexOf('writing')).toBeLessThan(messages.findIndex((m) => m.startsWith('waiting')));
    expect(messages.at(-1)).toBe(`added 1 document to 'c'`);
    expect(repo.list().map((c) => c.name)).toEqual(['c', 'held']);
  });

  it('a holder that left no note is "another process"; a cancel ends the wait with nothing written', async () => {
    const other = holdLock(null);
    const ac = new AbortController();
    const messages: string[] = [];
    try {
      const attempt = importIntoCollection(repo, { name: 'c' }, corpus('a.jsonl', [{ id: 'd1', text: 'one' }]), {
        signal: ac.signal,
        progress: (_d, _t, m) => {
          if (!m) return;
          messages.push(m);
          if (m.startsWith('waiting')) setTimeout(() => ac.abort(), 150);
        },
      });
      await expect(attempt).rejects.toThrow();
    } finally {
      other.db.exec('ROLLBACK');
      other.close();
    }
    expect(messages).toContain('waiting for the workspace: another process is writing to it');
    expect(repo.list()).toEqual([]);
  });
});
