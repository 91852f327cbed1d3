/**
 * The periodic weights re-check during a run (issue 35 item 1): an endpoint's weights are checked
 * again before its next call once `recheckAfterMs` has passed since its last check (60 s by
 * default; 100 ms here, through the engine configuration a stored model gets). A pool of two
 * stand-ins of one model identified by a weights fingerprint; one of them switches to other weights
 * between two requests of a run — with no failed request — and the re-check before its next call
 * finds it while the run is still sending its calls (weightsSwapRun.test.ts covers the swaps only
 * the end-of-run check sees). Every answer that endpoint gave since its last passing check is taken
 * out of the cache and computed again on the other endpoint: the run succeeds, no stored row
 * carries the other weights' answer, its items equal those of a run on one clean server, and it
 * says how many answers it took out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALIBRATION_USER } from '../../src-main/engine/remote/tokenCalibration';
import { fingerprintPrompts } from '../../src-main/engine/remote/weightsFingerprint';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { copyWorkspace, makeDemoWorkspace } from '../experiments/fixture';
import { FakeOpenAiServer, type RecordedRequest } from '../support/fakeOpenAiServer';
import { runTinyOnPool } from './weightsSwapSupport';

/** The pool's weights re-check interval, set as a user would (`remote set --recheck-after 0.1`; the default is 60 s). */
const RECHECK_MS = 100;

const OTHER = 'Other weights. ';
let dir: string;
let base: string;
let n = 0;
const fakes: FakeOpenAiServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-weights-recheck-'));
  base = await makeDemoWorkspace(dir, 'base.fairground');
}, 120_000);

afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function fake(): Promise<FakeOpenAiServer> {
  // No `root`: the weights are identified by a fingerprint of greedy outputs (what llama.cpp's server needs).
  const f = await FakeOpenAiServer.start({ models: ['m'], root: null, postDelayMs: 2 });
  fakes.push(f);
  return f;
}

const promptOf = (r: RecordedRequest): unknown => (r.body as { prompt?: unknown } | undefined)?.prompt;
const isFingerprint = (r: RecordedRequest): boolean => r.method === 'POST' && (fingerprintPrompts as readonly unknown[]).includes(promptOf(r));
/** A request of the run (not a weights fingerprint, not the token calibration). */
function isRunCall(r: RecordedRequest): boolean {
  return r.method === 'POST' && r.path === '/v1/completions' && !isFingerprint(r) && (r.body as { user?: unknown } | undefined)?.user !== CALIBRATION_USER;
}

async function services(endpoints: FakeOpenAiServer[]): Promise<AppServices> {
  const s = createAppServices(copyWorkspace(base, join(dir, `w${++n}.fairground`)), { transport: 'http' });
  const added = await s.models.addRemote({ name: 'pool', model: 'm', endpoints: endpoints.map((e) => ({ baseUrl: e.baseUrl, maxConcurrency: 2 })), serverKind: 'vllm', maxConcurrency: 2 });
  await s.models.updateRemoteSettings(added.id, { recheckAfterSeconds: RECHECK_MS / 1000 });
  return s;
}

describe('a pool member switching weights mid-run, caught by the periodic re-check', () => {
  let clean: { items: unknown[]; calls: number };

  beforeAll(async () => {
    const solo = await fake();
    const s = await services([solo]);
    try {
      const r = await runTinyOnPool(s);
      expect(r.status).toBe('succeeded');
      clean = { items: r.items, calls: (s.workspace.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n };
      expect(clean.calls).toBeGreaterThan(12);
      expect(r.stats.answersDistrusted).toBeUndefined();
    } finally {
      await s.close();
    }
  }, 120_000);

  it.each([
    // At a's first call of the run, or at its call halfway through the run (a takes about half of them).
    ['early', (_calls: number) => 1],
    ['in the middle', (calls: number) => Math.floor(calls / 4)],
  ])('%s: the re-check before its next call finds it while the run goes on; 0 stored rows from the other weights, the items of a clean run, the count said', async (_when, at) => {
    const [a, b] = [await fake(), await fake()];
    const s = await services([a, b]);
    try {
      const swapAt = at(clean.calls);
      /** Every request to either server after the pool was added, in arrival order. */
      const seen: Array<{ onA: boolean; run: boolean; fingerprint: boolean; other: boolean; prompt: unknown }> = [];
      let callsOnA = 0;
      let found = false;
      const record =
        (server: FakeOpenAiServer) =>
        (r: RecordedRequest): void => {
          const run = isRunCall(r);
          const onA = server === a;
          // a's call that makes the count reach swapAt is already answered by the other weights.
          if (run && onA && ++callsOnA === swapAt) a.options.replyPrefix = OTHER;
          const other = a.options.replyPrefix === OTHER;
          if (onA && isFingerprint(r) && other) found = true;
          // From the swap until a's weights are checked again, each call takes longer than the re-check
          // interval (checks stay fast): a's next call comes after the interval has passed, while the
          // run still has calls to send. Read by the stand-in right after this hook.
          server.options.postDelayMs = run && other && !found ? RECHECK_MS + 20 : 2;
          seen.push({ onA, run, fingerprint: isFingerprint(r), other, prompt: promptOf(r) });
        };
      a.options.onRequest = record(a);
      b.options.onRequest = record(b);
      const r = await runTinyOnPool(s);
      expect(a.options.replyPrefix).toBe(OTHER); // the swap did happen during the run

      // a's first weights check after the swap came before the run had sent each of its calls once:
      // the periodic re-check, not the end-of-run check, found it.
      const failing = seen.findIndex((q) => q.onA && q.fingerprint && q.other);
      expect(failing).toBeGreaterThan(0);
      expect(seen.slice(0, failing).filter((q) => q.run).length).toBeLessThan(clean.calls);
      // a answered calls with the other weights before it was found, and no call after.
      expect(seen.slice(0, failing).filter((q) => q.onA && q.run && q.other).length).toBeGreaterThan(0);
      expect(seen.slice(failing).filter((q) => q.onA && q.run)).toEqual([]);

      expect(r.status).toBe('succeeded');
      const rows = s.workspace.db.prepare(`SELECT request, response, served_by FROM llm_call_cache`).all() as { request: string; response: string; served_by: string | null }[];
      expect(rows.filter((row) => row.response.includes(OTHER))).toEqual([]);
      expect(rows.length).toBe(clean.calls);
      expect(r.items).toEqual(clean.items);
      // Each answer a gave since its last passing check was taken out and counted.
      expect(r.stats.answersDistrusted).toBeGreaterThan(0);
      expect(r.warnings.join('\n')).toMatch(new RegExp(`${String(r.stats.answersDistrusted)} answers? came from a remote endpoint that failed a later weights check`));
      // What is kept from a is what it answered before its last passing check began (vouched for by
      // that check); everything else came from b.
      const lastPassing = seen.findLastIndex((q, i) => i < failing && q.onA && q.prompt === fingerprintPrompts[0]);
      const vouched = new Set(seen.slice(0, lastPassing).filter((q) => q.onA && q.run).map((q) => q.prompt));
      const keptFromA = rows.filter((row) => row.served_by === a.baseUrl);
      expect(keptFromA.filter((row) => !vouched.has((JSON.parse(row.request) as { prompt?: unknown }).prompt))).toEqual([]);
      expect(rows.filter((row) => row.served_by !== a.baseUrl && row.served_by !== b.baseUrl)).toEqual([]);
    } finally {
      await s.close();
    }
  }, 120_000);
});
