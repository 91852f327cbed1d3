/**
 * Probing and weight identity against the real llama.cpp server (issue 24 items 3 and 4), built
 * from node-llama-cpp's bundled source by scripts/build-llama-server.sh: two tiny GGUFs of the
 * same shape with different seeds report identical `meta` in GET /v1/models, so only the weights
 * fingerprint tells them apart. Three servers: seed 1 twice (one pool) and seed 2.
 *
 * Skips, saying so, when no llama-server binary has been built (npm run llama-server / .ci/run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { engineConfigOf, type RemoteRow } from '../../../src-main/services/remoteModels';

function findLlamaServer(): string | undefined {
  if (process.env.FAIRGROUND_LLAMA_SERVER && existsSync(process.env.FAIRGROUND_LLAMA_SERVER)) return process.env.FAIRGROUND_LLAMA_SERVER;
  const root = join(homedir(), '.cache', 'fairground', 'llama-server');
  if (!existsSync(root)) return undefined;
  for (const d of readdirSync(root)) {
    for (const candidate of [join(root, d, 'llama-server'), join(root, d, 'bin', 'llama-server')]) if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const binary = findLlamaServer();
if (!binary) console.warn('llamaServerIdentity.test.ts: SKIPPED — no llama-server binary under ~/.cache/fairground/llama-server (build it with scripts/build-llama-server.sh)');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Running {
  process: ChildProcess;
  baseUrl: string;
}

async function startServer(model: string): Promise<Running> {
  const port = await freePort();
  const child = spawn(binary!, ['-m', model, '--alias', 'tiny', '--host', '127.0.0.1', '--port', String(port), '-t', '1', '-np', '1', '-c', '512'], { stdio: 'ignore' });
  const root = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${root}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('llama-server did not become healthy in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { process: child, baseUrl: `${root}/v1` };
}

let dir: string;
let s: AppServices;
let a1: Running;
let a2: Running;
let b: Running;

describe.skipIf(!binary)('remote add against llama-server', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-llama-identity-'));
    await writeTinyGguf(join(dir, 'seed1.gguf'), { seed: 1 });
    await writeTinyGguf(join(dir, 'seed2.gguf'), { seed: 2 });
    [a1, a2, b] = await Promise.all([startServer(join(dir, 'seed1.gguf')), startServer(join(dir, 'seed1.gguf')), startServer(join(dir, 'seed2.gguf'))]);
    s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    for (const r of [a1, a2, b]) r?.process.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports identical meta for two GGUFs of one shape (why a fingerprint is needed)', async () => {
    const meta = async (r: Running) => ((await (await fetch(`${r.baseUrl}/models`)).json()) as { data: Array<{ meta: unknown }> }).data[0]!.meta;
    expect(await meta(a1)).toEqual(await meta(b));
  });

  it('probes: no prompt log-probabilities, json_schema and grammar honoured on completions; fingerprinted identity', async () => {
    const added = await s.models.addRemote({ name: 'one', baseUrl: a1.baseUrl, model: 'tiny', serverKind: 'llama.cpp', maxConcurrency: 1 });
    expect(added.identity).toEqual({ source: 'fingerprint', verified: true });
    expect(added.revision).toMatch(/^gguf:n_params=\d+,size=\d+,.*;fingerprint=[0-9a-f]{16}$/);
    const c = added.capabilities!;
    expect(c.completions.value).toBe('yes');
    expect(c.echoScoring.value).toBe('no');
    expect(c.promptLogprobs.value).toBe('no');
    expect(c.constraints['completions.json_schema']?.value).toBe('yes');
    expect(c.constraints['completions.grammar']?.value).toBe('yes');
    // Read only by the chat parser (engines.md): ignored on completions.
    expect(c.constraints['completions.response_format']?.value).toBe('no');
  }, 120_000);

  it('accepts two servers of the same weights as one pool and refuses a pool with other weights under the same name', async () => {
    const same = await s.models.addRemote({ name: 'pool', endpoints: [{ baseUrl: a1.baseUrl }, { baseUrl: a2.baseUrl }], model: 'tiny', serverKind: 'llama.cpp', maxConcurrency: 1 });
    expect(same.identity).toEqual({ source: 'fingerprint', verified: true });
    expect(same.revision).toBe(s.models.listRemotes().find((r) => r.name === 'one')!.revision);
    await expect(s.models.addRemote({ name: 'mixed', endpoints: [{ baseUrl: a1.baseUrl }, { baseUrl: b.baseUrl }], model: 'tiny', serverKind: 'llama.cpp', maxConcurrency: 1 })).rejects.toThrow(
      `the endpoints serve different weights under one name: ${b.baseUrl} differs from ${a1.baseUrl}`,
    );
    await expect(s.models.updateRemoteEndpoints(same.id, [{ baseUrl: a1.baseUrl }, { baseUrl: b.baseUrl }])).rejects.toThrow(`${b.baseUrl} serves other weights (fingerprint: `);
  }, 180_000);

  it('leaves the other-weights server out of a running pool: every call answered by the recorded weights', async () => {
    const row = s.workspace.db.prepare(`SELECT * FROM remote_endpoints WHERE name='pool'`).get() as RemoteRow;
    const engine = new RemoteEngine({ ...engineConfigOf(row), endpoints: [{ baseUrl: b.baseUrl, maxConcurrency: 1 }, { baseUrl: a1.baseUrl, maxConcurrency: 1 }], backoffBaseMs: 1, jitter: false });
    const reference = new RemoteEngine({ model: 'tiny', serverKind: 'llama.cpp', baseUrl: a2.baseUrl });
    try {
      const prompts = ['Hello', 'The sky', 'One two', 'Alpha beta'];
      const got = await Promise.all(prompts.map((prompt) => engine.generate({ prompt, maxTokens: 6, sampling: { temperature: 0 } })));
      const want = await Promise.all(prompts.map((prompt) => reference.generate({ prompt, maxTokens: 6, sampling: { temperature: 0 } })));
      expect(got.map((g) => g.text)).toEqual(want.map((w) => w.text));
      expect(engine.endpointStats().find((e) => e.baseUrl === b.baseUrl)).toMatchObject({ state: 'excluded', succeeded: 0 });
    } finally {
      await engine.close();
      await reference.close();
    }
  }, 180_000);
});
