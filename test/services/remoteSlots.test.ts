/**
 * Greedy means reproducible (issue 35 item 2): a llama.cpp server with several slots batches the
 * requests in flight, which changes greedy outputs, so it gets one request at a time per endpoint
 * unless the user opts in (`concurrentSlots`); a server reporting one slot keeps its limit.
 * `remote add` and the run's pre-flight say what the chosen concurrency costs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reproducibleLimit } from '../../src-main/engine/remote/slotsProbe';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { engineConfigOf, type RemoteRow } from '../../src-main/services/remoteModels';
import { tinySpec } from '../experiments/fixture';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';

function row(settings: Record<string, unknown>): RemoteRow {
  return { id: 1, name: 'r', base_url: 'http://h:1/v1', model: 'm', api_key: null, settings: JSON.stringify(settings), added_at: '' };
}

describe('the default concurrency of an endpoint', () => {
  it('is 1 on a llama.cpp server with more than one slot (or unknown), the limit otherwise', () => {
    expect(reproducibleLimit('llama.cpp', 4, 4, false)).toBe(1);
    expect(reproducibleLimit('llama.cpp', 4, null, false)).toBe(1);
    expect(reproducibleLimit('llama.cpp', 4, undefined, false)).toBe(1);
    expect(reproducibleLimit('llama.cpp', 4, 1, false)).toBe(4);
    expect(reproducibleLimit('llama.cpp', 4, 4, true)).toBe(4);
    expect(reproducibleLimit('vllm', 16, 4, false)).toBe(16);
    expect(reproducibleLimit('openai', 4, undefined, false)).toBe(4);
  });

  it('engineConfigOf gives the engine those limits per endpoint', () => {
    const endpoints = [
      { baseUrl: 'http://a:1/v1', maxConcurrency: 4 },
      { baseUrl: 'http://b:1/v1', maxConcurrency: 3 },
    ];
    const slots = { 'http://a:1/v1': 4, 'http://b:1/v1': 1 };
    expect(engineConfigOf(row({ serverKind: 'llama.cpp', maxConcurrency: 4, endpoints, slots })).endpoints).toEqual([
      { baseUrl: 'http://a:1/v1', maxConcurrency: 1 },
      { baseUrl: 'http://b:1/v1', maxConcurrency: 3 },
    ]);
    expect(engineConfigOf(row({ serverKind: 'llama.cpp', maxConcurrency: 4, endpoints, slots, concurrentSlots: true })).endpoints).toEqual(endpoints);
    // A row stored before slots were probed: one at a time.
    expect(engineConfigOf(row({ serverKind: 'llama.cpp', maxConcurrency: 4 })).endpoints).toEqual([{ baseUrl: 'http://h:1/v1', maxConcurrency: 1 }]);
    expect(engineConfigOf(row({ serverKind: 'vllm', maxConcurrency: 4 })).endpoints).toEqual([{ baseUrl: 'http://h:1/v1', maxConcurrency: 4 }]);
  });
});

describe('remote add on a llama.cpp-style server', () => {
  let dir: string;
  let s: AppServices;
  const fakes: FakeOpenAiServer[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fg-slots-'));
    s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  });

  afterAll(async () => {
    await s.close();
    await Promise.all(fakes.map((f) => f.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function fake(slots: number): Promise<FakeOpenAiServer> {
    const f = await FakeOpenAiServer.start({ models: ['m'], slots, postDelayMs: 30 });
    fakes.push(f);
    return f;
  }

  /** The most completions in flight at once while 6 greedy calls are made together. */
  async function mostAtOnce(f: FakeOpenAiServer, id: number): Promise<number> {
    const engine = s.models.engineFor({ kind: 'remote', endpointId: id });
    // The three stand-ins serve one model under one revision, so they share cache rows: prompts of their own.
    await engine.generate({ prompt: `warm ${id}`, maxTokens: 2, sampling: { temperature: 0 } }); // identity and weights check first
    f.maxInFlight = 0;
    await Promise.all(Array.from({ length: 6 }, (_, i) => engine.generate({ prompt: `p${i} of ${id}`, maxTokens: 2, sampling: { temperature: 0 } })));
    return f.maxInFlight;
  }

  it('4 slots: one request at a time, and says why and what it measured', async () => {
    const f = await fake(4);
    const added = await s.models.addRemote({ name: 'four', model: 'm', baseUrl: f.baseUrl, serverKind: 'llama.cpp', maxConcurrency: 4 });
    expect(added.settings.slots).toEqual({ [f.baseUrl]: 4 });
    expect(added.endpoints).toEqual([{ baseUrl: f.baseUrl, maxConcurrency: 4, effectiveConcurrency: 1 }]);
    expect(added.warnings.join('\n')).toContain(`${f.baseUrl} has 4 slots: Fairground sends it one request at a time (not 4) so that greedy outputs are reproducible`);
    expect(added.warnings.join('\n')).toContain('9 of 15 identical runs differed');
    expect(await mostAtOnce(f, added.id)).toBe(1);
    // Nothing at risk, so nothing before Run.
    expect(s.experiments.reproducibilityWarnings(tinySpec({ generator: { remote: 'four' } }))).toEqual([]);
  });

  it('4 slots with concurrentSlots: up to the limit, and the run’s pre-flight says outputs may vary', async () => {
    const f = await fake(4);
    const added = await s.models.addRemote({ name: 'batched', model: 'm', baseUrl: f.baseUrl, serverKind: 'llama.cpp', maxConcurrency: 4, concurrentSlots: true });
    expect(added.endpoints).toEqual([{ baseUrl: f.baseUrl, maxConcurrency: 4, effectiveConcurrency: 4 }]);
    expect(added.warnings.join('\n')).toContain('takes up to 4 requests at once (--concurrent-slots): greedy outputs may differ from run to run');
    expect(await mostAtOnce(f, added.id)).toBe(4);
    const warnings = s.experiments.reproducibilityWarnings(tinySpec({ generator: { remote: 'batched' } }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'remote-concurrent-slots', field: 'generator', message: expect.stringContaining("server 'batched': ") });
    // The wizard's review step shows it with the design warnings.
    expect((await s.experiments.designWarnings(tinySpec({ generator: { remote: 'batched' } }))).map((w) => w.code)).toContain('remote-concurrent-slots');
    // `fairground run` says it once before computing, and the run keeps it (its warnings and manifest).
    const spec = join(dir, 'batched.json');
    writeFileSync(spec, JSON.stringify(tinySpec({ name: 'batched run', generator: { remote: 'batched' }, decoding: { maxTokens: 4 } })));
    const cli = await runCliCaptured(['run', spec, '--workspace', join(dir, 'w.fairground')], { cwd: dir });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr.split(warnings[0]!.message)).toHaveLength(2);
    expect(cli.stderr).toContain(`warning [remote-concurrent-slots, generator]: ${warnings[0]!.message}\n  fix: ${warnings[0]!.fix}\n`);
    const run = s.experiments.listRuns(s.experiments.list().find((e) => e.name === 'batched run')!.id)[0]!;
    expect((s.experiments.getRun(run.id).stats as { designWarnings?: Array<{ code: string }> }).designWarnings?.map((w) => w.code)).toContain('remote-concurrent-slots');
  });

  it('1 slot: the limit stays (the server decodes one at a time anyway), no warning', async () => {
    const f = await fake(1);
    const added = await s.models.addRemote({ name: 'single', model: 'm', baseUrl: f.baseUrl, serverKind: 'llama.cpp', maxConcurrency: 3 });
    expect(added.endpoints).toEqual([{ baseUrl: f.baseUrl, maxConcurrency: 3, effectiveConcurrency: 3 }]);
    expect(added.warnings.filter((w) => w.includes('slot'))).toEqual([]);
    expect(await mostAtOnce(f, added.id)).toBe(3);
  });
});
