/**
 * Parity of the local engine (node-llama-cpp) and llama.cpp's `llama-server` on the same GGUF
 * (issue 24 item 2): replays every generate call stored in a workspace's call cache (computed by
 * the local engine) through the remote engine against a real llama-server and counts identical
 * texts by category: constraint (plain, GBNF grammar, JSON schema), greedy or sampled (temperature
 * > 0 with the call's seed), plain prompt or chat messages.
 *
 *   npx tsx scripts/llama-server-parity.ts --workspace W [--transport gbnf|json_schema] [--only CATEGORY] [--limit N] [--show N] [--json FILE]
 *
 * W holds runs of the local engine (e.g. `fairground run resources/demo/experiments/<kind>.json
 * --workspace W` for fair-rag-gguf, moi-gguf, richrag-gguf). The script starts llama-server (built by
 * `npm run llama-server`) on the workspace's demo model with one thread, flash attention 'auto' (as node-llama-cpp), one
 * slot, as test/support/llamaServer.ts does. Exit 0 always; the figures are printed.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { RemoteEngine } from '../src-main/engine/remote/remoteEngine';
import type { JsonSchemaTransport } from '../src-main/engine/remote/remoteEngineConfig';
import type { GenerateRequest, GenerateResult } from '../src-main/engine/types';
import { DEMO_MODEL_NAME } from '../src-main/services/demoSetup';
import { startLlamaServer } from '../test/support/llamaServer';

const { values } = parseArgs({
  options: {
    workspace: { type: 'string' },
    transport: { type: 'string', default: 'gbnf' },
    limit: { type: 'string' },
    only: { type: 'string' },
    show: { type: 'string', default: '10' },
    json: { type: 'string' },
    model: { type: 'string' },
  },
});
if (!values.workspace) throw new Error('--workspace W is required (a workspace with local-engine runs)');

const db = new Database(values.workspace, { readonly: true });
const modelPath = values.model ?? (db.prepare(`SELECT path FROM models WHERE name = ?`).get(DEMO_MODEL_NAME) as { path: string } | undefined)?.path;
if (!modelPath) throw new Error(`no model named ${DEMO_MODEL_NAME} in ${values.workspace}; pass --model PATH`);
const rows = db.prepare(`SELECT request, response FROM llm_call_cache WHERE op = 'generate' ORDER BY key`).all() as Array<{ request: string; response: string }>;
db.close();

type Kind = string;
const calls = rows
  .map((r) => ({ request: JSON.parse(r.request) as GenerateRequest, local: JSON.parse(r.response) as GenerateResult }))
  .filter((c) => values.only === undefined || kindOf(c.request).includes(values.only))
  .slice(0, values.limit ? Number(values.limit) : undefined);
function kindOf(r: GenerateRequest): Kind {
  return [r.sampling.temperature > 0 ? 'sampled' : '', r.messages !== undefined ? 'chat' : '', r.jsonSchema !== undefined ? 'jsonSchema' : r.grammar !== undefined ? 'grammar' : 'plain'].filter(Boolean).join(' ');
}
// llama.cpp reports a stop string as finish_reason "stop" without naming it.
const finish = (r: GenerateResult) => (r.finishReason === 'stopString' ? 'stop' : r.finishReason);

const alias = 'parity';
const server = await startLlamaServer(modelPath, { alias });
const engine = new RemoteEngine({ baseUrl: server.baseUrl, model: alias, serverKind: 'llama.cpp', maxConcurrency: 1, jsonSchemaTransport: values.transport as JsonSchemaTransport });
const counts: Record<Kind, { total: number; same: number }> = {};
const differing: Array<Record<string, unknown>> = [];
const t0 = Date.now();
try {
  for (const c of calls) {
    const kind = kindOf(c.request);
    const count = (counts[kind] ??= { total: 0, same: 0 });
    count.total++;
    let remote: GenerateResult;
    try {
      remote = await engine.generate(c.request);
    } catch (error) {
      differing.push({ kind, prompt: c.request.prompt, local: c.local.text, error: (error as Error).message });
      continue;
    }
    if (remote.text === c.local.text && finish(remote) === finish(c.local) && remote.promptTokens === c.local.promptTokens) {
      count.same++;
      continue;
    }
    let at = 0;
    while (at < remote.text.length && remote.text[at] === c.local.text[at]) at++;
    differing.push({
      kind,
      promptTail: (c.request.prompt ?? c.request.messages?.at(-1)?.content)?.slice(-60),
      sampling: c.request.sampling,
      promptTokens: [c.local.promptTokens, remote.promptTokens],
      maxTokens: c.request.maxTokens,
      stop: c.request.stop,
      grammar: c.request.grammar,
      firstDifferenceAt: at,
      local: c.local.text,
      localFinish: c.local.finishReason,
      server: remote.text,
      serverFinish: remote.finishReason,
    });
  }
} finally {
  await engine.close();
  await server.stop();
}
const line = (k: Kind) => `${k} ${counts[k].same}/${counts[k].total}`;
console.log(`llama-server parity, JSON schemas sent as ${values.transport} (identical texts): ${Object.keys(counts).sort().map(line).join(', ')} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
for (const d of differing.slice(0, Number(values.show))) console.log(JSON.stringify(d));
if (values.json) writeFileSync(values.json, JSON.stringify({ counts, differing }, null, 1));
