/**
 * Issue 35 item 3: every imported generation answer proves which request it answers. `plan export`
 * counts each generation's prompt with the server's own tokenizer (vLLM: POST /tokenize with the
 * chat's messages, as its chat route counts them) and remembers the count; `cache import` refuses an
 * answer whose `usage.prompt_tokens` differs, naming file:line and custom_id. Against a loopback
 * stand-in for vLLM (test/support/fakeOpenAiServer.ts, word tokens) through the real commands; the
 * same against the real llama-server is in test/engine/llamaServer/llamaServer.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { openWorkspace } from '../../src-main/store/workspace';
import { copyWorkspace, makeDemoWorkspace, tinySpec } from '../experiments/fixture';
import { runBatchFile } from '../support/batchRunner';
import { runCliCaptured } from '../support/cli';
import { fakeTokenize, FakeOpenAiServer } from '../support/fakeOpenAiServer';

let dir: string;
let base: string;
let vllm: FakeOpenAiServer;
let plain: FakeOpenAiServer;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-batch-tokens-'));
  [vllm, plain] = await Promise.all([FakeOpenAiServer.start({ models: ['lab-model'], tokenizer: 'vllm' }), FakeOpenAiServer.start({ models: ['lab-model'] })]);
  base = await makeDemoWorkspace(dir, 'base.fairground');
  const s = createAppServices(base, { transport: 'http' });
  try {
    await s.models.addRemote({ name: 'lab', baseUrl: vllm.baseUrl, model: 'lab-model', serverKind: 'vllm', maxConcurrency: 4 });
    await s.models.addRemote({ name: 'notok', baseUrl: plain.baseUrl, model: 'lab-model', serverKind: 'vllm', maxConcurrency: 4 });
  } finally {
    await s.close();
  }
}, 240_000);

afterAll(async () => {
  await Promise.all([vllm?.close(), plain?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');

function query<T>(ws: string, sql: string): T[] {
  const w = openWorkspace(ws);
  try {
    return w.db.prepare(sql).all() as T[];
  } finally {
    w.close();
  }
}

/** Fair RAG's generations as run-batch chat lines, replayed on `server`: the workspace, the files and the lines. */
async function exported(remote: string, server: FakeOpenAiServer) {
  const ws = copyWorkspace(base, join(dir, `w${++n}.fairground`));
  const spec = join(dir, `spec${n}.json`);
  writeFileSync(spec, JSON.stringify(tinySpec({ name: `tokens ${n}`, generator: { remote }, decoding: { maxTokens: 8, chat: true } })));
  const requests = join(dir, `req${n}.jsonl`);
  const results = join(dir, `res${n}.jsonl`);
  const e = await cli('plan', 'export', spec, '--format', 'openai-batch', '-o', requests, '--workspace', ws);
  expect(e.code, e.stderr).toBe(0);
  await runBatchFile(requests, results, server.baseUrl);
  type Out = { custom_id: string; response: { body: { usage: { prompt_tokens: number } } } };
  type Req = { custom_id: string; body: { messages: { content: string }[] } };
  return { ws, results, requests: lines(requests).map((l) => JSON.parse(l) as Req), out: lines(results).map((l) => JSON.parse(l) as Out) };
}

describe('cache import: usage.prompt_tokens must be the count the server gave the prompt at export', () => {
  it('two generation answers swapped between prompts of different lengths are refused, naming line and custom_id; unswapped they import', async () => {
    const { ws, results, requests, out } = await exported('lab', vllm);
    expect(requests.length).toBeGreaterThan(3);
    // The export remembered each line's count: the word tokens of its one user message.
    const stored = new Map(query<{ prompt_tokens: string }>(ws, `SELECT prompt_tokens FROM batch_calls`).flatMap((r) => Object.entries(JSON.parse(r.prompt_tokens) as Record<string, number>)));
    expect(stored.size).toBe(requests.length);
    for (const r of requests) expect(stored.get(r.custom_id)).toBe(fakeTokenize(r.body.messages[0]!.content).length);

    const i = 0;
    const j = out.findIndex((o) => o.response.body.usage.prompt_tokens !== out[i]!.response.body.usage.prompt_tokens);
    expect(j).toBeGreaterThan(0);
    const [a, b] = [out[i]!, out[j]!];
    const swapped = out.map((o, k) => (k === i ? { ...a, response: b.response } : k === j ? { ...b, response: a.response } : o));
    const bad = join(dir, 'swapped.jsonl');
    writeFileSync(bad, swapped.map((o) => `${JSON.stringify(o)}\n`).join(''));
    const r = await cli('cache', 'import', bad, '--workspace', ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `swapped.jsonl:1: response.body.usage.prompt_tokens: ${a.custom_id}: the response does not answer its request: usage.prompt_tokens is ${b.response.body.usage.prompt_tokens}, but the request's prompt was counted ${a.response.body.usage.prompt_tokens} tokens at export (by the server's tokenizer)`,
    );
    expect(query<{ n: number }>(ws, `SELECT count(*) AS n FROM llm_call_cache`)[0]!.n).toBe(0);

    // An answer with its usage removed proves nothing: refused too.
    const bare = join(dir, 'bare.jsonl');
    writeFileSync(bare, out.map((o, k) => `${JSON.stringify(k === 1 ? { ...o, response: { ...o.response, body: { ...o.response.body, usage: undefined } } } : o)}\n`).join(''));
    const rb = await cli('cache', 'import', bare, '--workspace', ws);
    expect(rb.code).toBe(2);
    expect(rb.stderr).toContain(`bare.jsonl:2: response.body.usage.prompt_tokens: ${out[1]!.custom_id}: the response does not answer its request: it carries no usage.prompt_tokens`);

    const ok = await cli('cache', 'import', results, '--workspace', ws);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(`imported ${out.length} call(s) from ${out.length} line(s)\n`);
  }, 300_000);

  it('a server without a tokenizer: no count is remembered (an estimate proves nothing) and the same swap is not caught, and the import says so', async () => {
    const { ws, out } = await exported('notok', plain);
    expect(query<{ prompt_tokens: string | null }>(ws, `SELECT prompt_tokens FROM batch_calls`).every((r) => r.prompt_tokens === null)).toBe(true);
    const j = out.findIndex((o) => o.response.body.usage.prompt_tokens !== out[0]!.response.body.usage.prompt_tokens);
    const swapped = out.map((o, k) => (k === 0 ? { ...o, response: out[j]!.response } : k === j ? { ...o, response: out[0]!.response } : o));
    const file = join(dir, 'swapped-notok.jsonl');
    writeFileSync(file, swapped.map((o) => `${JSON.stringify(o)}\n`).join(''));
    const r = await cli('cache', 'import', file, '--workspace', ws);
    expect(r.code).toBe(0);
    // …and the import says so.
    expect(r.stderr).toBe(`${file}: ${out.length} generation answer(s) could not be held against their prompt's token count (the server could not tokenize at plan export): two of them swapped would not be seen\n`);
  }, 300_000);
});
