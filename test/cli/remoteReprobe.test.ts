/**
 * `fairground remote endpoints NAME` and the model card's "Check again" (remotes.check) ask a
 * stored model's servers again (issue 24 item 3): the stored probe is replaced (with its date) and
 * what changed is listed, so spec validation follows what the server does now; the weights are the
 * cache key, so a server now serving other weights is refused (naming the endpoint) and nothing is
 * stored; an unreachable server changes nothing. Against the stand-in server.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from '../../src-main/api/router';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';

let dir: string;
let ws: string;
let s: AppServices;
let router: Router;
let server: FakeOpenAiServer;

const stored = () => s.models.listRemotes().find((r) => r.name === 'lab')!;
const judgeSpec = () => ({
  ...(JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>),
  name: 'judge',
  generator: { remote: 'lab' },
  attribution: { judge: 'nli-llm' },
});

async function cli(...argv: string[]) {
  await s.close();
  try {
    return await runCliCaptured([...argv, '--workspace', ws], { cwd: dir });
  } finally {
    s = createAppServices(ws, { transport: 'http' });
    router = createApiRouter(s);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-reprobe-'));
  ws = join(dir, 'w.fairground');
  s = createAppServices(ws, { transport: 'http' });
  router = createApiRouter(s);
  await loadDemoCollection(s);
  // At first the server honours no constraint field (an old build).
  server = await FakeOpenAiServer.start({ models: ['m'], root: '/w/m', constraintFields: [] });
  expect(await router.call('remotes.add', { name: 'lab', baseUrl: server.baseUrl, model: 'm', serverKind: 'vllm' })).toMatchObject({ ok: true });
}, 120_000);
afterAll(async () => {
  await s?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('asking a stored server again', () => {
  it('remote endpoints NAME replaces the stored probe, prints its date and what changed; validation follows', async () => {
    const before = stored().capabilities!;
    expect(before.constraints['completions.response_format']).toMatchObject({ value: 'no' });
    expect(s.experiments.validateSpec(judgeSpec()).ok).toBe(false);

    // The server is upgraded: it now honours response_format on both routes.
    server.options.constraintFields = ['response_format'];
    await new Promise((r) => setTimeout(r, 5)); // a later probe date
    const out = await cli('remote', 'endpoints', 'lab');
    expect(out.code).toBe(0);
    const after = stored().capabilities!;
    expect(after.probedAt > before.probedAt).toBe(true);
    expect(after.constraints['completions.response_format']).toMatchObject({ value: 'yes' });
    expect(out.stdout.split('\n')[0]).toBe(`'lab': asked again at ${after.probedAt}; changed: completions.response_format: no → yes; chat.response_format: no → yes`);
    expect(out.stdout).toContain(`  probed: ${after.probedAt} at ${server.baseUrl} (ask again: fairground remote endpoints lab)\n`);
    expect(out.stdout).toContain('  weights: the revision the servers report, verified\n');
    expect(s.experiments.validateSpec(judgeSpec())).toMatchObject({ ok: true });

    // Asked again with nothing different: says so.
    const same = await cli('remote', 'endpoints', 'lab');
    expect(same.stdout.split('\n')[0]).toMatch(/^'lab': asked again at \S+; nothing changed$/);
  }, 120_000);

  it('the card\'s "Check again" (remotes.check) refuses a server now serving other weights, naming it, and stores nothing', async () => {
    const before = stored();
    await server.stop();
    await server.restart({ root: '/w/other' });
    const out = await router.call('remotes.check', { id: before.id });
    expect(out).toMatchObject({ ok: false, error: { code: 'validation', message: `${server.baseUrl} serves root=/w/other, not the recorded root=/w/m` } });
    expect(stored().capabilities).toEqual(before.capabilities);
    expect(stored().revision).toBe('root=/w/m');

    // Down: nothing changes either.
    await server.stop();
    const down = await router.call('remotes.check', { id: before.id });
    expect(down).toMatchObject({ ok: false, error: { code: 'validation', message: expect.stringMatching(/cannot be reached: .*; nothing was changed$/) } });
    expect(stored().capabilities).toEqual(before.capabilities);

    // Back with the recorded weights: checked, the identity verified, the probe replaced.
    await server.restart({ root: '/w/m' });
    const ok = await router.call('remotes.check', { id: before.id });
    expect(ok).toMatchObject({ ok: true, data: { changes: [], identity: { source: 'reported', verified: true, note: expect.stringContaining('every endpoint served the recorded weights when checked again') } } });
    expect(stored().capabilities!.probedAt > before.capabilities!.probedAt).toBe(true);
  }, 120_000);
});
