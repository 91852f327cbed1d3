/**
 * Issue 35 item 8: RichRAG runs print no MaxListenersExceededWarning. Its prompt budgets tokenize
 * outside the work queue, many units at once, and each call used to add its own abort listener to
 * the run's signal (11 on a llama.cpp-style server with a tokenizer). The calls of one engine now
 * share one listener on the run's signal (engine/queue/sharedSignals.ts). Runs on the simulated
 * reader and on a remote stand-in with /tokenize, every process warning captured.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiRouter } from '../../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { copyWorkspace, makeDemoWorkspace } from '../fixture';

let dir: string;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-richrag-warn-'));
  base = await makeDemoWorkspace(dir, 'base.fairground');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function demoSpec(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'richrag.json'), 'utf8')) as Record<string, unknown>;
}

/** Runs the spec to its end and returns the process warnings emitted meanwhile. */
async function warningsOf(s: AppServices, spec: Record<string, unknown>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(`${w.name}: ${w.message}`);
  };
  process.on('warning', onWarning);
  try {
    const e = s.experiments.create(spec);
    const job = s.experiments.startRun(e.id);
    const done = await s.jobs.wait(job.id);
    expect(done.error).toBeNull();
    expect(s.experiments.listRuns(e.id)[0]!.status).toBe('succeeded');
    // A warning is emitted on a later tick than the addEventListener that caused it.
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

it('on the simulated reader: no process warning', async () => {
  const s = createAppServices(copyWorkspace(base, join(dir, 'sim.fairground')), { transport: 'http' });
  try {
    expect(await warningsOf(s, demoSpec())).toEqual([]);
  } finally {
    await s.close();
  }
}, 120_000);

it('on a llama.cpp-style server with a tokenizer (budgets tokenize many prompts at once): no process warning', async () => {
  const fake = await FakeOpenAiServer.start({ models: ['m'], tokenizer: 'llama.cpp' });
  const s = createAppServices(copyWorkspace(base, join(dir, 'remote.fairground')), { transport: 'http' });
  try {
    const added = await createApiRouter(s).call('remotes.add', { name: 'srv', model: 'm', baseUrl: fake.baseUrl, serverKind: 'llama.cpp', maxConcurrency: 4 });
    expect(added).toMatchObject({ ok: true });
    const warnings = await warningsOf(s, { ...demoSpec(), name: 'remote', generator: { remote: 'srv' } });
    // The budgets did go to the server's tokenizer (the path that warned).
    expect(fake.requestsTo('/tokenize').length).toBeGreaterThan(10);
    expect(warnings).toEqual([]);
  } finally {
    await s.close();
    await fake.close();
  }
}, 120_000);
