/**
 * A run killed after a caught weights swap still says how many answers it took out (issue 35 item 1).
 * A `fairground run` process on a pool of two stand-ins of one model; one switches to other weights
 * mid-run (no failed request). The run's final weights check catches it and takes that endpoint's
 * answers out; the process is SIGKILLed at the first call of the pass that computes them again (the
 * condition is waited for, not timed). A second `fairground run` resumes the run: it succeeds, no
 * stored row carries the other weights, and its stats and manifest name the count the first process
 * found — before, the count lived only in the killed process and the resumed run said nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintPrompts } from '../../src-main/engine/remote/weightsFingerprint';
import { createAppServices } from '../../src-main/services/appServices';
import { openWorkspace } from '../../src-main/store/workspace';
import { copyWorkspace, makeDemoWorkspace, tinySpec } from '../experiments/fixture';
import { FakeOpenAiServer, type RecordedRequest } from '../support/fakeOpenAiServer';
import { CALIBRATION_USER } from '../../src-main/engine/remote/tokenCalibration';

const ROOT = process.cwd();
const OTHER = 'Other weights. ';
let dir: string;
let base: string;
const fakes: FakeOpenAiServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-weights-kill-'));
  base = await makeDemoWorkspace(dir, 'base.fairground');
}, 120_000);

afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A request of the run (not a weights fingerprint, not the token calibration). */
function isRunCall(r: RecordedRequest): boolean {
  const body = r.body as { prompt?: unknown; user?: unknown } | undefined;
  return r.method === 'POST' && r.path === '/v1/completions' && !(fingerprintPrompts as readonly unknown[]).includes(body?.prompt) && body?.user !== CALIBRATION_USER;
}
const isFingerprint = (r: RecordedRequest): boolean => r.method === 'POST' && (fingerprintPrompts as readonly unknown[]).includes((r.body as { prompt?: unknown } | undefined)?.prompt);

function run(specFile: string, ws: string): { child: ChildProcess; exit: Promise<{ code: number | null; signal: string | null; stderr: string }> } {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'fairground.js'), 'run', specFile, '--workspace', ws], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return { child, exit: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr }))) };
}

describe('a run killed between a caught weights swap and the pass that recomputes', () => {
  it('resumed, it succeeds with 0 rows from the other weights and names the count found before the kill', async () => {
    const [a, b] = [await FakeOpenAiServer.start({ models: ['m'], root: null, postDelayMs: 2 }), await FakeOpenAiServer.start({ models: ['m'], root: null, postDelayMs: 2 })];
    fakes.push(a, b);
    const ws = copyWorkspace(base, join(dir, 'w.fairground'));
    const s = createAppServices(ws, { transport: 'http' });
    await s.models.addRemote({ name: 'pool', model: 'm', endpoints: [a, b].map((e) => ({ baseUrl: e.baseUrl, maxConcurrency: 2 })), serverKind: 'vllm', maxConcurrency: 2 });
    await s.close();
    const specFile = join(dir, 'spec.json');
    writeFileSync(specFile, JSON.stringify(tinySpec({ generator: { remote: 'pool' } })));

    // a swaps after the 4th call of the run; once a's final check has failed (a fingerprint answered with
    // the other weights), the next run call on either endpoint is the recomputing pass: kill there.
    let seen = 0;
    let caught = false;
    let killed = false;
    const first = run(specFile, ws);
    const watch = (r: RecordedRequest): void => {
      if (isFingerprint(r) && a.options.replyPrefix === OTHER) caught = true;
      if (!isRunCall(r)) return;
      if (++seen === 4) a.options.replyPrefix = OTHER;
      if (caught && !killed && seen > 4) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    a.options.onRequest = watch;
    b.options.onRequest = watch;
    const end1 = await first.exit;
    expect(killed, `the first process ended without reaching the recomputing pass: ${end1.stderr}`).toBe(true);
    expect(end1.signal).toBe('SIGKILL');
    const w1 = openWorkspace(ws);
    const stored = w1.db.prepare(`SELECT status, stats FROM runs`).all() as { status: string; stats: string }[];
    w1.close();
    expect(stored).toHaveLength(1);
    const found = (JSON.parse(stored[0]!.stats) as { answersDistrusted?: number }).answersDistrusted;
    expect(found).toBeGreaterThan(0);

    a.options.onRequest = undefined;
    b.options.onRequest = undefined;
    const second = await run(specFile, ws).exit;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming run/);
    const w2 = openWorkspace(ws);
    try {
      const rows = w2.db.prepare(`SELECT response FROM llm_call_cache`).all() as { response: string }[];
      expect(rows.filter((r) => r.response.includes(OTHER))).toEqual([]);
      const runs = w2.db.prepare(`SELECT status, stats, manifest FROM runs`).all() as { status: string; stats: string; manifest: string }[];
      expect(runs).toHaveLength(1);
      expect(runs[0]!.status).toBe('succeeded');
      expect((JSON.parse(runs[0]!.stats) as { answersDistrusted?: number }).answersDistrusted).toBe(found);
      expect((JSON.parse(runs[0]!.manifest) as { warnings: string[] }).warnings.join('\n')).toMatch(new RegExp(`${String(found)} answers? came from a remote endpoint that failed a later weights check`));
    } finally {
      w2.close();
    }
  }, 240_000);
});
