/**
 * Concurrent writers wait instead of failing (issue 15 item 5). A big import writes (its documents
 * go in ranges, each one short transaction, then a short publish; it names itself in the
 * workspace's `-writer.PID` note while it holds the lock); at that moment a writer in this process
 * asks for the lock, and a second import, a retrieval run and an experiment run start in other
 * processes. Every one exits 0 — none fails with "database is locked" — and afterwards both
 * collections are whole, the retrieval run is stored once, and the experiment run executed once
 * (one run, every item once).
 *
 * The lock is held briefly: the waiting writer asked while a range of the big import's documents
 * was being written, was told who it waited for ("another import is writing (pid N)", the big
 * import's pid) and got the lock between two of the import's transactions — before 'big' existed,
 * with the documents written so far in a collection of their own whose content hash matches them.
 * How long it waited is printed, not asserted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeContentHash } from '../../src-main/store/collectionHash';
import { openWorkspace, withWriteLock } from '../../src-main/store/workspace';
import { inspectWorkspace, killAll, REPO, start, startCli, writeCorpus } from './support';

const DOCS = Number(process.env.STRESS_WRITERS_DOCS ?? 20_000);

let dir: string;
let ws: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stress-writers-'));
  ws = join(dir, 'w.fairground');
  writeCorpus(join(dir, 'big.jsonl'), DOCS, 21);
  writeCorpus(join(dir, 'small.jsonl'), 3_000, 22);
  // A small Fair RAG spec on the demo (tiny model): a handful of generations.
  writeFileSync(
    join(dir, 'spec.json'),
    JSON.stringify({
      kind: 'fair-rag',
      name: 'beside an import',
      collection: 'Fairground demo',
      tasks: ['movie-tag'],
      minUseful: 1,
      retrievalQuery: 'lamp',
      retrievers: [{ name: 'bm25', method: 'bm25', params: { k1: 1.5, b: 0.75, idf: 'rank_bm25', tokenizer: 'whitespace' } }],
      generator: { model: 'fairground-tiny' },
      decoding: { maxTokens: 2, temperature: 0 },
      k: 2,
      samples: 2,
      alphas: [1],
      oracle: false,
      deterministic: true,
      normalization: 'paper',
      target: 'paper',
      seeds: { sampling: 1, generation: 0 },
    }),
  );
  const demo = await start(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'stress', 'demoChild.ts'), ws], { cwd: REPO }).exit;
  if (demo.code !== 0) throw new Error(`demo setup failed: ${demo.stderr}`);
});
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('writers beside a committing import', () => {
  it('a second import, a retrieval run and an experiment run all wait and succeed; nothing is lost or done twice', async () => {
    const waiter = openWorkspace(ws, { checkIntegrity: false });
    const big = startCli(['collection', 'import', '--kind', 'corpus', '--name', 'big', '-w', ws, join(dir, 'big.jsonl')]);
    // Wait for the big import to hold the lock: its -writer.PID note exists only while it does.
    const note = `${ws}-writer.${big.process.pid}`;
    // Its first transaction only creates its '(importing …)' collection; the next ones write the
    // ranges of documents: once that collection is there, ask for the lock while a range holds it.
    const t0 = performance.now();
    const reader = new Database(ws, { readonly: true });
    try {
      const loading = reader.prepare(`SELECT 1 FROM collections WHERE name LIKE 'big (importing %'`).pluck();
      while (!loading.get() && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 2));
    } finally {
      reader.close();
    }
    // A note now may still be the first transaction's (removed just after its commit): wait for a
    // note written later, i.e. by a range's transaction.
    const since = () => {
      try {
        return (JSON.parse(readFileSync(note, 'utf8')) as { since: string }).since;
      } catch {
        return null;
      }
    };
    const first = since();
    for (let s = since(); (s === null || s === first) && performance.now() - t0 < 120_000; s = since()) await new Promise((r) => setImmediate(r));
    const noteSeen = performance.now();
    const told: string[] = [];
    let granted = 0;
    const seenByWaiter = await withWriteLock(
      waiter.db,
      () => {
        granted = performance.now();
        const count = (id: number) => waiter.db.prepare(`SELECT count(*) FROM documents WHERE collection_id = ?`).pluck().get(id) as number;
        const bigRow = waiter.db.prepare(`SELECT id FROM collections WHERE name = 'big'`).get() as { id: number } | undefined;
        const loading = waiter.db.prepare(`SELECT id, content_hash AS hash FROM collections WHERE name LIKE 'big (importing %'`).get() as { id: number; hash: string } | undefined;
        return {
          big: bigRow ? count(bigRow.id) : null,
          loading: loading ? { documents: count(loading.id), hashMatches: computeContentHash(waiter.db, loading.id) === loading.hash } : null,
        };
      },
      { onWait: (m) => told.push(m), pollMs: 5 },
    );
    waiter.close();
    // Told who it waited for: the big import (writing a range of its documents, or publishing).
    expect(told.length).toBeGreaterThan(0);
    for (const m of told) expect(m).toMatch(new RegExp(`^waiting for the workspace: another import is (writing|publishing) \\(pid ${big.process.pid}\\)$`));
    // It got the lock between two of the big import's short transactions, not after the whole
    // import: 'big' is not there yet (never partly), its documents so far sit in a collection of
    // their own whose content hash matches them.
    expect(seenByWaiter.big).toBeNull();
    expect(seenByWaiter.loading).toMatchObject({ hashMatches: true });
    expect(seenByWaiter.loading!.documents).toBeLessThanOrEqual(DOCS);
    const others = [
      startCli(['collection', 'import', '--kind', 'corpus', '--name', 'small', '-w', ws, join(dir, 'small.jsonl')]),
      startCli(['retrieve', '--collection', 'Fairground demo', '--method', 'bm25', '--name', 'beside', '--output', join(dir, 'beside.run'), '-w', ws]),
      startCli(['run', join(dir, 'spec.json'), '--threads', '1', '-w', ws]),
    ];
    const exits = await Promise.all([big.exit, ...others.map((o) => o.exit)]);
    const names = ['big import', 'second import', 'retrieval run', 'experiment run'];
    exits.forEach((e, i) => {
      expect(e.stderr, names[i]).not.toMatch(/locked|SQLITE_BUSY/i);
      expect(e.code, `${names[i]}: ${e.stderr}`).toBe(0);
    });
    const state = inspectWorkspace(ws);
    expect(state.integrity).toBe('ok');
    expect(state.collections.big).toMatchObject({ documents: DOCS });
    expect(state.collections.small).toMatchObject({ documents: 3_000 });
    expect(state.collections.big!.storedHash).toBe(state.collections.big!.hash);
    expect(state.runs.filter((r) => r.name === 'beside')).toHaveLength(1);
    const db = new Database(ws, { readonly: true });
    try {
      const runs = db.prepare(`SELECT id, status FROM runs`).all() as { id: number; status: string }[];
      expect(runs).toEqual([{ id: expect.any(Number), status: 'succeeded' }]);
      const dup = db.prepare(`SELECT count(*) AS n FROM (SELECT run_id, key FROM run_items GROUP BY run_id, key HAVING count(*) > 1)`).get() as { n: number };
      expect(dup.n).toBe(0);
    } finally {
      db.close();
    }
    console.log(
      `writers: a writer in this process waited ${Math.round(granted - noteSeen)} ms for the big import (from its note appearing to the lock; it then held ${seenByWaiter.loading!.documents} of ${DOCS} documents); ` +
        exits.map((e, i) => `${names[i]} ${Math.round(e.ms)} ms`).join(', '),
    );
  }, 300_000);
});
