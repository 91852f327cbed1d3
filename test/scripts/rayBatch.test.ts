/**
 * The Ray Data runner (scripts/ray/fairground_ray_batch.py, issue 24 item 5): its input is what
 * `plan export --format openai-batch-completions` writes, its output what `cache import` reads.
 * Ray and vLLM cannot be installed here, so the engine's output rows come from the loopback stand-in
 * (test/support/fakeOpenAiServer.ts, vLLM's echo format with a decoded BOS first): each answer the
 * stand-in gives over HTTP is turned into the row ray.data.llm's vLLM stage writes for that request
 * (prompt_token_ids, prompt_logprobs as {token id: {logprob, rank, decoded_token}}, generated_*),
 * the script turns the rows back into response bodies, and the batch loop over the script must end
 * in exactly the run a live run on the same server gives — MoI (scoring) and Fair RAG (generation).
 * What this cannot show: that a real Ray cluster runs the script (its Ray calls are not executed).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src-main/store/workspace';
import { copyWorkspace, tinySpec } from '../experiments/fixture';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { startLab, stopLab } from '../support/labServer';

const SCRIPT = join(process.cwd(), 'scripts', 'ray', 'fairground_ray_batch.py');
const REMOTE = { remote: 'lab' };
let dir: string;
let server: FakeOpenAiServer;
let base: string;
let n = 0;

beforeAll(async () => {
  ({ dir, base, server } = await startLab('fg-ray-', { bosToken: '<s>' }));
}, 240_000);

afterAll(() => stopLab(dir, server));

const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });
const file = (name: string) => join(dir, `${++n}-${name}`);

function python(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', [SCRIPT, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface RequestLine {
  custom_id: string;
  url: string;
  body: Record<string, unknown>;
}
interface Logprobs {
  tokens: string[];
  token_logprobs: Array<number | null>;
}

/** The row ray.data.llm's vLLM stage would write for one request, from the stand-in's HTTP answer. */
async function engineRow(line: RequestLine, ids: Map<string, number>): Promise<Record<string, unknown>> {
  const origin = server.baseUrl.replace(/\/v1\/?$/, '');
  const response = await fetch(`${origin}${line.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(line.body) });
  const body = (await response.json()) as { choices: Array<{ text?: string; message?: { content: string }; logprobs?: Logprobs | null; finish_reason: string; stop_reason?: unknown }>; usage: { prompt_tokens: number; completion_tokens: number } };
  const choice = body.choices[0]!;
  const idOf = (token: string): number => {
    if (!ids.has(token)) ids.set(token, ids.size + 1);
    return ids.get(token)!;
  };
  const vocab: Record<number, string> = {};
  const step = (token: string, logprob: number | null) => {
    const id = idOf(token);
    vocab[id] = token;
    return logprob === null ? null : { [id]: { logprob, rank: 1, decoded_token: token } };
  };
  const stop = typeof choice.stop_reason === 'string' ? choice.stop_reason : '';
  if (line.body.echo === true) {
    const lp = choice.logprobs!;
    const promptCount = body.usage.prompt_tokens;
    const steps = lp.tokens.map((t, i) => step(t, lp.token_logprobs[i] ?? null));
    // The engine does not decode the first prompt token (its logprob is None): the script decodes it.
    const firstId = idOf(lp.tokens[0]!);
    return {
      custom_id: line.custom_id,
      prompt_token_ids: lp.tokens.slice(0, promptCount).map(idOf),
      prompt_logprobs: [null, ...steps.slice(1, promptCount)],
      generated_tokens: lp.tokens.slice(promptCount).map(idOf),
      generated_text: (choice.text ?? '').slice((line.body.prompt as string).length) + stop,
      logprobs: steps.slice(promptCount),
      vocab: { ...vocab, [firstId]: lp.tokens[0] },
    };
  }
  const text = (choice.message?.content ?? choice.text ?? '') + stop;
  return {
    custom_id: line.custom_id,
    prompt_token_ids: Array.from({ length: body.usage.prompt_tokens }, (_, i) => 100_000 + i),
    prompt_logprobs: null,
    generated_tokens: Array.from({ length: body.usage.completion_tokens }, (_, i) => 200_000 + i),
    generated_text: text,
    logprobs: null,
  };
}

/** plan export → the script (rows from the stand-in) → cache import, until nothing is left. */
async function rayLoop(ws: string, spec: string): Promise<number> {
  let lines = 0;
  for (let stage = 1; stage <= 16; stage++) {
    const requests = file('requests.jsonl');
    const exported = await cli('plan', 'export', spec, '--format', 'openai-batch-completions', '-o', requests, '--workspace', ws);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(requests, 'utf8');
    if (text === '') return lines;
    const parsed = text.trim().split('\n').map((l) => JSON.parse(l) as RequestLine);
    lines += parsed.length;
    const ids = new Map<string, number>();
    const rows = file('rows.jsonl');
    const results = file('results.jsonl');
    writeFileSync(rows, (await Promise.all(parsed.map((l) => engineRow(l, ids)))).map((r) => `${JSON.stringify(r)}\n`).join(''));
    const ran = python(['--input', requests, '--output', results, '--rows', rows]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(`${parsed.length} answered, 0 without output`);
    const imported = await cli('cache', 'import', results, '--workspace', ws);
    expect(imported.code, imported.stderr).toBe(0);
  }
  throw new Error('the batch loop did not converge in 16 stages');
}

function items(ws: string): Map<string, unknown> {
  const w = openWorkspace(ws);
  try {
    const run = w.db.prepare(`SELECT id FROM runs ORDER BY id DESC LIMIT 1`).get() as { id: number };
    const out = new Map<string, unknown>();
    for (const r of w.db.prepare(`SELECT key, payload FROM run_items WHERE run_id = ? ORDER BY key`).all(run.id) as { key: string; payload: string }[]) {
      out.set(r.key, JSON.parse(r.payload, (k, v: unknown) => (k === 'fromCache' ? undefined : v)));
    }
    return out;
  } finally {
    w.close();
  }
}

function specFile(spec: Record<string, unknown>): string {
  const f = file('spec.json');
  writeFileSync(f, JSON.stringify(spec));
  return f;
}

const hasPython = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!hasPython)('scripts/ray/fairground_ray_batch.py', () => {
  it.each([
    ['MoI (teacher-forced scoring through prompt_logprobs)', () => ({ ...(JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'moi.json'), 'utf8')) as Record<string, unknown>), generator: REMOTE })],
    ['Fair RAG (plain-prompt generation with stop strings, then the NLI judge)', () => tinySpec({ name: 'ray fair-rag', generator: REMOTE, attribution: { judge: 'nli-llm', threshold: 0.5 }, decoding: { maxTokens: 8, stop: ['said'] } })],
  ])('%s: the batch loop through the script ends in the live run', async (_label, makeSpec) => {
    const spec = specFile(makeSpec());
    const live = copyWorkspace(base, file('live.fairground'));
    const direct = await cli('run', spec, '--workspace', live);
    expect(direct.code, direct.stderr).toBe(0);
    const batched = copyWorkspace(base, file('ray.fairground'));
    expect(await rayLoop(batched, spec)).toBeGreaterThan(3);
    const finish = await cli('run', spec, '--cache-only', '--workspace', batched);
    expect(finish.code, finish.stderr).toBe(0);
    expect(items(batched)).toEqual(items(live));
  }, 300_000);

  it('--check prints the ray.data.llm rows: raw prompts without a chat template, scoring with prompt_logprobs', async () => {
    const requests = file('requests.jsonl');
    const spec = specFile({ ...(JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'moi.json'), 'utf8')) as Record<string, unknown>), generator: REMOTE });
    const ws = copyWorkspace(base, file('check.fairground'));
    expect((await cli('plan', 'export', spec, '--format', 'openai-batch-completions', '-o', requests, '--workspace', ws)).code).toBe(0);
    const first = JSON.parse(readFileSync(requests, 'utf8').split('\n')[0]!) as RequestLine;
    const r = python(['--input', requests, '--output', file('unused'), '--check']);
    expect(r.code, r.stderr).toBe(0);
    const row = JSON.parse(r.stdout.split('\n')[0]!) as Record<string, unknown>;
    expect(row).toEqual({
      custom_id: first.custom_id,
      chat: false,
      prompt: first.body.prompt,
      sampling_params: first.body.echo === true ? { max_tokens: 1, temperature: 0, prompt_logprobs: 1, logprobs: 1 } : expect.objectContaining({ max_tokens: first.body.max_tokens }),
    });
  }, 120_000);

  it('refuses, naming the line, what it cannot hand to vLLM unchanged (and writes nothing)', () => {
    const requests = file('bad.jsonl');
    const out = file('out.jsonl');
    const good = { custom_id: 'a', method: 'POST', url: '/v1/completions', body: { model: 'm', prompt: 'x', max_tokens: 2, temperature: 0 } };
    const cases: Array<[unknown, string]> = [
      [{ ...good, custom_id: 'b', body: { ...good.body, grammar: 'root ::= "a"' } }, 'bad.jsonl:2: fields this script cannot hand to vLLM unchanged: grammar'],
      [{ ...good, custom_id: 'b', url: '/v1/embeddings', body: { model: 'm', input: ['x'] } }, "bad.jsonl:2: url '/v1/embeddings'"],
      [{ ...good, custom_id: 'b', body: { ...good.body, prompt: [1, 2, 3] } }, 'bad.jsonl:2: the prompt must be text'],
      [good, "bad.jsonl:2: custom_id 'a' appears twice"],
    ];
    for (const [bad, message] of cases) {
      writeFileSync(requests, `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
      const r = python(['--input', requests, '--output', out, '--rows', requests]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(() => readFileSync(out)).toThrow();
    }
  });
});
