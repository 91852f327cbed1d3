/**
 * Concurrent writers wait instead of failing (issue 15 item 5). A big import publishes (its one
 * short transaction holds the write lock; it names itself in the workspace's `-writer.PID` note while
 * it does); at that moment a writer in this process asks for the lock, and a second import, a
 * retrieval run and an experiment run start in other processes. Every one exits 0 — none fails
 * with "database is locked" — and afterwards both collections are whole, the retrieval run is
 * stored once, and the experiment run executed once (one run, every item once).
 *
 * The publish is short: the waiting writer was told who it waited for ("another import is
 * publishing (pid N)", the big import's pid), and when it got the lock the big collection was
 * already complete — its wait was the publish and nothing else (the staging before it holds no
 * lock). How long it waited is printed, not asserted.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    // Wait for the big import's publish: its -writer.PID note exists only while it holds the lock.
    const note = `${ws}-writer.${big.process.pid}`;
    const t0 = performance.now();
    while (!existsSync(note) && performance.now() - t0 < 120_000) await new Promise((r) => setImmediate(r));
    const noteSeen = performance.now();
    const told: string[] = [];
    let granted = 0;
    const seenByWaiter = await withWriteLock(
      waiter.db,
      () => {
        granted = performance.now();
        return waiter.db.prepare(`SELECT (SELECT count(*) FROM documents d WHERE d.collection_id = c.id) AS documents FROM collections c WHERE c.name = 'big'`).get() as
          | { documents: number }
          | undefined;
      },
      { onWait: (m) => told.push(m), pollMs: 5 },
    );
    waiter.close();
    expect(told).toEqual([`waiting for the workspace: another import is publishing (pid ${big.process.pid})`]);
    // The lock came when the publish had committed: the whole collection, all at once.
    expect(seenByWaiter).toEqual({ documents: DOCS });
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
      `writers: a writer in this process waited ${Math.round(granted - noteSeen)} ms for the big import's publish (from its note appearing to the lock); ` +
        exits.map((e, i) => `${names[i]} ${Math.round(e.ms)} ms`).join(', '),
    );
  }, 300_000);
});
