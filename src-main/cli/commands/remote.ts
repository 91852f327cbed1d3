/**
 * `fairground remote add|list|endpoints|remove`: OpenAI-compatible servers (vLLM, llama.cpp's
 * server, any /v1 gateway) as generators of the workspace, one base URL or a pool of replicas
 * serving the same model (issue 13 item 3). Specs name them with `"remote": NAME`.
 */
import { parseCliArgs } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { ApiFailure } from '../../api/router';
import type { RemoteServerKind } from '../../engine/remote/remoteEngineConfig';
import type { AppServices } from '../../services/appServices';
import { ADD_WITHOUT_ASKING } from '../../services/remoteModels';
import { createCliAppServices } from './cliAppServices';

const ENDPOINT_HELP = `      --endpoint URL[=N]   a replica's API root (…/v1), optionally with its limit of requests at
                           once; repeat for a pool (requests go to the least-loaded healthy one)`;

/** `URL` or `URL=N`. */
function parseEndpoint(value: string): { baseUrl: string; maxConcurrency?: number } {
  const m = /^(.*?)(?:=(\d+))?$/.exec(value.trim())!;
  return m[2] !== undefined ? { baseUrl: m[1]!, maxConcurrency: Number(m[2]) } : { baseUrl: m[1]! };
}

function positiveInt(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${option} must be a positive integer, got '${value}'`);
  return n;
}

async function withServices<T>(workspace: string | undefined, io: CliIo, work: (s: AppServices) => Promise<T>): Promise<T> {
  const services = createCliAppServices(workspace, io);
  try {
    return await work(services);
  } catch (error) {
    if (error instanceof ApiFailure) throw new CliError(`${error.field ? `${error.field}: ` : ''}${error.message}`);
    throw error;
  } finally {
    await services.close();
  }
}

function requireNamed(s: AppServices, name: string): number {
  const r = s.models.listRemotes().find((x) => x.name === name);
  if (!r) throw new CliError(`no server named '${name}' in the workspace (see 'fairground remote list')`);
  return r.id;
}

export const remoteAddCommand: CliCommand = {
  path: ['remote', 'add'],
  summary: 'Add an OpenAI-compatible server, or a pool of replicas serving one model',
  help: `Usage: fairground remote add NAME --model MODEL (--url URL | --endpoint URL[=N]...) [options]

Asks every endpoint first: it must answer and list MODEL (else the command fails, naming what the
server lists). Then records what the server can do (completions, chat, scoring through prompt
log-probabilities, each JSON-schema/grammar transport) and which weights it serves: vLLM's root, or
where the server's report does not tell weights apart (llama.cpp's GGUF shape, gateways) a
fingerprint of greedy outputs of fixed prompts. The cache key is the model and that revision, not a
URL, so replicas share cached calls; an endpoint serving other weights is refused, at add and
whenever it (re)joins the pool.

      --model MODEL        the model name the server(s) serve
      --url URL            one server's API root, e.g. http://127.0.0.1:8000/v1
${ENDPOINT_HELP}
      --max-concurrency N  limit of each endpoint that names none (default 4)
      --server-kind KIND   openai, vllm or llama.cpp (how non-OpenAI sampling fields are spelled; default openai)
      --api-key-env VAR    read the API key from this environment variable (never from the command line)
      --revision TEXT      state the weights (a commit, a file hash) instead of asking the servers
      --timeout SECONDS    per-request timeout (one HTTP attempt; default 300)
      --no-probe           ask no server now (offline): the model is recorded as unverified; without
                           --revision the key is the model name alone
      --concurrent-slots   llama.cpp: send up to the limit at once even to a server with several slots.
                           By default such a server gets one request at a time: it decodes concurrent
                           requests in one batch, which changes greedy outputs (measured: 9 of 15
                           identical runs differed at 4 at once, 0 of 5 at one at a time)
${WORKSPACE_HELP}

Example: fairground remote add llama8b --model meta-llama/Llama-3.1-8B-Instruct --server-kind vllm \\
           --endpoint http://gpu1:8000/v1=16 --endpoint http://gpu2:8000/v1=16`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      {
        ...workspaceOptionSpec,
        model: { type: 'string' },
        url: { type: 'string' },
        endpoint: { type: 'string', multiple: true },
        'max-concurrency': { type: 'string' },
        'server-kind': { type: 'string' },
        'api-key-env': { type: 'string' },
        revision: { type: 'string' },
        timeout: { type: 'string' },
        'no-probe': { type: 'boolean' },
        'concurrent-slots': { type: 'boolean' },
      },
      true,
    );
    const timeoutSeconds = positiveInt(values.timeout, '--timeout');
    if (positionals.length !== 1) throw new CliError('expected one name for the server');
    if (!values.model) throw new CliError('give --model');
    if ((values.url === undefined) === (values.endpoint === undefined)) throw new CliError('give --url URL or one or more --endpoint URL[=N]');
    const kind = values['server-kind'] ?? 'openai';
    if (!['openai', 'vllm', 'llama.cpp'].includes(kind)) throw new CliError(`--server-kind must be openai, vllm or llama.cpp, got '${kind}'`);
    let apiKey: string | undefined;
    if (values['api-key-env'] !== undefined) {
      apiKey = io.env[values['api-key-env']];
      if (!apiKey) throw new CliError(`the environment variable ${values['api-key-env']} is empty or not set`);
    }
    const name = positionals[0]!;
    const added = await withServices(values.workspace, io, (s) =>
      cliHint(s.models.addRemote({
        name,
        model: values.model!,
        ...(values.url !== undefined ? { baseUrl: values.url } : {}),
        ...(values.endpoint ? { endpoints: values.endpoint.map(parseEndpoint) } : {}),
        maxConcurrency: positiveInt(values['max-concurrency'], '--max-concurrency') ?? 4,
        serverKind: kind as RemoteServerKind,
        ...(apiKey ? { apiKey } : {}),
        ...(values.revision !== undefined ? { revision: values.revision } : {}),
        probe: values['no-probe'] !== true,
        ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
        ...(values['concurrent-slots'] === true ? { concurrentSlots: true } : {}),
      })),
    );
    io.stdout.write(`Added '${added.name}': ${added.model}${added.revision ? ` (${added.revision})` : ''}\n`);
    writeRemoteDetails(io, added);
    for (const w of added.warnings ?? []) io.stderr.write(`warning: ${w}\n`);
    return 0;
  },
};

/** The service's words for recording an unreachable server, with this command's flag. */
async function cliHint<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ApiFailure && err.message.includes(ADD_WITHOUT_ASKING))
      throw new ApiFailure(err.code, err.message.replace(ADD_WITHOUT_ASKING, 'add it with --no-probe to record it anyway, marked unverified'), err.field);
    throw err;
  }
}

type RemoteInfo = Awaited<ReturnType<AppServices['models']['addRemote']>>;

const SOURCE_WORDS = { reported: 'the revision the servers report', fingerprint: 'a fingerprint of greedy outputs', stated: 'the revision you stated', none: 'the model name only' } as const;

/** Identity (verified or not), timeout, capabilities and endpoints of a remote model. */
function writeRemoteDetails(io: CliIo, r: Omit<RemoteInfo, 'warnings'>, showProbeDate = false): void {
  const id = r.identity;
  if (id) io.stdout.write(`  weights: ${SOURCE_WORDS[id.source]}${id.verified ? ', verified' : ` — UNVERIFIED: ${id.note ?? 'not checked'}`}\n`);
  if (r.timeoutMs !== undefined) io.stdout.write(`  timeout: ${r.timeoutMs / 1000} s per request\n`);
  if (r.recheckAfterMs !== undefined) io.stdout.write(`  weights checked again: every ${r.recheckAfterMs / 1000} s while serving\n`);
  const c = r.capabilities;
  if (c) {
    const yes = (v: { value: string } | undefined) => v?.value === 'yes';
    if (showProbeDate) io.stdout.write(`  probed: ${c.probedAt} at ${c.endpoint} (ask again: fairground remote endpoints ${r.name})\n`);
    io.stdout.write(`  completions: ${c.completions.value}, chat: ${c.chat.value}, scoring (prompt log-probabilities via echo): ${c.echoScoring.value}, prompt_logprobs: ${c.promptLogprobs.value}\n`);
    const honoured = Object.entries(c.constraints).filter(([, v]) => yes(v)).map(([k]) => k);
    const ignored = Object.entries(c.constraints).filter(([, v]) => !yes(v)).map(([k]) => k);
    io.stdout.write(`  constraints honoured: ${honoured.length ? honoured.join(', ') : 'none'}${ignored.length ? `; not honoured or unknown: ${ignored.join(', ')}` : ''}\n`);
  } else io.stdout.write(`  capabilities: not probed\n`);
  const context = (r.settings as { context?: { size: number | null; source?: string; reason?: string } }).context;
  if (context) io.stdout.write(context.size !== null ? `  context: ${context.size} tokens per request (${context.source}): the default prompt budget\n` : `  context: not reported (${context.reason})\n`);
  for (const e of r.endpoints) io.stdout.write(`  ${e.baseUrl}  ${atOnce(e)}\n`);
}

/** An endpoint's limit, and the one in force when it differs (llama.cpp slots: one at a time for reproducible outputs). */
function atOnce(e: { maxConcurrency: number; effectiveConcurrency?: number | undefined }): string {
  const used = e.effectiveConcurrency ?? e.maxConcurrency;
  return used === e.maxConcurrency ? `up to ${used} at once` : `up to ${used} at once (limit ${e.maxConcurrency}; one at a time so that greedy outputs are reproducible)`;
}

export const remoteSetCommand: CliCommand = {
  path: ['remote', 'set'],
  summary: "Change a server's settings (per-request timeout, weights re-check interval)",
  help: `Usage: fairground remote set NAME [--timeout SECONDS] [--recheck-after SECONDS] [--workspace PATH]

      --timeout SECONDS        per-request timeout (one HTTP attempt)
      --recheck-after SECONDS  how long an endpoint's weights stay trusted before it is checked again while
                               it serves (default 60; from 0.1). When a check fails, every answer the endpoint
                               gave since its last passing check is taken out and computed again elsewhere,
                               so a shorter interval recomputes less after a weights swap, at one GET /models
                               (and, for a fingerprinted model, a few greedy probes) per check
${WORKSPACE_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, timeout: { type: 'string' }, 'recheck-after': { type: 'string' } }, true);
    if (positionals.length !== 1) throw new CliError('expected the name of a server');
    const timeoutSeconds = positiveInt(values.timeout, '--timeout');
    const recheck = values['recheck-after'];
    const recheckAfterSeconds = recheck === undefined ? undefined : Number(recheck);
    if (recheckAfterSeconds !== undefined && (recheck!.trim() === '' || !Number.isFinite(recheckAfterSeconds) || recheckAfterSeconds < 0.1 || recheckAfterSeconds > 86_400)) {
      throw new CliError(`--recheck-after must be a number of seconds from 0.1 to 86400, got '${recheck}'`);
    }
    if (timeoutSeconds === undefined && recheckAfterSeconds === undefined) throw new CliError('give --timeout SECONDS or --recheck-after SECONDS');
    const updated = await withServices(values.workspace, io, (s) => s.models.updateRemoteSettings(requireNamed(s, positionals[0]!), { timeoutSeconds, recheckAfterSeconds }));
    io.stdout.write(`'${updated.name}': timeout ${(updated.timeoutMs ?? 0) / 1000} s per request; weights checked again every ${(updated.recheckAfterMs ?? 0) / 1000} s while serving\n`);
    return 0;
  },
};

export const remoteListCommand: CliCommand = {
  path: ['remote', 'list'],
  summary: 'List the OpenAI-compatible servers of the workspace with their endpoints',
  help: `Usage: fairground remote list [--workspace PATH] [--json]

${WORKSPACE_HELP}
      --json               print JSON (never the API key)`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } });
    const list = await withServices(values.workspace, io, async (s) => s.models.listRemotes());
    if (values.json) io.stdout.write(`${JSON.stringify(list)}\n`);
    else if (list.length === 0) io.stdout.write(`No servers yet (add one with 'fairground remote add')\n`);
    else {
      for (const r of list) {
        io.stdout.write(`${r.name.padEnd(20)} ${r.model}${r.revision ? ` (${r.revision})` : ''}  ${r.cachedCalls} cached calls\n`);
        writeRemoteDetails(io, r, true);
      }
    }
    return 0;
  },
};

export const remoteEndpointsCommand: CliCommand = {
  path: ['remote', 'endpoints'],
  summary: "Replace a server's endpoints (add or drop replicas, change limits) and ask them again; its cache identity stays",
  help: `Usage: fairground remote endpoints NAME [--endpoint URL[=N]...] [--no-probe] [--workspace PATH]

${ENDPOINT_HELP}
      --no-probe           change the endpoints without asking the servers what they can do
${WORKSPACE_HELP}

Without --endpoint, the endpoints stay and are asked again ("check again"). Either way the servers
are probed as at 'remote add' (reachable, model listed, capabilities, context size), and the stored
probe is replaced, with its date; what changed is printed. When the model's weights are checked (a
revision the servers reported, a fingerprint), every endpoint must still pass the same check, or
nothing changes: the weights are the cache key, so a server now serving other weights is a new
model ('remote add' under another name).`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, endpoint: { type: 'string', multiple: true }, 'no-probe': { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new CliError('expected the name of a server');
    const probe = values['no-probe'] !== true;
    if (!values.endpoint?.length && !probe) throw new CliError('--no-probe without --endpoint does nothing: give one or more --endpoint URL[=N]');
    const updated = await withServices(values.workspace, io, async (s) => {
      const id = requireNamed(s, positionals[0]!);
      const changed = values.endpoint?.length ? await s.models.updateRemoteEndpoints(id, values.endpoint.map(parseEndpoint)) : undefined;
      return probe ? await s.models.checkRemote(id) : { ...changed!, changes: [] as string[], warnings: [] as string[] };
    });
    const asked = `'${updated.name}': asked again at ${updated.capabilities?.probedAt ?? '(no probe stored)'}; ${updated.changes.length ? `changed: ${updated.changes.join('; ')}` : 'nothing changed'}\n`;
    if (values.endpoint?.length) {
      // The endpoint lines as before on stdout; the probe's account on stderr.
      io.stdout.write(`'${updated.name}' now has ${updated.endpoints.length} endpoint(s)\n`);
      for (const e of updated.endpoints) io.stdout.write(`  ${e.baseUrl}  ${atOnce(e)}\n`);
      if (probe) io.stderr.write(asked);
    } else {
      io.stdout.write(asked);
      writeRemoteDetails(io, updated, true);
    }
    for (const w of updated.warnings ?? []) io.stderr.write(`warning: ${w}\n`);
    return 0;
  },
};

export const remoteRemoveCommand: CliCommand = {
  path: ['remote', 'remove'],
  summary: 'Forget an OpenAI-compatible server (its cached calls stay)',
  help: `Usage: fairground remote remove NAME [--workspace PATH]

${WORKSPACE_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, workspaceOptionSpec, true);
    if (positionals.length !== 1) throw new CliError('expected the name of a server');
    await withServices(values.workspace, io, (s) => s.models.removeRemote(requireNamed(s, positionals[0]!)));
    io.stdout.write(`Removed '${positionals[0]}'\n`);
    return 0;
  },
};
