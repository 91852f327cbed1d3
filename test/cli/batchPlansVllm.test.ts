/**
 * Issue 24 items 5–8 (the batch parts), through the real `fairground` commands against a loopback
 * OpenAI-compatible server (test/support/fakeOpenAiServer.ts) standing in for the engine:
 *
 * - `plan export --format openai-batch`: every exported line of every demo kind fits vLLM's
 *   run-batch request models (mirror at the pinned commit, test/fixtures/vllm/runBatchModels.ts);
 *   what run-batch cannot express (plain prompts, MoI's scoring) is refused, naming why and what works;
 * - `cache import` reads vLLM's output lines, error lines included, and refuses a response that
 *   answers another request (swapped scoring bodies; another prompt of the same token count);
 * - one answer per call: import after a live run compares instead of counting, disagreements are
 *   named per call; an import while a live `run` process computes the same calls computes nothing
 *   twice and keeps one answer; `cache merge` refuses foreign, newer, damaged sources and non-JSON rows;
 *   `run --cache-only` over a damaged row names it;
 * - `plan export` on a fresh workspace sets the demo up as `run` does.
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { latestSchemaVersion, openWorkspace } from '../../src-main/store/workspace';
import { copyWorkspace, tinySpec } from '../experiments/fixture';
import { runBatchFile } from '../support/batchRunner';
import { runCliCaptured } from '../support/cli';
import { CALIBRATION_USER } from '../../src-main/engine/remote/tokenCalibration';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { startLab, stopLab } from '../support/labServer';
import { batchRequestInput, batchRequestOutput, VLLM_PINNED_COMMIT } from '../fixtures/vllm/runBatchModels';

const ROOT = process.cwd();
let dir: string;
let server: FakeOpenAiServer;
let base: string;
let n = 0;
const REMOTE = { remote: 'lab' };

beforeAll(async () => {
  ({ dir, base, server } = await startLab('fg-batch-vllm-'));
}, 240_000);

afterAll(() => stopLab(dir, server));

const workspace = () => copyWorkspace(base, join(dir, `w${++n}.fairground`));
const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });

function specFile(spec: Record<string, unknown>): string {
  const file = join(dir, `spec${++n}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

function demoSpec(name: 'fair-rag' | 'moi' | 'richrag', over: Record<string, unknown> = {}): Record<string, unknown> {
  const spec = JSON.parse(readFileSync(join(ROOT, 'resources', 'demo', 'experiments', `${name}.json`), 'utf8')) as Record<string, unknown>;
  return { ...spec, generator: REMOTE, ...over };
}

/** The RichRAG demo with every LLM step sent as chat (the form run-batch can take). */
function richragChat(): Record<string, unknown> {
  const spec = demoSpec('richrag', { name: 'richrag chat' }) as Record<string, Record<string, unknown>>;
  return {
    ...spec,
    explorer: { ...spec.explorer, chat: true },
    ranker: { ...spec.ranker, chat: true },
    generation: { ...spec.generation, chat: true },
    judge: { ...spec.judge, chat: true },
  };
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

function mirrorIssues(line: string): string[] {
  const r = batchRequestInput.safeParse(JSON.parse(line));
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

function query<T>(ws: string, sql: string, ...params: unknown[]): T[] {
  const w = openWorkspace(ws);
  try {
    return w.db.prepare(sql).all(...params) as T[];
  } finally {
    w.close();
  }
}

const cacheRows = (ws: string) => query<{ n: number }>(ws, `SELECT count(*) AS n FROM llm_call_cache`)[0]!.n;
const extraComputations = (ws: string) => query<{ n: number }>(ws, `SELECT coalesce(sum(computations - 1), 0) AS n FROM llm_call_cache`)[0]!.n;

function lastRunItems(ws: string): { status: string; items: Map<string, unknown> } {
  const run = query<{ id: number; status: string }>(ws, `SELECT id, status FROM runs ORDER BY id DESC LIMIT 1`)[0]!;
  const items = new Map<string, unknown>();
  for (const r of query<{ key: string; payload: string }>(ws, `SELECT key, payload FROM run_items WHERE run_id = ? ORDER BY key`, run.id)) {
    items.set(r.key, JSON.parse(r.payload, (k, v: unknown) => (k === 'fromCache' ? undefined : v)));
  }
  return { status: run.status, items };
}

describe(`plan export --format openai-batch: only lines vLLM's run-batch accepts (vllm-project/vllm@${VLLM_PINNED_COMMIT.slice(0, 8)})`, () => {
  it('RichRAG with chat steps: every line of every stage fits the mirror; the batch loop equals a direct run', async () => {
    const spec = specFile(richragChat());
    const direct = workspace();
    const d = await cli('run', spec, '--workspace', direct);
    expect(d.code, d.stderr).toBe(0);

    const ws = workspace();
    let total = 0;
    let stages = 0;
    for (;;) {
      const requests = join(dir, `rr-req${++n}.jsonl`);
      const results = join(dir, `rr-res${n}.jsonl`);
      const e = await cli('plan', 'export', spec, '--format', 'openai-batch', '-o', requests, '--workspace', ws);
      expect(e.code, e.stderr).toBe(0);
      const exported = lines(requests);
      if (exported.length === 0) break;
      stages++;
      for (const line of exported) expect(mirrorIssues(line), line.slice(0, 300)).toEqual([]);
      expect(new Set(exported.map((l) => (JSON.parse(l) as { url: string }).url))).toEqual(new Set(['/v1/chat/completions']));
      total += exported.length;
      await runBatchFile(requests, results, server.baseUrl);
      for (const out of lines(results)) expect(batchRequestOutput.safeParse(JSON.parse(out)).success).toBe(true);
      const imported = await cli('cache', 'import', results, '--workspace', ws);
      expect(imported.code, imported.stderr).toBe(0);
      expect(stages).toBeLessThan(16);
    }
    expect(stages).toBeGreaterThanOrEqual(2);
    expect(total).toBeGreaterThan(20);
    const finish = await cli('run', spec, '--cache-only', '--workspace', ws);
    expect(finish.code, finish.stderr).toBe(0);
    const a = lastRunItems(direct);
    const b = lastRunItems(ws);
    expect(b.status).toBe('succeeded');
    expect(b.items).toEqual(a.items);
    expect(cacheRows(ws)).toBe(cacheRows(direct));
  }, 600_000);

  it('Fair RAG with chat generation: the generations go out as chat lines; the NLI judge (plain prompts) is refused at its stage', async () => {
    const spec = specFile(tinySpec({ name: 'fair chat', generator: REMOTE, decoding: { maxTokens: 8, chat: true }, attribution: { judge: 'nli-llm', threshold: 0.5 } }));
    const ws = workspace();
    const requests = join(dir, 'fr-req.jsonl');
    const results = join(dir, 'fr-res.jsonl');
    const e = await cli('plan', 'export', spec, '--format', 'openai-batch', '-o', requests, '--workspace', ws);
    expect(e.code, e.stderr).toBe(0);
    const exported = lines(requests);
    expect(exported.length).toBeGreaterThan(3);
    for (const line of exported) expect(mirrorIssues(line)).toEqual([]);
    await runBatchFile(requests, results, server.baseUrl);
    expect((await cli('cache', 'import', results, '--workspace', ws)).code).toBe(0);
    const next = join(dir, 'fr-req2.jsonl');
    const refused = await cli('plan', 'export', spec, '--format', 'openai-batch', '-o', next, '--workspace', ws);
    expect(refused.code).toBe(2);
    // The judge scores entailment by teacher forcing (or generates from a plain prompt): no run-batch route.
    expect(refused.stderr).toMatch(/of this stage's \d+ call\(s\) have none: \d+ call\(s\) \(e\.g\. [0-9a-f]{12}…\): (teacher-forced scoring needs|a plain-prompt generation \(no chat template\) has no run-batch route)/);
    expect(refused.stderr).toContain('vllm serve');
    expect(refused.stderr).toContain('--format openai-batch-completions');
    expect(existsSync(next)).toBe(false);
  }, 300_000);

  it.each([
    ['fair-rag', 'a plain-prompt generation (no chat template) has no run-batch route'],
    ['richrag', 'a plain-prompt generation (no chat template) has no run-batch route'],
    ['moi', "teacher-forced scoring needs the log-probabilities of a raw prompt's tokens"],
  ] as const)('the %s demo as shipped (plain prompts) is refused, naming the reason; nothing is written or remembered', async (kind, reason) => {
    const ws = workspace();
    const out = join(dir, `refused-${kind}.jsonl`);
    const r = await cli('plan', 'export', specFile(demoSpec(kind, { name: `${kind} refused` })), '--format', 'openai-batch', '-o', out, '--workspace', ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(reason);
    expect(r.stderr).toContain('Nothing was written');
    expect(existsSync(out)).toBe(false);
    expect(query<{ n: number }>(ws, `SELECT count(*) AS n FROM batch_calls`)[0]!.n).toBe(0);
  }, 300_000);

  it('plan export on a fresh workspace sets the demo up as run does', async () => {
    const fresh = join(dir, 'fresh.fairground');
    const s = createAppServices(fresh, { transport: 'http' });
    try {
      await s.models.addRemote({ name: 'lab', baseUrl: server.baseUrl, model: 'lab-model', serverKind: 'vllm', maxConcurrency: 4 });
    } finally {
      await s.close();
    }
    const out = join(dir, 'fresh.jsonl');
    const r = await cli('plan', 'export', specFile(richragChat()), '-o', out, '--workspace', fresh);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(out).length).toBeGreaterThan(0);
    expect(query<{ name: string }>(fresh, `SELECT name FROM collections`).map((c) => c.name)).toContain('Fairground demo');
  }, 300_000);
});

describe("cache import reads vLLM's output lines and checks each answer against its own request", () => {
  it('error lines (a string or an ErrorResponse) are named; the rest is imported; the failed calls are exported again', async () => {
    const ws = workspace();
    const spec = specFile(tinySpec({ name: 'errors', generator: REMOTE, decoding: { maxTokens: 8, chat: true } }));
    const requests = join(dir, 'err-req.jsonl');
    const results = join(dir, 'err-res.jsonl');
    expect((await cli('plan', 'export', spec, '-o', requests, '--workspace', ws)).code).toBe(0);
    const count = await runBatchFile(requests, results, server.baseUrl);
    const out = lines(results);
    const id1 = (JSON.parse(out[1]!) as { custom_id: string }).custom_id;
    const id3 = (JSON.parse(out[3]!) as { custom_id: string }).custom_id;
    // The shapes run_batch.py writes: make_error_request_output (a string) and an ErrorResponse.
    out[1] = JSON.stringify({ id: 'vllm-1', custom_id: id1, response: { status_code: 400, request_id: 'vllm-batch-1', body: null }, error: 'Request must not be sent in stream mode' });
    out[3] = JSON.stringify({
      id: 'vllm-3',
      custom_id: id3,
      response: { status_code: 400, request_id: 'vllm-batch-3', body: null },
      error: { error: { message: "This model's maximum context length is 512 tokens.", type: 'BadRequestError', param: null, code: 400 } },
    });
    for (const l of out) expect(batchRequestOutput.safeParse(JSON.parse(l)).success).toBe(true);
    writeFileSync(results, `${out.join('\n')}\n`);
    const r = await cli('cache', 'import', results, '--workspace', ws);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`err-res.jsonl:2: ${id1}: the batch engine answered with an error (status 400: Request must not be sent in stream mode)`);
    expect(r.stderr).toContain(`err-res.jsonl:4: ${id3}: the batch engine answered with an error (status 400: This model's maximum context length is 512 tokens.)`);
    expect(r.stdout).toBe(`imported ${count - 2} call(s) from ${count} line(s); 2 line(s) failed in the batch engine (not imported)\n`);
    expect(cacheRows(ws)).toBe(count - 2);
    const again = join(dir, 'err-req2.jsonl');
    expect((await cli('plan', 'export', spec, '-o', again, '--workspace', ws)).code).toBe(0);
    expect(lines(again).map((l) => (JSON.parse(l) as { custom_id: string }).custom_id).sort()).toEqual([id1, id3].sort());
  }, 300_000);

  /** MoI's first stage as /v1/completions lines (echo scoring), replayed: [workspace, results lines]. */
  async function moiScoring(tag: string): Promise<{ ws: string; results: string; out: string[]; scoreLines: number[] }> {
    const ws = workspace();
    const spec = specFile(demoSpec('moi', { name: `moi ${tag}` }));
    const requests = join(dir, `${tag}-req.jsonl`);
    const results = join(dir, `${tag}-res.jsonl`);
    const e = await cli('plan', 'export', spec, '--format', 'openai-batch-completions', '-o', requests, '--workspace', ws);
    expect(e.code, e.stderr).toBe(0);
    await runBatchFile(requests, results, server.baseUrl);
    const out = lines(results);
    const req = lines(requests).map((l) => JSON.parse(l) as { body: { echo?: boolean } });
    const scoreLines = req.map((r, i) => (r.body.echo === true ? i : -1)).filter((i) => i >= 0);
    expect(scoreLines.length).toBeGreaterThan(4);
    return { ws, results, out, scoreLines };
  }

  it('two scoring lines with swapped bodies are refused, naming the line and custom_id; nothing is imported', async () => {
    const { ws, results, out, scoreLines } = await moiScoring('swap');
    const req = lines(join(dir, 'swap-req.jsonl')).map((l) => JSON.parse(l) as { body: { prompt: string } });
    const i = scoreLines[0]!;
    const j = scoreLines.find((k) => req[k]!.body.prompt !== req[i]!.body.prompt)!;
    const a = JSON.parse(out[i]!) as { custom_id: string; response: { body: unknown } };
    const b = JSON.parse(out[j]!) as { custom_id: string; response: { body: unknown } };
    [a.response.body, b.response.body] = [b.response.body, a.response.body];
    out[i] = JSON.stringify(a);
    out[j] = JSON.stringify(b);
    writeFileSync(results, `${out.join('\n')}\n`);
    const r = await cli('cache', 'import', results, '--workspace', ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`swap-res.jsonl:${Math.min(i, j) + 1}`);
    expect(r.stderr).toContain(`${(i < j ? a : b).custom_id}: the response does not answer its request: the echoed prompt is not the request's`);
    expect(cacheRows(ws)).toBe(0);
  }, 300_000);

  it("a response for another prompt of the same token count is refused (the echo shows it, the counts cannot)", async () => {
    const { ws, results, out, scoreLines } = await moiScoring('samelen');
    const req = lines(join(dir, 'samelen-req.jsonl')).map((l) => JSON.parse(l) as { body: Record<string, unknown> & { prompt: string } });
    const k = scoreLines[2]!;
    // One word of the prompt replaced by another: the same number of (word) tokens, another question.
    const other = req[k]!.body.prompt.replace(/Question: (\S+)/, (_m, w: string) => `Question: ${w === 'what' ? 'which' : 'what'}`);
    expect(other).not.toBe(req[k]!.body.prompt);
    const res = await fetch(`${server.baseUrl}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...req[k]!.body, prompt: other }) });
    const body = (await res.json()) as { usage: { prompt_tokens: number } };
    const line = JSON.parse(out[k]!) as { custom_id: string; response: { body: { usage: { prompt_tokens: number } } } };
    expect(body.usage.prompt_tokens).toBe(line.response.body.usage.prompt_tokens);
    line.response.body = body;
    out[k] = JSON.stringify(line);
    writeFileSync(results, `${out.join('\n')}\n`);
    const r = await cli('cache', 'import', results, '--workspace', ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`samelen-res.jsonl:${k + 1}: response.body: ${line.custom_id}: the response does not answer its request: the echoed prompt is not the request's (from character`);
    expect(r.stderr).toContain('Question: what');
    expect(cacheRows(ws)).toBe(0);
  }, 300_000);
});

describe('one answer per call', () => {
  /** Export (completions lines) and replay a small Fair RAG stage: [spec, results file, calls]. */
  async function exported(ws: string, tag: string): Promise<{ spec: string; results: string; calls: number }> {
    const spec = specFile(tinySpec({ name: `one answer ${tag}`, generator: REMOTE }));
    const requests = join(dir, `${tag}-req.jsonl`);
    const results = join(dir, `${tag}-res.jsonl`);
    expect((await cli('plan', 'export', spec, '--format', 'openai-batch-completions', '-o', requests, '--workspace', ws)).code).toBe(0);
    const calls = await runBatchFile(requests, results, server.baseUrl);
    return { spec, results, calls };
  }

  it('an import after a live run compares instead of counting; a disagreeing answer is named per call and the stored one stays', async () => {
    const ws = workspace();
    const { spec, results, calls } = await exported(ws, 'after');
    expect((await cli('run', spec, '--workspace', ws)).code).toBe(0);
    const before = query<{ key: string; response: string }>(ws, `SELECT key, response FROM llm_call_cache ORDER BY key`);
    const same = await cli('cache', 'import', results, '--workspace', ws);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe(`imported 0 call(s) from ${calls} line(s); ${calls} call(s) were in the cache already with the same answer\n`);
    expect(extraComputations(ws)).toBe(0);

    const out = lines(results);
    const changed = [1, 4].map((i) => {
      const line = JSON.parse(out[i]!) as { custom_id: string; response: { body: { choices: { text: string }[] } } };
      line.response.body.choices[0]!.text += ' (other weights)';
      out[i] = JSON.stringify(line);
      return line.custom_id;
    });
    writeFileSync(results, `${out.join('\n')}\n`);
    const differ = await cli('cache', 'import', results, '--workspace', ws);
    expect(differ.code).toBe(1);
    expect(differ.stderr).toContain(`after-res.jsonl:2: call ${changed[0]}: the cache holds another answer for this call; the stored answer stays`);
    expect(differ.stderr).toContain(`after-res.jsonl:5: call ${changed[1]}: the cache holds another answer for this call`);
    expect(differ.stdout).toBe(`imported 0 call(s) from ${calls} line(s); ${calls - 2} call(s) were in the cache already with the same answer; 2 call(s) disagree with the cache (kept the cache's answer)\n`);
    expect(query<{ key: string; response: string }>(ws, `SELECT key, response FROM llm_call_cache ORDER BY key`)).toEqual(before);
  }, 300_000);

  it('an import while a live run process computes the same calls: nothing computed twice, one answer kept, the run uses it', async () => {
    const ws = workspace();
    const { spec, results, calls } = await exported(ws, 'live');
    server.options.delayMs = 400;
    try {
      // The study's generations only: the remote engine's token calibration (its `user` marks it) is not a call.
      const studyCompletions = () => server.requestsTo('/v1/completions').filter((r) => (r.body as { user?: unknown } | null)?.user !== CALIBRATION_USER).length;
      const completionsBefore = studyCompletions();
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'fairground.js'), 'run', spec, '--workspace', ws], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let alive = true;
      void exited.then(() => (alive = false));
      // Import while the run has a generation in flight (claimed, not stored): not a matter of timing.
      while (alive && !(studyCompletions() > completionsBefore && server.inFlight > 0)) await new Promise((r) => setTimeout(r, 10));
      expect(alive, stderr).toBe(true);
      const imp = await cli('cache', 'import', results, '--workspace', ws);
      expect(imp.code, imp.stderr).toBe(0);
      const m = /^imported (\d+) call\(s\) from (\d+) line\(s\)(?:; (\d+) call\(s\) were in the cache already with the same answer)?; (\d+) call\(s\) are being computed by a running fairground run \(left to it\)\n$/.exec(imp.stdout);
      expect(m, imp.stdout).not.toBeNull();
      const [imported, , already, elsewhere] = [Number(m![1]), Number(m![2]), Number(m![3] ?? 0), Number(m![4])];
      expect(elsewhere).toBeGreaterThanOrEqual(1);
      expect(imported).toBeGreaterThanOrEqual(1);
      expect(imported + already + elsewhere).toBe(calls);
      expect(await exited, stderr).toBe(0);
    } finally {
      server.options.delayMs = 0;
    }
    expect(extraComputations(ws)).toBe(0);
    expect(cacheRows(ws)).toBe(calls);
    const live = lastRunItems(ws);
    expect(live.status).toBe('succeeded');
    const again = await cli('run', spec, '--cache-only', '--new', '--workspace', ws);
    expect(again.code, again.stderr).toBe(0);
    expect(lastRunItems(ws).items).toEqual(live.items);
  }, 300_000);
});

describe('cache merge refuses what it cannot trust, naming it; run --cache-only names a damaged row', () => {
  it('a foreign file, a newer schema, a damaged file and rows that are not JSON are refused; nothing is merged', async () => {
    const ws = workspace();
    const before = cacheRows(ws);

    const foreign = join(dir, 'foreign.sqlite');
    const f = new Database(foreign);
    f.exec(`CREATE TABLE llm_call_cache(key TEXT PRIMARY KEY, model_key TEXT, op TEXT, request TEXT, response TEXT, created_at TEXT, duration_ms REAL, computations INTEGER, served_by TEXT)`);
    f.close();
    const r1 = await cli('cache', 'merge', foreign, '--workspace', ws);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(`${foreign}: not a Fairground workspace`);

    const newer = copyWorkspace(base, join(dir, 'newer.fairground'));
    const nw = new Database(newer);
    nw.pragma(`user_version = ${latestSchemaVersion() + 1}`);
    nw.close();
    const r2 = await cli('cache', 'merge', newer, '--workspace', ws);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(`${newer}: written by a newer Fairground (schema version ${latestSchemaVersion() + 1}`);

    const badJson = copyWorkspace(base, join(dir, 'badjson.fairground'));
    const bj = new Database(badJson);
    bj.prepare(`INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms) VALUES (?, 'remote:lab-model', 'generate', '{}', '{"text": ', 'now', 1)`).run('e'.repeat(64));
    bj.close();
    const r3 = await cli('cache', 'merge', badJson, '--workspace', ws);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain(`call cache row(s) whose request or response is not valid JSON: ${'e'.repeat(64)}`);

    // Damage: a b-tree page of a table overwritten (what workspace check reports as damage).
    const damaged = copyWorkspace(base, join(dir, 'damaged.fairground'));
    const dmg = new Database(damaged);
    dmg.pragma('wal_checkpoint(TRUNCATE)');
    const page = dmg.pragma('page_size', { simple: true }) as number;
    const root = (dmg.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'documents'`).get() as { rootpage: number }).rootpage;
    dmg.close();
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(page, 0x5a), 0, page, (root - 1) * page);
    closeSync(fd);
    const check = await cli('workspace', 'check', '--workspace', damaged);
    expect(check.code).not.toBe(0);
    const r4 = await cli('cache', 'merge', damaged, '--workspace', ws);
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(new RegExp(`${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (is damaged|not a readable SQLite file)`));

    expect(cacheRows(ws)).toBe(before);
  }, 300_000);

  it('run --cache-only over a cache row that is not JSON names the call, and workspace check lists it', async () => {
    const ws = workspace();
    const spec = specFile(tinySpec({ name: 'bad row', generator: REMOTE }));
    expect((await cli('run', spec, '--workspace', ws)).code).toBe(0);
    const key = query<{ key: string }>(ws, `SELECT key FROM llm_call_cache ORDER BY key LIMIT 1`)[0]!.key;
    const w = openWorkspace(ws);
    w.db.prepare(`UPDATE llm_call_cache SET response = '{"text": ' WHERE key = ?`).run(key);
    w.close();
    const r = await cli('run', spec, '--cache-only', '--new', '--workspace', ws);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`the call cache's stored response of call ${key} is not valid JSON`);
    const check = await cli('workspace', 'check', '--workspace', ws);
    expect(check.code).not.toBe(0);
    expect(`${check.stdout}${check.stderr}`).toContain(`call cache row ${key}: its request or response is not valid JSON`);
  }, 300_000);
});
