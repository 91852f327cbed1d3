/**
 * Issue 35 item 4, one computation per call across processes, through the real `fairground run`
 * command in child processes against a loopback OpenAI-compatible stand-in that counts requests
 * (test/support/fakeOpenAiServer.ts):
 *
 * - three `fairground run` processes and the app (`fairground serve`, the run started through its
 *   HTTP API) on one spec and one workspace at once: the server gets exactly one generation request
 *   per distinct call, no call is computed twice, and each of the four runs' items equal those of
 *   one run alone;
 * - a claim left by a process that died (a call_claims row whose pid has exited) is taken over:
 *   the run computes that call and finishes.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineBoot } from '../../src-main/store/callCacheRepo';
import { openWorkspace } from '../../src-main/store/workspace';
import { copyWorkspace, tinySpec } from '../experiments/fixture';
import { CALIBRATION_USER } from '../../src-main/engine/remote/tokenCalibration';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { startLab, stopLab } from '../support/labServer';

const ROOT = process.cwd();
let dir: string;
let base: string;
let server: FakeOpenAiServer;
let n = 0;

beforeAll(async () => {
  ({ dir, base, server } = await startLab('fg-claims-'));
}, 240_000);

afterAll(() => stopLab(dir, server));

function query<T>(ws: string, sql: string, ...params: unknown[]): T[] {
  const w = openWorkspace(ws);
  try {
    return w.db.prepare(sql).all(...params) as T[];
  } finally {
    w.close();
  }
}

/** Each run's items (without where their answers came from), by run id. */
function runItems(ws: string): Map<number, { status: string; items: Map<string, unknown> }> {
  const out = new Map<number, { status: string; items: Map<string, unknown> }>();
  for (const run of query<{ id: number; status: string }>(ws, `SELECT id, status FROM runs ORDER BY id`)) {
    const items = new Map<string, unknown>();
    for (const r of query<{ key: string; payload: string }>(ws, `SELECT key, payload FROM run_items WHERE run_id = ? ORDER BY key`, run.id)) {
      items.set(r.key, JSON.parse(r.payload, (k, v: unknown) => (k === 'fromCache' ? undefined : v)));
    }
    out.set(run.id, { status: run.status, items });
  }
  return out;
}

function spec(name: string): string {
  const file = join(dir, `spec${++n}.json`);
  writeFileSync(file, JSON.stringify(tinySpec({ name, generator: { remote: 'lab' }, decoding: { maxTokens: 8 } })));
  return file;
}

/** `fairground run` in a child process: its exit code and stderr. */
function runProcess(specFile: string, ws: string, extra: string[] = []): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'fairground.js'), 'run', specFile, '--workspace', ws, ...extra], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

/** The app in browser mode (`fairground serve`) on a workspace, in a child process, and its HTTP API. */
async function serveApp(ws: string): Promise<{ api: (method: string, input: unknown) => Promise<{ ok: boolean; data?: unknown; error?: { message: string } }>; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'fairground.js'), 'serve', '--no-open', '--no-demo', '--port', '0', '--workspace', ws], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (printed += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The URL goes to stdout; "Workspace: PATH" (the workspace is open) to stderr.
  for (let i = 0; i < 1200 && !/Workspace: /.test(stderr) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 50));
  const url = /Fairground is running at (\S+)/.exec(printed)?.[1];
  if (!url || !/Workspace: /.test(stderr)) {
    child.kill('SIGKILL');
    throw new Error(`fairground serve did not open the workspace: ${printed}${stderr}`);
  }
  const u = new URL(url);
  const api = async (method: string, input: unknown) => {
    const res = await fetch(`${u.origin}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${u.searchParams.get('token')}` }, body: JSON.stringify(input) });
    return (await res.json()) as { ok: boolean; data?: unknown; error?: { message: string } };
  };
  const stop = async () => {
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);
  };
  return { api, stop };
}

/** A run started in the app: the spec file's experiment (created by `fairground run`, or else here) run through the API, awaited to its end. */
async function appRun(app: Awaited<ReturnType<typeof serveApp>>, specFile: string): Promise<string> {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as { name: string };
  const listed = await app.api('experiments.list', {});
  let experiment = (listed.data as Array<{ id: number; name: string }>).find((e) => e.name === spec.name);
  if (!experiment) {
    const created = await app.api('experiments.create', { spec });
    expect(created.ok, JSON.stringify(created)).toBe(true);
    experiment = created.data as { id: number; name: string };
  }
  const started = await app.api('experiments.run', { id: experiment.id });
  expect(started.ok, JSON.stringify(started)).toBe(true);
  const id = (started.data as { id: string }).id;
  for (let i = 0; i < 6000; i++) {
    const job = (await app.api('jobs.get', { id })).data as { status: string; error: string | null };
    if (!['queued', 'running'].includes(job.status)) return job.error ? `${job.status}: ${job.error}` : job.status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the app's run (job ${id}) did not end`);
}

/** The study's generation requests: the remote engine's token calibration (its `user` marks it) is not a call. */
const generations = () => server.requestsTo('/v1/completions').filter((r) => (r.body as { user?: unknown } | null)?.user !== CALIBRATION_USER).length;

describe('one computation per call across processes', () => {
  it('three fairground run processes and the app on one spec: requests = distinct calls, nothing computed twice, items identical to one run', async () => {
    const file = spec('three processes');
    const alone = copyWorkspace(base, join(dir, `alone${++n}.fairground`));
    const before = generations();
    const single = await runProcess(file, alone);
    expect(single.code, single.stderr).toBe(0);
    const distinct = generations() - before;
    expect(distinct).toBe(query<{ n: number }>(alone, `SELECT count(*) AS n FROM llm_call_cache`)[0]!.n);
    expect(distinct).toBeGreaterThan(10);
    const [reference] = [...runItems(alone).values()];

    const shared = copyWorkspace(base, join(dir, `shared${++n}.fairground`));
    const app = await serveApp(shared);
    // Each answer takes a while, so the four processes compute at the same time.
    server.options.postDelayMs = 150;
    try {
      const start = generations();
      const cli = Promise.all([runProcess(file, shared, ['--new']), runProcess(file, shared, ['--new']), runProcess(file, shared, ['--new'])]);
      // The app's run starts once the command-line runs are computing, so it meets their claims.
      for (let i = 0; i < 1200 && generations() === start; i++) await new Promise((r) => setTimeout(r, 25));
      const [inApp, runs] = await Promise.all([appRun(app, file), cli]);
      expect(inApp).toBe('succeeded');
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      expect(generations() - start).toBe(distinct);
    } finally {
      server.options.postDelayMs = 0;
      await app.stop();
    }
    expect(query<{ n: number }>(shared, `SELECT count(*) AS n FROM llm_call_cache`)[0]!.n).toBe(distinct);
    expect(query<{ n: number }>(shared, `SELECT coalesce(sum(computations - 1), 0) AS n FROM llm_call_cache`)[0]!.n).toBe(0);
    expect(query<{ n: number }>(shared, `SELECT count(*) AS n FROM call_claims`)[0]!.n).toBe(0);
    const runs = [...runItems(shared).values()];
    expect(runs).toHaveLength(4);
    for (const r of runs) {
      expect(r.status).toBe('succeeded');
      expect(r.items).toEqual(reference!.items);
    }
  }, 600_000);

  it("a claim of a process that died is taken over: the run computes the call and finishes", async () => {
    const file = spec('dead claim');
    // One run alone, to learn the calls' keys; then a fresh workspace where one of them is claimed by a dead process.
    const first = copyWorkspace(base, join(dir, `first${++n}.fairground`));
    expect((await runProcess(file, first)).code).toBe(0);
    const keys = query<{ key: string }>(first, `SELECT key FROM llm_call_cache ORDER BY key`).map((r) => r.key);
    const dead = spawn(process.execPath, ['-e', '']);
    const pid = dead.pid!;
    await new Promise((resolve) => dead.on('exit', resolve));

    const ws = copyWorkspace(base, join(dir, `dead${++n}.fairground`));
    const w = openWorkspace(ws);
    try {
      // A fresh heartbeat: only the pid tells that its process is gone.
      w.db.prepare(`INSERT INTO call_claims(key, pid, boot, started_at, heartbeat) VALUES (?, ?, ?, ?, ?)`).run(keys[0], pid, machineBoot(), new Date().toISOString(), Date.now());
    } finally {
      w.close();
    }
    const before = generations();
    const r = await runProcess(file, ws);
    expect(r.code, r.stderr).toBe(0);
    expect(generations() - before).toBe(keys.length);
    expect(query<{ key: string }>(ws, `SELECT key FROM llm_call_cache ORDER BY key`).map((k) => k.key)).toEqual(keys);
    expect(query<{ n: number }>(ws, `SELECT count(*) AS n FROM call_claims`)[0]!.n).toBe(0);
    expect([...runItems(ws).values()][0]!.items).toEqual([...runItems(first).values()][0]!.items);
  }, 600_000);
});
