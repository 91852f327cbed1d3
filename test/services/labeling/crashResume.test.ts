/**
 * Crash safety of utility labeling: `fairground label utility` runs in a child process and is
 * SIGKILLed once some LLM calls are cached; the interrupted job is resumed under its id. The
 * result must equal an uninterrupted run on a fresh copy of the workspace, with no duplicated
 * judgment rows, no cached call made again, and an intact database.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UtilityLabelReport, UtilityLabelRequest } from '../../../src-main/api/contract/labeling';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { addLabelCollection } from './fixture';

let dir: string;
let workspace: string;
let freshCopy: string;
let collectionId: number;
const open: AppServices[] = [];

// 5 queries × (1 + 6 candidates) + the LaMP-3 query × (1 + 2) = 38 calls.
const TOTAL_CALLS = 38;
const JUDGMENTS = 32;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-labels-crash-'));
  const model = join(dir, 'tiny.gguf');
  await writeTinyGguf(model, { preset: 'tiny', seed: 3 });
  workspace = join(dir, 'w.fairground');
  const s = createAppServices(workspace, { transport: 'http' });
  s.settings.update({ threads: 1 });
  await s.models.addHashed(model, 'tiny');
  collectionId = addLabelCollection(s, 'crash', {}, 5, 6);
  await s.close();
  freshCopy = join(dir, 'fresh.fairground');
  copyFileSync(workspace, freshCopy);
});

afterAll(async () => {
  for (const s of open) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function servicesFor(path: string): AppServices {
  const s = createAppServices(path, { transport: 'http' });
  open.push(s);
  return s;
}

const cacheRows = (db: Database.Database) => (db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n;

function judgmentsOf(s: AppServices) {
  return (
    s.workspace.db.prepare(`SELECT query_id, doc_id, kind, label, source, provenance FROM judgments WHERE collection_id = ? ORDER BY query_id, doc_id`).all(collectionId) as Record<string, unknown>[]
  );
}

/** Start the CLI labeling in a child process and SIGKILL it once at least `after` calls are cached. */
async function labelAndKill(after: number): Promise<{ signal: NodeJS.Signals | null; cachedAtKill: number }> {
  const child = spawn(process.execPath, ['bin/fairground.js', 'label', 'utility', '--collection', 'crash', '--model', 'tiny', '--max-tokens', '16', '--workspace', workspace], {
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const db = new Database(workspace, { readonly: true, fileMustExist: true });
  try {
    for (;;) {
      const n = cacheRows(db);
      if (n >= after) {
        child.kill('SIGKILL');
        break;
      }
      if (child.exitCode !== null) throw new Error(`the labeling ended before it could be killed (exit ${child.exitCode}): ${stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const signal = await exited;
    return { signal, cachedAtKill: cacheRows(db) };
  } finally {
    db.close();
  }
}

describe('labeling survives SIGKILL', () => {
  it('resumes the killed job to the same labels as an uninterrupted run, calling no cached call again', async () => {
    const { signal, cachedAtKill } = await labelAndKill(8);
    expect(signal).toBe('SIGKILL');
    expect(cachedAtKill).toBeGreaterThanOrEqual(8);
    expect(cachedAtKill).toBeLessThan(TOTAL_CALLS);

    // Reopening marks the CLI's job interrupted; it resumes under the same id from its stored params.
    const s = servicesFor(workspace);
    const [job] = s.jobs.list(['interrupted']).filter((j) => j.kind === 'labels.utility');
    expect(job?.resumable).toBe(true);
    const cachedBefore = cacheRows(s.workspace.db);
    const resumed = await s.jobs.wait(s.jobs.resume(job!.id).id);
    expect(resumed).toMatchObject({ id: job!.id, status: 'succeeded', progress: TOTAL_CALLS, total: TOTAL_CALLS });
    const report = resumed.result as UtilityLabelReport;
    expect(report.calls).toEqual({ total: TOTAL_CALLS, cached: cachedBefore, generated: TOTAL_CALLS - cachedBefore });
    const params = JSON.parse((s.workspace.db.prepare(`SELECT params FROM jobs WHERE id = ?`).get(job!.id) as { params: string }).params) as UtilityLabelRequest;
    const stats = s.models.engineFor(params.generator).stats();
    expect(stats).toMatchObject({ hits: cachedBefore, misses: TOTAL_CALLS - cachedBefore });
    // One cache row per distinct call: nothing was generated twice.
    expect(cacheRows(s.workspace.db)).toBe(TOTAL_CALLS);

    // An uninterrupted run of the same request on a copy taken before any labeling.
    const fresh = servicesFor(freshCopy);
    const reference = await fresh.jobs.wait(fresh.labeling.start(params).id);
    expect(reference.status).toBe('succeeded');
    expect((reference.result as UtilityLabelReport).calls.generated).toBe(TOTAL_CALLS);

    const labels = judgmentsOf(s);
    expect(labels).toHaveLength(JUDGMENTS);
    expect(labels).toEqual(judgmentsOf(fresh));
    const dupes = s.workspace.db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM judgments GROUP BY collection_id, query_id, doc_id, kind HAVING count(*) > 1)`).get() as { n: number };
    expect(dupes.n).toBe(0);
    expect(s.workspace.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(s.collections.repo.get(collectionId)!.contentHash).toBe(fresh.collections.repo.get(collectionId)!.contentHash);
  });
});
