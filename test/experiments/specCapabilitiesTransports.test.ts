/**
 * A spec whose generate requests a server cannot serve is refused at validation (issue 24 item 3):
 * the wizard (experiments.validateSpec), `fairground run --dry-run` and `fairground run` name the
 * field, the capability and the engines that have it, and nothing is written. The check asks the
 * engine's own refusal (generateRequestBody.ts `generateRefusal`) with what the probe at
 * `remote add` stored, so validation refuses exactly what the engine would refuse before its
 * first request.
 *
 * Against the real llama-server (test/support/llamaServer.ts; skipped, saying so, when it is not
 * built): added with the default server kind (openai) it ignores `response_format` on
 * /v1/completions, so Fair RAG's JSON judge is refused; added as llama.cpp it is accepted (grammar
 * honoured) and MoI is refused for scoring. Against the stand-in: a server that honours no
 * constraint field, and one that does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from '../../src-main/api/router';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { EngineError } from '../../src-main/engine/types';
import { nliGenerateRequest } from '../../src-main/experiments/fair-rag/attribution';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { engineConfigOf, type RemoteRow } from '../../src-main/services/remoteModels';
import { openWorkspace } from '../../src-main/store/workspace';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { llamaServerSkip, startLlamaServer, type LlamaServer } from '../support/llamaServer';

let dir: string;
let ws: string;
let s: AppServices;
let router: Router;
let ignoring: FakeOpenAiServer; // honours no constraint field
let honouring: FakeOpenAiServer; // honours response_format

const demo = (kind: string) => JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', `${kind}.json`), 'utf8')) as Record<string, unknown>;
const add = async (input: Record<string, unknown>) => {
  const out = await router.call('remotes.add', input);
  expect(out).toMatchObject({ ok: true });
};
const validate = (spec: Record<string, unknown>) => s.experiments.validateSpec(spec);
const row = (name: string) => s.workspace.db.prepare(`SELECT * FROM remote_endpoints WHERE name=?`).get(name) as RemoteRow;

function written(): { experiments: number; runs: number } {
  const w = openWorkspace(ws);
  try {
    const n = (sql: string) => (w.db.prepare(sql).get() as { n: number }).n;
    return { experiments: n('SELECT count(*) AS n FROM experiments'), runs: n('SELECT count(*) AS n FROM runs') };
  } finally {
    w.close();
  }
}

/** Runs the CLI on the workspace with the app's services closed (one writer), then reopens them. */
async function cli(...argv: string[]) {
  await s.close();
  try {
    return await runCliCaptured([...argv, '--workspace', ws], { cwd: dir });
  } finally {
    s = createAppServices(ws, { transport: 'http' });
    router = createApiRouter(s);
  }
}

const JSON_ENGINES = "Engines that have it: a local llama.cpp model, llama.cpp's server added with --server-kind llama.cpp (grammar or json_schema on /v1/completions), vLLM added with --server-kind vllm";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-spec-caps-'));
  ws = join(dir, 'w.fairground');
  s = createAppServices(ws, { transport: 'http' });
  router = createApiRouter(s);
  await loadDemoCollection(s);
  [ignoring, honouring] = await Promise.all([
    FakeOpenAiServer.start({ models: ['m'], root: '/w/m', constraintFields: [] }),
    FakeOpenAiServer.start({ models: ['m'], root: '/w/m', constraintFields: ['response_format'] }),
  ]);
  await add({ name: 'ignores', baseUrl: ignoring.baseUrl, model: 'm', serverKind: 'vllm' });
  await add({ name: 'honours', baseUrl: honouring.baseUrl, model: 'm', serverKind: 'vllm' });
}, 120_000);
afterAll(async () => {
  await s?.close();
  await Promise.all([ignoring, honouring].map((x) => x?.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('generate requests a server cannot serve are refused at validation', () => {
  const fairRag = (remote: string, attribution: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...demo('fair-rag'), name: `caps ${remote}`, generator: { remote }, attribution, ...extra });

  it("refuses Fair RAG's JSON judge on a server that honoured no JSON-schema transport, naming the field, the capability and the engines that have it", () => {
    const v = validate(fairRag('ignores', { judge: 'nli-llm' }));
    expect(v.ok).toBe(false);
    expect(v.issues).toEqual([
      {
        path: 'generator',
        message: expect.stringMatching(
          /^the NLI judge \(format 'json'\) needs a JSON-schema constraint on \/v1\/completions, which server 'ignores' \(vllm\) cannot serve: model "m" cannot serve a JSON-schema-constrained plain-prompt request: its server honoured no JSON-schema transport on \/v1\/completions when probed at remote add \(completions\.response_format no, completions\.structured_outputs no, completions\.guided_json no, completions\.json_schema no\)\. Engines that have it: /,
        ),
      },
    ]);
    expect(v.issues[0]!.message).toContain(JSON_ENGINES);
    // The same spec on a server that honours response_format passes; so does one without a judge.
    expect(validate(fairRag('honours', { judge: 'nli-llm' }))).toMatchObject({ ok: true });
    expect(validate(fairRag('ignores', { judge: 'none' }))).toMatchObject({ ok: true });
    // The judge's own model is named by its own field.
    expect(validate(fairRag('honours', { judge: 'nli-llm', generator: { remote: 'ignores' } })).issues.map((i) => i.path)).toEqual(['attribution.generator']);
  });

  it('refuses a grammar on a server kind without grammars, and a JSON schema on chat requests the server ignored', () => {
    const yesNo = validate(fairRag('honours', { judge: 'nli-llm', format: 'yes-no' }));
    expect(yesNo.issues).toEqual([
      {
        path: 'generator',
        message:
          "the NLI judge (format 'yes-no') needs a GBNF grammar, which server 'honours' (vllm) cannot serve: GBNF grammars need the local engine or a llama.cpp server (serverKind is vllm). Engines that have it: a local llama.cpp model or llama.cpp's server added with --server-kind llama.cpp",
      },
    ]);
    // RichRAG: the explorer (predicted aspects), the list-wise ranker and the judge constrain by JSON schema on a server ('auto').
    const rich = { ...demo('richrag'), name: 'caps rich', generator: { remote: 'ignores' } };
    const issues = validate(rich).issues;
    expect(issues.map((i) => i.message.split(',')[0])).toEqual(["the sub-aspect explorer (constraint 'auto') needs a JSON-schema constraint on /v1/completions", "the list-wise ranker (constraint 'auto') needs a JSON-schema constraint on /v1/completions",
      "the pairwise judge (constraint 'auto') needs a JSON-schema constraint on /v1/completions",
    ]);
    expect(issues.every((i) => i.path === 'generator')).toBe(true);
    // The judge as chat on its own model: response_format on /v1/chat/completions was ignored there.
    const judged = validate({ ...rich, generator: { remote: 'honours' }, judge: { enabled: true, chat: true, generator: { remote: 'ignores' } } });
    expect(judged.issues).toEqual([{ path: 'judge.generator', message: expect.stringContaining("the pairwise judge (constraint 'auto') needs a JSON-schema constraint on /v1/chat/completions, which server 'ignores' (vllm) cannot serve") }]);
    expect(validate({ ...rich, generator: { remote: 'honours' }, judge: { enabled: true, chat: true } })).toMatchObject({ ok: true });
  });

  it('fairground run --dry-run and run refuse before writing anything', async () => {
    const spec = join(dir, 'judge.json');
    writeFileSync(spec, JSON.stringify(fairRag('ignores', { judge: 'nli-llm' }, { name: 'refused judge' })));
    for (const mode of [['--dry-run'], []]) {
      const r = await cli('run', spec, ...mode);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("generator: the NLI judge (format 'json') needs a JSON-schema constraint on /v1/completions, which server 'ignores' (vllm) cannot serve");
      expect(written()).toEqual({ experiments: 0, runs: 0 });
    }
    expect(ignoring.requestsTo('/completions').filter((r) => JSON.stringify(r.body).includes('entails'))).toEqual([]);
  }, 120_000);
});

describe.skipIf(llamaServerSkip !== undefined)('against the real llama-server', () => {
  let server: LlamaServer;
  beforeAll(async () => {
    await writeTinyGguf(join(dir, 'tiny.gguf'), { seed: 1 });
    server = await startLlamaServer(join(dir, 'tiny.gguf'), { alias: 'tiny' });
    await add({ name: 'llama-as-openai', baseUrl: server.baseUrl, model: 'tiny' });
    await add({ name: 'llama', baseUrl: server.baseUrl, model: 'tiny', serverKind: 'llama.cpp' });
  }, 240_000);
  afterAll(async () => server?.stop());

  it('added with the default server kind it ignores response_format on /v1/completions: the JSON judge is refused at validation, as the engine refuses it', async () => {
    const stored = s.models.listRemotes().find((r) => r.name === 'llama-as-openai')!.capabilities!;
    expect(stored.constraints['completions.response_format']).toMatchObject({ value: 'no', detail: expect.stringContaining('does not follow the constraint') });
    const spec = { ...demo('fair-rag'), name: 'llama judge', generator: { remote: 'llama-as-openai' }, attribution: { judge: 'nli-llm' } };
    const v = validate(spec);
    expect(v.issues).toEqual([{ path: 'generator', message: expect.stringContaining("the NLI judge (format 'json') needs a JSON-schema constraint on /v1/completions, which server 'llama-as-openai' (openai) cannot serve") }]);
    expect(v.issues[0]!.message).toContain(JSON_ENGINES);
    // The engine refuses the very request, with the message validation quotes, before sending it.
    const engine = new RemoteEngine(engineConfigOf(row('llama-as-openai')));
    try {
      const err = await engine.generate(nliGenerateRequest({ judge: 'nli-llm', format: 'json', maxTokens: 32 }, 'premise')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe('unsupported');
      expect(v.issues[0]!.message).toContain((err as EngineError).message);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('added as llama.cpp, the JSON judge and RichRAG pass (grammar honoured) and MoI is refused for scoring', () => {
    expect(validate({ ...demo('fair-rag'), name: 'llama judge ok', generator: { remote: 'llama' }, attribution: { judge: 'nli-llm' } })).toMatchObject({ ok: true });
    expect(validate({ ...demo('richrag'), name: 'llama rich', generator: { remote: 'llama' }, judge: { enabled: true } })).toMatchObject({ ok: true });
    const moi = validate({ ...demo('moi'), name: 'llama moi', generator: { remote: 'llama' } });
    expect(moi.issues.map((i) => i.message)).toEqual([expect.stringMatching(/^MoI scores every passage ordering with the agent, which needs prompt log-probabilities; server 'llama' \(llama\.cpp\) has none \(probed at remote add: echo ignored/)]);
  });
});
