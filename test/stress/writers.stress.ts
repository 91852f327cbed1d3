/**
 * Concurrent writers wait instead of failing (issue 15 item 5). A big import is committing (its
 * publish transaction holds the write lock for seconds); meanwhile a second import, a retrieval
 * run and an experiment run start in other processes. Every one exits 0 — none fails with
 * "database is locked" — and afterwards both collections are whole, the retrieval run is stored
 * once, and the experiment run executed once (one run, every item once).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const big = startCli(['collection', 'import', '--kind', 'corpus', '--name', 'big', '-w', ws, join(dir, 'big.jsonl')]);
    // Wait for the big import's publish transaction: the WAL grows past 4 MB only while it writes.
    const t0 = performance.now();
    for (;;) {
      let size = 0;
      try {
        size = statSync(`${ws}-wal`).size;
      } catch {
        // not yet
      }
      if (size > 4 * 1024 * 1024 || performance.now() - t0 > 120_000) break;
      await new Promise((r) => setTimeout(r, 10));
    }
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
    console.log(`writers: ${exits.map((e, i) => `${names[i]} ${Math.round(e.ms)} ms`).join(', ')}`);
  }, 300_000);
});
