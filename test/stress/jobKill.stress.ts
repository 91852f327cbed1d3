/**
 * SIGKILL during write-heavy workspace jobs (issue 10): a process running the app's services
 * (jobChild.ts: import a corpus, import queries, a BM25 run over every query, all as jobs through
 * the API) is killed at seeded points. Afterwards the workspace passes SQLite's and FTS5's
 * integrity checks and holds only whole steps: the collection is absent or has every document,
 * the queries are all there or none, the run is absent or complete. Reopening — as a user
 * restarting the app — marks the killed job interrupted, resumes it (imports are resumable),
 * skips finished steps, and ends equal to a run that was never killed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src-main/core/random/rng';
import { inspectWorkspace, killAfter, killAll, REPO, start, writeCorpus, writeQueries, type WorkspaceState } from './support';

const DOCS = Number(process.env.STRESS_JOB_DOCS ?? 30_000);
const QUERIES = Number(process.env.STRESS_JOB_QUERIES ?? 1_000);
const TRIALS = Number(process.env.STRESS_JOB_KILLS ?? 3);

let dir: string;
let corpus: string;
let queries: string;
let baseline: WorkspaceState;
let baselineMs: number;

const child = (ws: string) => start(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'stress', 'jobChild.ts'), ws, corpus, queries], { cwd: REPO });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stress-jobs-'));
  corpus = join(dir, 'corpus.jsonl');
  queries = join(dir, 'queries.jsonl');
  writeCorpus(corpus, DOCS, 11);
  writeQueries(queries, QUERIES, 12);
  const ws = join(dir, 'baseline.fairground');
  const done = await child(ws).exit;
  if (done.code !== 0) throw new Error(`baseline failed: ${done.stderr}`);
  baselineMs = done.ms;
  baseline = inspectWorkspace(ws);
});
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('write-heavy jobs killed with SIGKILL', () => {
  it('the uninterrupted jobs leave a complete collection and run', () => {
    expect(baseline.collections.big).toMatchObject({ documents: DOCS, queries: QUERIES });
    expect(baseline.runs).toHaveLength(1);
    expect(baseline.runs[0]!.results).toBeGreaterThan(QUERIES);
    expect(baseline.jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it(`${TRIALS} kills at seeded points: whole steps only; reopening resumes and ends equal`, async () => {
    const rng = createRng(701 + Number(process.env.STRESS_SEED ?? 0));
    const report: string[] = [];
    for (let t = 0; t < TRIALS; t++) {
      const fraction = 0.1 + 0.85 * ((t + rng.nextFloat()) / TRIALS);
      const at = Math.round(fraction * baselineMs);
      const ws = join(dir, `trial-${t}.fairground`);
      const exit = await killAfter(child(ws), at);
      const label = `trial ${t} (kill at ${at} ms = ${(fraction * 100).toFixed(0)}%${exit.killed ? '' : ', finished first'})`;
      let state: WorkspaceState | undefined;
      try {
        state = inspectWorkspace(ws);
      } catch {
        // killed before the workspace file existed
      }
      if (state) {
        expect(state.integrity, label).toBe('ok');
        expect(state.fts, label).toBe('ok');
        const c = state.collections.big;
        if (c) {
          expect(c.documents, label).toBe(DOCS);
          expect([0, QUERIES], label).toContain(c.queries);
          expect(c.hash, label).toBe(c.storedHash);
          if (c.queries === QUERIES) expect(c.hash, label).toBe(baseline.collections.big!.hash);
        }
        for (const r of state.runs) expect(r, label).toEqual(baseline.runs[0]);
        report.push(`${label}: schema ${state.schemaVersion}, ${c ? `${c.documents} documents, ${c.queries} queries, ${state.runs.length} run(s)` : 'no collection'}; jobs ${state.jobs.map((j) => j.status).join(',') || '-'}`);
      } else report.push(`${label}: no workspace yet`);

      const reopened = await child(ws).exit;
      expect(reopened.code, `${label}: reopening: ${reopened.stderr}`).toBe(0);
      const after = inspectWorkspace(ws);
      expect(after.integrity).toBe('ok');
      expect(after.collections, label).toEqual(baseline.collections);
      expect(after.runs, label).toEqual(baseline.runs);
      expect(after.jobs.filter((j) => j.status === 'running' || j.status === 'queued'), label).toEqual([]);
      const resumed = (JSON.parse(reopened.stdout.trim().split('\n').pop()!) as { resumed: string[] }).resumed;
      report[report.length - 1] += `; reopened: resumed ${resumed.length} job(s), jobs now ${after.jobs.map((j) => j.status).join(',')}`;
    }
    console.log(`job kills (baseline ${baselineMs.toFixed(0)} ms):\n  ${report.join('\n  ')}`);
  });
});
