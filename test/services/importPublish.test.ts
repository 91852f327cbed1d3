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
import { openWorkspace, withWriteLock, type Workspace } from '../../src-main/store/workspace';

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

describe('a big new collection, written range by range', () => {
  const big = (n: number) => corpus('big.jsonl', Array.from({ length: n }, (_, i) => ({ id: `d${i}`, title: `T${i % 7}`, text: `word${i % 13} word${i % 17} item ${i}` })));

  it('other writers get the lock between ranges; they see no partial NAME, only a consistent (importing …) collection; NAME appears whole', async () => {
    const other = openWorkspace(ws.path);
    const seen: { names: string[]; loading?: { documents: number; hashMatches: boolean } }[] = [];
    const holds: number[] = [];
    let tried = 0;
    try {
      const report = await importIntoCollection(repo, { name: 'c' }, big(25_000), {
        onPublished: (longest, all) => holds.push(longest, all),
        progress: (_d, _t, m) => {
          if (!m?.startsWith('writing: ') || m.startsWith('writing: 25,000')) return;
          tried++;
          // Another connection asks for the lock the moment a range has committed: it gets it in the pause.
          void withWriteLock(other.db, () => {
            const names = other.db.prepare(`SELECT name FROM collections ORDER BY name`).pluck().all() as string[];
            const row = other.db.prepare(`SELECT id, content_hash AS hash FROM collections WHERE name LIKE 'c (importing %'`).get() as { id: number; hash: string } | undefined;
            const documents = row ? (other.db.prepare(`SELECT count(*) FROM documents WHERE collection_id = ?`).pluck().get(row.id) as number) : 0;
            seen.push({ names, ...(row ? { loading: { documents, hashMatches: computeContentHash(other.db, row.id) === row.hash } } : {}) });
          });
        },
      });
      expect(report).toMatchObject({ created: true, collectionName: 'c', documents: { added: 25_000 } });
      expect(report.contentHash).toBe(computeContentHash(ws.db, report.collectionId));
      expect(repo.list().map((c) => [c.name, c.counts.documents])).toEqual([['c', 25_000]]);
      expect(repo.listDocuments(report.collectionId, { limit: 3 }).items.map((d) => d.docId)).toEqual(['d0', 'd1', 'd2']);
    } finally {
      other.close();
    }
    // 25,000 documents: ranges of 10,000, 10,000 and 5,000; the other writer got in after each of the first two.
    expect(tried).toBe(2);
    expect(seen).toEqual([
      { names: [expect.stringMatching(/^c \(importing \d+-\d+\)$/)], loading: { documents: 10_000, hashMatches: true } },
      { names: [expect.stringMatching(/^c \(importing \d+-\d+\)$/)], loading: { documents: 20_000, hashMatches: true } },
    ]);
    expect(holds[0]).toBeLessThanOrEqual(holds[1]!);
  });

  it('a cancel between ranges removes what was written; an import whose process died is removed by the next import', async () => {
    const ac = new AbortController();
    const attempt = importIntoCollection(repo, { name: 'c' }, big(25_000), {
      signal: ac.signal,
      progress: (_d, _t, m) => m?.startsWith('writing: 10,000') && ac.abort(),
    });
    await expect(attempt).rejects.toThrow();
    expect(repo.list()).toEqual([]);
    expect(ws.db.prepare(`SELECT count(*) FROM documents`).pluck().get()).toBe(0);
    // A process killed while filling its collection (pid beyond pid_max: gone).
    const dead = repo.create('c (importing 4194999-1)');
    repo.addDocuments(dead.id, [{ docId: 'x', text: 'left behind' }]);
    await importIntoCollection(repo, { name: 'small' }, corpus('a.jsonl', [{ id: 'd1', text: 'one' }]));
    expect(repo.list().map((c) => c.name)).toEqual(['small']);
  });
});
