/**
 * An answer is trusted only between two passing weights checks (issue 35 item 1), against real
 * llama.cpp `llama-server`s (test/support/llamaServer.ts): two servers, one process each, serve two
 * tiny F16 GGUFs of the same shape with different weights (the demo's seed 1: A; seed 2: B) under one
 * name, so only the weights fingerprint tells them apart. A pool of two endpoints — two small HTTP
 * proxies, one that will switch and one that always forwards to A — is added while both forward to
 * A. During a run the switching proxy goes over to B between two requests (a rollout behind one URL:
 * no request fails); the periodic re-check (100 ms here instead of 60 s, through the engine
 * configuration a stored model gets) finds B behind that proxy while the run is still sending
 * calls. The run succeeds, says how many answers it took out, keeps no answer B gave, and its items
 * and cache rows equal those of a run on A alone.
 *
 * Skips, saying so, when no llama-server binary has been built (npm run llama-server / .ci/run, where
 * FAIRGROUND_REQUIRE_LLAMA_SERVER=1 makes a missing one fail).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { CALIBRATION_USER } from '../../../src-main/engine/remote/tokenCalibration';
import { fingerprintPrompts } from '../../../src-main/engine/remote/weightsFingerprint';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { DEMO_MODEL_NAME } from '../../../src-main/services/demoSetup';
import { copyWorkspace, makeDemoWorkspace, tinySpec } from '../../experiments/fixture';
import { llamaServerSkip, startLlamaServer, type LlamaServer } from '../../support/llamaServer';

/** The pool's weights re-check interval, set as a user would (`remote set --recheck-after 0.1`; the default is 60 s). */
const RECHECK_MS = 100;

const ALIAS = 'fairground-tiny-rollout';
const SPEC = tinySpec({ name: 'rollout behind one URL', generator: { remote: 'pool' }, samples: 3, alphas: [0, 8] });

interface Forwarded {
  /** Which proxy forwarded it. */
  via: SwitchingProxy;
  upstream: 'A' | 'B';
  /** A call of the run (not a weights fingerprint, a token calibration, a tokenization or a probe of the server). */
  run: boolean;
  fingerprint: boolean;
  /** The answer's HTTP status and text (completions). */
  status: number | undefined;
  text: string | undefined;
}

/**
 * Forwards every request to A until `switchAt` calls of the run have gone through it, then to B (the
 * request that reaches the count already goes to B). From the switch until the next weights check
 * reaches it, each call of the run is held RECHECK_MS + 20 ms before it is forwarded: the pool's next
 * call here comes after the re-check interval, while the run still has calls to send.
 */
class SwitchingProxy {
  private switchAt = Infinity;
  private runCalls = 0;
  private checkedAfterSwitch = false;
  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    private readonly origins: { A: string; B: string },
    /** Every request either proxy forwarded, in arrival order (shared). */
    private readonly log: Forwarded[],
  ) {}

  static async start(a: LlamaServer, b: LlamaServer, log: Forwarded[]): Promise<SwitchingProxy> {
    const made: { proxy?: SwitchingProxy } = {};
    const server = createServer((req, res) => {
      void made.proxy!.forward(req, res);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    made.proxy = new SwitchingProxy(server, `http://127.0.0.1:${port}/v1`, { A: `http://127.0.0.1:${a.port}`, B: `http://127.0.0.1:${b.port}` }, log);
    return made.proxy;
  }

  /** Switches to B at the `k`-th call of the run from now on (what `remote add` sent is not counted). */
  switchAfter(k: number): void {
    this.runCalls = 0;
    this.switchAt = k;
  }

  get switched(): boolean {
    return this.runCalls >= this.switchAt;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks);
      const body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as { prompt?: unknown; user?: unknown }) : undefined;
      const fingerprint = req.method === 'POST' && (fingerprintPrompts as readonly unknown[]).includes(body?.prompt);
      const run = req.method === 'POST' && req.url === '/v1/completions' && !fingerprint && body?.user !== CALIBRATION_USER;
      if (run) this.runCalls++;
      const upstream = this.switched ? 'B' : 'A';
      if (upstream === 'B' && fingerprint) this.checkedAfterSwitch = true;
      const entry: Forwarded = { via: this, upstream, run, fingerprint, status: undefined, text: undefined };
      this.log.push(entry);
      if (upstream === 'B' && run && !this.checkedAfterSwitch) await new Promise((r) => setTimeout(r, RECHECK_MS + 20));
      const answer = await fetch(`${this.origins[upstream]}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(raw.length > 0 ? { body: raw } : {}),
      });
      const text = await answer.text();
      entry.status = answer.status;
      try {
        entry.text = (JSON.parse(text) as { choices?: Array<{ text?: string }> }).choices?.[0]?.text;
      } catch {
        // not JSON: no text
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `proxy: ${(error as Error).message}` } }));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

let dir: string;
let base: string;
let a: LlamaServer;
let b: LlamaServer;
/** Switches from A to B during the run. */
let proxy: SwitchingProxy;
/** Always forwards to A. */
let direct: SwitchingProxy;
const forwarded: Forwarded[] = [];
let n = 0;

async function services(endpoints: string[]): Promise<AppServices> {
  const s = createAppServices(copyWorkspace(base, join(dir, `w${++n}.fairground`)), { transport: 'http' });
  const added = await s.models.addRemote({ name: 'pool', model: ALIAS, endpoints: endpoints.map((baseUrl) => ({ baseUrl, maxConcurrency: 1 })), serverKind: 'llama.cpp', maxConcurrency: 1 });
  await s.models.updateRemoteSettings(added.id, { recheckAfterSeconds: RECHECK_MS / 1000 });
  return s;
}

interface Ran {
  status: string;
  stats: Record<string, unknown>;
  warnings: string[];
  items: unknown[];
  /** Cache rows: key → the answer's text. */
  texts: Map<string, string>;
  servedBy: Set<string | null>;
}

async function runOn(s: AppServices): Promise<Ran> {
  const e = s.experiments.create(SPEC);
  const job = s.experiments.startRun(e.id);
  const done = await s.jobs.wait(job.id);
  expect(done.error ?? null).toBeNull();
  const run = s.experiments.getRun(s.experiments.listRuns(e.id)[0]!.id);
  const items = s.experiments.repo
    .items(run.id)
    .sort((x, y) => (x.key < y.key ? -1 : 1))
    .map((it) => JSON.parse(JSON.stringify(it), (k, v: unknown) => (k === 'fromCache' ? undefined : v)) as unknown);
  const rows = s.workspace.db.prepare(`SELECT key, response, served_by FROM llm_call_cache ORDER BY key`).all() as { key: string; response: string; served_by: string | null }[];
  return {
    status: run.status,
    stats: run.stats,
    warnings: (run.manifest as { warnings: string[] } | null)?.warnings ?? [],
    items,
    texts: new Map(rows.map((r) => [r.key, (JSON.parse(r.response) as { text: string }).text])),
    servedBy: new Set(rows.map((r) => r.served_by)),
  };
}

describe.skipIf(llamaServerSkip !== undefined)('llama-server: other weights rolled out behind one URL mid-run', () => {
  let clean: Ran;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-llama-rollout-'));
    base = await makeDemoWorkspace(dir, 'base.fairground');
    const probe = createAppServices(base, { transport: 'http' });
    const modelA = (probe.workspace.db.prepare(`SELECT path FROM models WHERE name = ?`).get(DEMO_MODEL_NAME) as { path: string }).path;
    await probe.close();
    const modelB = join(dir, 'seed2.gguf');
    await writeTinyGguf(modelB, { preset: 'tiny', seed: 2 });
    [a, b] = await Promise.all([startLlamaServer(modelA, { alias: ALIAS }), startLlamaServer(modelB, { alias: ALIAS })]);
    [proxy, direct] = await Promise.all([SwitchingProxy.start(a, b, forwarded), SwitchingProxy.start(a, a, forwarded)]);
    // The run on A alone: what every stored row and item must be.
    const s = await services([a.baseUrl]);
    try {
      clean = await runOn(s);
    } finally {
      await s.close();
    }
    expect(clean.status).toBe('succeeded');
    expect(clean.texts.size).toBeGreaterThan(10);
    expect(clean.stats.answersDistrusted).toBeUndefined();
  }, 300_000);

  afterAll(async () => {
    await Promise.all([proxy?.close(), direct?.close()]);
    await Promise.all([a?.stop(), b?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the re-check finds B behind the proxy mid-run: succeeded, the count said, no row from B, the items and rows of a run on A alone', async () => {
    const s = await services([proxy.baseUrl, direct.baseUrl]); // added while both forward to A: one weights fingerprint
    try {
      forwarded.length = 0;
      proxy.switchAfter(4);
      const r = await runOn(s);
      expect(proxy.switched).toBe(true);
      // A rollout: no request of the run failed, on either endpoint.
      expect(forwarded.filter((f) => f.status !== 200)).toEqual([]);
      const fromB = forwarded.filter((f) => f.upstream === 'B');
      // B answered at least one call of the run, with a text A never gave for any call.
      const cleanTexts = new Set(clean.texts.values());
      expect(fromB.filter((f) => f.run && f.text !== undefined && !cleanTexts.has(f.text)).length).toBeGreaterThan(0);
      // The periodic re-check, not the end of the run, found it: the proxy's first check after the switch
      // came before the run had sent each of its calls once.
      const failing = forwarded.findIndex((f) => f.upstream === 'B' && f.fingerprint);
      expect(failing).toBeGreaterThan(0);
      expect(forwarded.slice(0, failing).filter((f) => f.run).length).toBeLessThan(clean.texts.size);
      // After it, the proxy took no call of the run.
      expect(forwarded.slice(failing).filter((f) => f.run && f.via === proxy).length).toBe(0);

      expect(r.status).toBe('succeeded');
      // 0 stored rows from B: every row is A's answer to that call, and the items are those of the clean run.
      expect([...r.texts].filter(([key, text]) => clean.texts.get(key) !== text)).toEqual([]);
      expect(r.texts).toEqual(clean.texts);
      expect(r.items).toEqual(clean.items);
      expect(r.stats.answersDistrusted).toBeGreaterThan(0);
      expect(r.warnings.join('\n')).toMatch(new RegExp(`${String(r.stats.answersDistrusted)} answers? came from a remote endpoint that failed a later weights check`));
      expect([...r.servedBy].every((u) => u === direct.baseUrl || u === proxy.baseUrl)).toBe(true);
    } finally {
      await s.close();
    }
  }, 300_000);
});
