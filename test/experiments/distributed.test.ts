/**
 * Issue 13: every kind through one work queue, and the loop that hands a study to a distributed
 * engine — against a loopback OpenAI-compatible server with a fixed per-request delay (as a GPU
 * server bounded by concurrency), driven through the real `fairground` commands.
 *
 * - MoI, RichRAG and utility labeling keep several calls in flight (the server counts them);
 * - plan export → a run-batch stand-in over the same server → cache import, stage after stage, then
 *   `run --cache-only` gives items identical to a direct run, for Fair RAG with attribution judged
 *   on its generations (two stages), MoI and RichRAG;
 * - `--shard 1/3 … 3/3` in three workspaces, merged, completes to the unsharded run without
 *   recomputing a generation; a conflicting merge names the call and merges nothing;
 * - `--dry-run` prices exactly the calls the run then computes, and writes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices } from '../../src-main/services/appServices';
import { openWorkspace } from '../../src-main/store/workspace';
import { runBatchFile } from '../support/batchRunner';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { startLab, stopLab } from '../support/labServer';
import { copyWorkspace, tinySpec } from './fixture';

let dir: string;
let server: FakeOpenAiServer;
let base: string;
let n = 0;

const REMOTE = { remote: 'lab' };

beforeAll(async () => {
  ({ dir, base, server } = await startLab('fg-distributed-', { delayMs: 40 }));
}, 240_000);

afterAll(() => stopLab(dir, server));

function workspace(): string {
  return copyWorkspace(base, join(dir, `w${++n}.fairground`));
}

function specFile(spec: Record<string, unknown>): string {
  const file = join(dir, `spec${++n}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

function demoSpec(name: 'moi' | 'richrag', over: Record<string, unknown> = {}): Record<string, unknown> {
  const spec = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', `${name}.json`), 'utf8')) as Record<string, unknown>;
  return { ...spec, generator: REMOTE, ...over };
}

const fairRagTwoStage = () => tinySpec({ name: 'fair-rag two stages', generator: REMOTE, attribution: { judge: 'nli-llm', threshold: 0.5 } });

async function cli(...argv: string[]) {
  const r = await runCliCaptured(argv, { cwd: dir });
  return r;
}

/** The newest run's items (key → payload without the cache flag) and stats. */
function lastRun(ws: string): { items: Map<string, unknown>; stats: Record<string, unknown>; status: string } {
  const w = openWorkspace(ws);
  try {
    const run = w.db.prepare(`SELECT id, status, stats FROM runs ORDER BY id DESC LIMIT 1`).get() as { id: number; status: string; stats: string | null };
    const items = new Map<string, unknown>();
    for (const r of w.db.prepare(`SELECT key, payload FROM run_items WHERE run_id = ? ORDER BY key`).all(run.id) as { key: string; payload: string }[]) {
      items.set(r.key, JSON.parse(r.payload, (k, v: unknown) => (k === 'fromCache' ? undefined : v)));
    }
    return { items, stats: run.stats ? (JSON.parse(run.stats) as Record<string, unknown>) : {}, status: run.status };
  } finally {
    w.close();
  }
}

function cacheRows(ws: string): number {
  const w = openWorkspace(ws);
  try {
    return (w.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n;
  } finally {
    w.close();
  }
}

/** plan export → run-batch stand-in → cache import, until nothing is left; returns the stages' call counts. */
async function batchLoop(ws: string, spec: string): Promise<number[]> {
  const stages: number[] = [];
  for (let stage = 1; stage <= 16; stage++) {
    const requests = join(dir, `requests${++n}.jsonl`);
    const results = join(dir, `results${n}.jsonl`);
    const exported = await cli('plan', 'export', spec, '--format', 'openai-batch-completions', '-o', requests, '--workspace', ws);
    expect(exported.code, exported.stderr).toBe(0);
    if (readFileSync(requests, 'utf8') === '') return stages;
    stages.push(await runBatchFile(requests, results, server.baseUrl));
    const imported = await cli('cache', 'import', results, '--workspace', ws);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^imported \d+ call\(s\)/);
  }
  throw new Error('the batch loop did not converge in 16 stages');
}

describe('every kind feeds one work queue (loopback server, 40 ms per request, limit 4)', () => {
  it.each(['moi', 'richrag'] as const)('%s keeps several calls in flight', async (kind) => {
    const ws = workspace();
    server.maxInFlight = 0;
    const r = await cli('run', specFile(demoSpec(kind)), '--workspace', ws);
    expect(r.code, r.stderr).toBe(0);
    expect(server.maxInFlight).toBeGreaterThanOrEqual(3);
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
    expect(lastRun(ws).stats.callsInFlightMax).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it('utility labeling keeps several calls in flight', async () => {
    const ws = workspace();
    server.maxInFlight = 0;
    const r = await cli('label', 'utility', '--collection', 'Fairground demo', '--remote', 'lab', '--workspace', ws);
    expect(r.code, r.stderr).toBe(0);
    expect(server.maxInFlight).toBeGreaterThanOrEqual(3);
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
  }, 300_000);
});

describe('batch plans for a distributed engine', () => {
  it.each([
    ['fair-rag with attribution (two stages)', fairRagTwoStage, 2],
    ['moi', () => demoSpec('moi', { name: 'moi batch' }), 2],
    ['richrag', () => demoSpec('richrag', { name: 'richrag batch' }), 2],
  ] as const)('%s: export → run-batch → import, stage by stage, equals a direct run', async (_name, make, minStages) => {
    const spec = specFile(make());
    const direct = workspace();
    const d = await cli('run', spec, '--workspace', direct);
    expect(d.code, d.stderr).toBe(0);

    const batched = workspace();
    const stages = await batchLoop(batched, spec);
    expect(stages.length).toBeGreaterThanOrEqual(minStages);
    const finish = await cli('run', spec, '--cache-only', '--workspace', batched);
    expect(finish.code, finish.stderr).toBe(0);

    const a = lastRun(direct);
    const b = lastRun(batched);
    expect(b.status).toBe('succeeded');
    expect([...b.items.keys()]).toEqual([...a.items.keys()]);
    expect(b.items).toEqual(a.items);
    expect(cacheRows(batched)).toBe(cacheRows(direct));
  }, 600_000);

  it('refuses a results file whose line names another model, naming the line, and imports nothing', async () => {
    const ws = workspace();
    const spec = specFile(tinySpec({ name: 'mismatch', generator: REMOTE }));
    const requests = join(dir, 'mm-requests.jsonl');
    const results = join(dir, 'mm-results.jsonl');
    expect((await cli('plan', 'export', spec, '--format', 'openai-batch-completions', '-o', requests, '--workspace', ws)).code).toBe(0);
    const count = await runBatchFile(requests, results, server.baseUrl);
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    const third = JSON.parse(lines[2]!) as { response: { body: { model: string } } };
    third.response.body.model = 'some-other-model';
    lines[2] = JSON.stringify(third);
    writeFileSync(results, `${lines.join('\n')}\n`);
    const before = cacheRows(ws);
    const r = await cli('cache', 'import', results, '--workspace', ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mm-results.jsonl:3');
    expect(r.stderr).toContain('answered by model "some-other-model", but the request asked for "lab-model"');
    expect(cacheRows(ws)).toBe(before);
    expect(count).toBeGreaterThan(3);
  }, 300_000);

  it('refuses a custom_id this workspace never exported', async () => {
    const ws = workspace();
    const results = join(dir, 'foreign.jsonl');
    writeFileSync(results, `${JSON.stringify({ id: 'x', custom_id: 'a'.repeat(64), response: { status_code: 200, body: {} }, error: null })}\n`);
    const r = await cli('cache', 'import', results, '--workspace', ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/foreign\.jsonl:1.*was not exported from this workspace/);
  });
});

describe('shards', () => {
  it('--shard 1/3, 2/3, 3/3 merged equals the unsharded run, and no generation is computed twice', async () => {
    const spec = specFile(tinySpec({ name: 'sharded', generator: REMOTE, attribution: { judge: 'nli-llm', threshold: 0.5 } }));
    const direct = workspace();
    expect((await cli('run', spec, '--workspace', direct)).code).toBe(0);

    const shards = [1, 2, 3].map(() => workspace());
    const computed: number[] = [];
    for (const [i, ws] of shards.entries()) {
      const r = await cli('run', spec, '--shard', `${i + 1}/3`, '--workspace', ws);
      expect(r.code, r.stderr).toBe(0);
      computed.push(Number(/: (\d+) computed/.exec(r.stdout)![1]));
    }
    expect(computed.every((c) => c > 0)).toBe(true);

    const merged = workspace();
    const m = await cli('cache', 'merge', ...shards, '--workspace', merged);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toBe(`merged ${computed.reduce((a, b) => a + b, 0)} call(s); 0 were here already\n`);
    const r = await cli('run', spec, '--workspace', merged);
    expect(r.code, r.stderr).toBe(0);
    const a = lastRun(direct);
    const b = lastRun(merged);
    expect(b.items).toEqual(a.items);
    // Every generation came from the shards (stage 1 has no inputs, so each shard computed all of
    // its own); the shards also judged the outputs they had; the rest was judged here — and no call
    // was computed twice: shards + this run = the direct run's calls.
    expect(b.stats.generationsComputed).toBe(0);
    expect(computed.reduce((x, y) => x + y, 0) + Number(b.stats.judgmentsComputed)).toBe(cacheRows(direct));
    expect(cacheRows(merged)).toBe(cacheRows(direct));
  }, 600_000);

  it('a merge where one call has two different responses names the key and merges nothing', async () => {
    const one = workspace();
    const two = workspace();
    for (const [ws, text] of [
      [one, 'first'],
      [two, 'second'],
    ] as const) {
      const w = openWorkspace(ws);
      w.db.prepare(`INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms) VALUES (?, 'remote:lab-model', 'generate', '{}', ?, 'now', 1)`).run('f'.repeat(64), JSON.stringify({ text }));
      w.db.prepare(`INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms) VALUES (?, 'remote:lab-model', 'generate', '{}', '{}', 'now', 1)`).run(`${ws === one ? 'a' : 'b'}`.repeat(64));
      w.close();
    }
    const before = cacheRows(one);
    const r = await cli('cache', 'merge', two, '--workspace', one);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`call ${'f'.repeat(64)} has a different response`);
    expect(cacheRows(one)).toBe(before);
  });
});

describe('--dry-run', () => {
  it('is served as experiments.estimate over the API', async () => {
    const ws = workspace();
    const s = createAppServices(ws, { transport: 'http' });
    try {
      const router = createApiRouter(s);
      const e = s.experiments.create(tinySpec({ name: 'api estimate', generator: REMOTE }));
      const r = await router.call('experiments.estimate', { id: e.id });
      expect(r).toMatchObject({ ok: true, data: { fromCache: 0, lines: [{ model: 'lab-model', op: 'generate', concurrency: 4, meanCallMs: null, etaSeconds: null }] } });
      expect((r as { data: { toCompute: number } }).data.toCompute).toBeGreaterThan(0);
      expect(await router.call('experiments.estimate', { id: 999 })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      // The wizard's unsaved spec: the same price, and no experiment or run left behind.
      const experiments = s.experiments.repo.experiments().length;
      const unsaved = await router.call('experiments.estimateSpec', { spec: tinySpec({ name: 'not stored', generator: REMOTE }) });
      expect(unsaved).toMatchObject({ ok: true, data: { fromCache: 0, toCompute: (r as { data: { toCompute: number } }).data.toCompute } });
      expect(s.experiments.repo.experiments()).toHaveLength(experiments);
      expect(s.experiments.repo.runs()).toHaveLength(0);
      expect(await router.call('experiments.estimateSpec', { spec: tinySpec({ name: 'bad', k: 0, generator: REMOTE }) })).toMatchObject({ ok: false, error: { code: 'validation', field: 'spec.k' } });
    } finally {
      await s.close();
    }
  });

  it('prices exactly the calls the run then computes, and leaves no run or cache entry behind', async () => {
    const ws = workspace();
    const spec = specFile(tinySpec({ name: 'priced', generator: REMOTE }));
    const dry = await cli('run', spec, '--dry-run', '--json', '--workspace', ws);
    expect(dry.code, dry.stderr).toBe(0);
    const estimate = JSON.parse(dry.stdout) as { toCompute: number; fromCache: number; lines: { op: string; toCompute: number }[]; complete: boolean };
    expect(cacheRows(ws)).toBe(0);
    const w = openWorkspace(ws);
    expect((w.db.prepare(`SELECT count(*) AS n FROM runs`).get() as { n: number }).n).toBe(0);
    w.close();
    const r = await cli('run', spec, '--workspace', ws);
    expect(r.code, r.stderr).toBe(0);
    const run = lastRun(ws);
    expect(estimate.toCompute).toBe(run.stats.distinctGenerations);
    expect(estimate.lines).toEqual([expect.objectContaining({ op: 'generate', toCompute: run.stats.distinctGenerations })]);
    expect(cacheRows(ws)).toBe(estimate.toCompute);
    // Priced again with every call cached: nothing to compute, and the measured time is known.
    const again = JSON.parse((await cli('run', spec, '--dry-run', '--new', '--json', '--workspace', ws)).stdout) as { toCompute: number; fromCache: number; etaSeconds: number };
    expect(again).toMatchObject({ toCompute: 0, fromCache: estimate.toCompute, etaSeconds: 0 });
  }, 300_000);
});
