/**
 * An answer is trusted only between two passing weights checks (issue 35 item 1). A pool of two
 * stand-ins of one model identified by a weights fingerprint; one of them switches to other weights
 * between two requests of a run — with no failed request — early, in the middle, or just before the
 * run's last request. Every time: the run succeeds only after each endpoint that answered it passed
 * a check after its last answer, no stored call carries the other weights' answer, the run's items
 * equal those of a run on one clean server, and the run says how many answers it took out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintPrompts } from '../../src-main/engine/remote/weightsFingerprint';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { copyWorkspace, makeDemoWorkspace } from '../experiments/fixture';
import { FakeOpenAiServer, type RecordedRequest } from '../support/fakeOpenAiServer';
import { runTinyOnPool } from './weightsSwapSupport';

const OTHER = 'Other weights. ';
let dir: string;
let base: string;
let n = 0;
const fakes: FakeOpenAiServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-weights-swap-'));
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

/** A request of the run (not a weights fingerprint). */
function isRunCall(r: RecordedRequest): boolean {
  const prompt = (r.body as { prompt?: unknown } | undefined)?.prompt;
  return r.method === 'POST' && r.path === '/v1/completions' && !(fingerprintPrompts as readonly unknown[]).includes(prompt);
}

async function services(endpoints: FakeOpenAiServer[]): Promise<AppServices> {
  const s = createAppServices(copyWorkspace(base, join(dir, `w${++n}.fairground`)), { transport: 'http' });
  await s.models.addRemote({ name: 'pool', model: 'm', endpoints: endpoints.map((e) => ({ baseUrl: e.baseUrl, maxConcurrency: 2 })), serverKind: 'vllm', maxConcurrency: 2 });
  return s;
}

describe('a pool member switching weights between two requests of a run', () => {
  let clean: { items: unknown[]; calls: number };

  beforeAll(async () => {
    const solo = await fake();
    const s = await services([solo]);
    try {
      const r = await runTinyOnPool(s);
      expect(r.status).toBe('succeeded');
      clean = { items: r.items, calls: (s.workspace.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n };
      expect(solo.requests.filter(isRunCall).length).toBeGreaterThanOrEqual(clean.calls);
      expect(clean.calls).toBeGreaterThan(8);
      expect(r.stats.answersDistrusted).toBeUndefined();
    } finally {
      await s.close();
    }
  }, 120_000);

  it.each([
    ['early', (_calls: number) => 2],
    ['in the middle', (calls: number) => Math.floor(calls / 2)],
    ['just before the end', (calls: number) => calls - 1],
  ])('%s: 0 stored rows from the other weights, the items of a clean run, the count said', async (_when, at) => {
    const [a, b] = [await fake(), await fake()];
    const s = await services([a, b]);
    try {
      const swapAt = at(clean.calls);
      let seen = 0;
      let answeredByA = 0;
      const count = (r: RecordedRequest): void => {
        if (!isRunCall(r)) return;
        if (r.headers.host === new URL(a.baseUrl).host) answeredByA++;
        // The request that makes the count reach swapAt (on either server) is already answered by the other weights on a.
        if (++seen === swapAt) a.options.replyPrefix = OTHER;
      };
      a.options.onRequest = count;
      b.options.onRequest = count;
      const r = await runTinyOnPool(s);
      expect(a.options.replyPrefix).toBe(OTHER); // the swap did happen during the run
      expect(r.status).toBe('succeeded');
      const rows = s.workspace.db.prepare(`SELECT response, served_by FROM llm_call_cache`).all() as { response: string; served_by: string | null }[];
      expect(rows.filter((row) => row.response.includes(OTHER))).toEqual([]);
      expect(rows.length).toBe(clean.calls);
      expect(r.items).toEqual(clean.items);
      // a answered some calls before the swap was found: each of them was taken out and counted.
      expect(answeredByA).toBeGreaterThan(0);
      expect(r.stats.answersDistrusted).toBeGreaterThan(0);
      expect(r.warnings.join('\n')).toMatch(new RegExp(`${String(r.stats.answersDistrusted)} answers? came from a remote endpoint that failed a later weights check`));
      // What is kept came from b, the endpoint that passed its final check.
      expect(new Set(rows.map((row) => row.served_by))).toEqual(new Set([b.baseUrl]));
    } finally {
      await s.close();
    }
  }, 120_000);
});
