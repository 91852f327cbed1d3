/**
 * What an OpenAI-compatible server does, asked before any run (issue 24 item 3), so a spec that
 * needs what a server lacks is refused at validation instead of failing (or silently degrading)
 * mid-run:
 *
 * - `listModel`: is the server reachable, and does `GET /models` list the model (else: what it lists)
 * - completions and chat: does each route answer
 * - echo scoring: prompt log-probabilities through `echo` + `logprobs` on /completions (what the
 *   remote engine scores with; llama.cpp's server has none: it refuses or ignores `echo`)
 * - `prompt_logprobs` (vLLM's field)
 * - each constraint transport: a constraint that forces one output (`{"answer": "fairground"}`, the
 *   grammar `root ::= "fairground"`) is honoured when the output is exactly that (or a prefix of
 *   it when cut by max_tokens); a server that ignores the field writes free text.
 *
 * Each probe is one request with a short timeout and no retry.
 */
import { readEchoResponse } from './responseReaders';
import type { JsonSchemaTransport, RemoteRefusals, RemoteServerKind } from './remoteEngineConfig';
import { describeOutcome, probeRequest, type ProbeOutcome, type ProbeTarget } from './probeHttp';
import { servedRevision } from './servedRevision';

export type CapabilityValue = 'yes' | 'no' | 'unknown';
export interface Capability {
  value: CapabilityValue;
  /** What the server answered, when not plainly yes. */
  detail?: string;
}

/** Constraint transports, named `route.field` as sent. */
export const constraintTransports = [
  'completions.json_schema',
  'completions.grammar',
  'completions.response_format',
  'completions.guided_json',
  'completions.structured_outputs',
  'chat.response_format',
  'chat.grammar',
  'chat.json_schema',
] as const;
export type ConstraintTransportName = (typeof constraintTransports)[number];

export interface ServerCapabilities {
  probedAt: string;
  /** The endpoint asked (the pool's first). */
  endpoint: string;
  completions: Capability;
  chat: Capability;
  echoScoring: Capability;
  promptLogprobs: Capability;
  constraints: Partial<Record<ConstraintTransportName, Capability>>;
}

export type ListingResult =
  | { kind: 'listed'; entry: Record<string, unknown>; revision: string | undefined }
  | { kind: 'unlisted'; listed: string[] }
  | { kind: 'no-list'; detail: string }
  | { kind: 'unreachable'; detail: string };

/** GET /models: reachable? listed? (a 404 or a body that is no model list: the server keeps no list). */
export async function listModel(target: ProbeTarget, model: string): Promise<ListingResult> {
  const outcome = await probeRequest(target, 'GET', '/models');
  if (outcome.kind === 'network') return { kind: 'unreachable', detail: outcome.detail };
  if (outcome.kind === 'http' && (outcome.status === 401 || outcome.status === 403)) return { kind: 'unreachable', detail: `${describeOutcome(outcome)} (check the API key)` };
  if (outcome.kind !== 'ok') return { kind: 'no-list', detail: `GET /models: ${describeOutcome(outcome)}` };
  const data = (outcome.json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return { kind: 'no-list', detail: 'GET /models: not an OpenAI model list' };
  const entries = data.filter((m): m is Record<string, unknown> => m !== null && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string');
  const entry = entries.find((m) => m.id === model);
  if (!entry) return { kind: 'unlisted', listed: entries.map((m) => m.id as string) };
  return { kind: 'listed', entry, revision: servedRevision(entry) };
}

/** The constraint probes: the schema and grammar allow exactly one output. */
const expectedJson = '{"answer":"fairground"}';
const probeSchema = { type: 'object', properties: { answer: { type: 'string', enum: ['fairground'] } }, required: ['answer'], additionalProperties: false };
const probeGrammar = 'root ::= "fairground"';
const probeMaxTokens = 32;

/** Asks one endpoint what it does (sequentially: a one-slot llama-server takes one request at a time). */
export async function probeCapabilities(target: ProbeTarget, model: string, serverKind: RemoteServerKind): Promise<ServerCapabilities> {
  const llama = serverKind === 'llama.cpp';
  const base = { model, temperature: 0, ...(llama ? { cache_prompt: false } : {}) };
  const completion = (extra: Record<string, unknown>) => probeRequest(target, 'POST', '/completions', { ...base, prompt: 'Answer in JSON:', max_tokens: probeMaxTokens, ...extra });
  const chat = (extra: Record<string, unknown>) =>
    probeRequest(target, 'POST', '/chat/completions', { ...base, messages: [{ role: 'user', content: 'Answer in JSON.' }], max_tokens: probeMaxTokens, ...extra });

  const completionsRoute = routeWorks(await completion({ max_tokens: 1 }), 'completions');
  const chatRoute = routeWorks(await chat({ max_tokens: 1 }), 'chat');
  const echo = await echoScoring(target, base);
  const promptLogprobs = readPromptLogprobs(await probeRequest(target, 'POST', '/completions', { ...base, prompt: 'The sky is blue', max_tokens: 1, prompt_logprobs: 1 }));

  const constraints: ServerCapabilities['constraints'] = {};
  const schemaFormat = { type: 'json_schema', json_schema: { name: 'probe', schema: probeSchema, strict: true } };
  // Fields another server kind would reject as unknown (the OpenAI API) are not sent there.
  const wanted: Array<[ConstraintTransportName, () => Promise<ProbeOutcome>, string]> = [
    ...(serverKind !== 'openai'
      ? ([
          ['completions.json_schema', () => completion({ json_schema: probeSchema }), expectedJson],
          ['completions.grammar', () => completion({ grammar: probeGrammar }), 'fairground'],
          ['completions.guided_json', () => completion({ guided_json: probeSchema }), expectedJson],
          ['completions.structured_outputs', () => completion({ structured_outputs: { json: probeSchema } }), expectedJson],
        ] as Array<[ConstraintTransportName, () => Promise<ProbeOutcome>, string]>)
      : []),
    ['completions.response_format', () => completion({ response_format: schemaFormat }), expectedJson],
    ['chat.response_format', () => chat({ response_format: schemaFormat }), expectedJson],
    // llama.cpp's server also reads its own fields on chat requests. Its response_format and json_schema
    // there go through the chat template's output parser, which can fail where `grammar` works (a
    // SentencePiece vocabulary: HTTP 400 "Failed to initialize samplers"; docs/remote.md).
    ...(llama
      ? ([
          ['chat.grammar', () => chat({ grammar: probeGrammar }), 'fairground'],
          ['chat.json_schema', () => chat({ json_schema: probeSchema }), expectedJson],
        ] as Array<[ConstraintTransportName, () => Promise<ProbeOutcome>, string]>)
      : []),
  ];
  for (const [name, send, expected] of wanted) {
    const route = name.startsWith('chat.') ? chatRoute : completionsRoute;
    constraints[name] = route.value === 'yes' ? honoured(await send(), name.startsWith('chat.'), expected) : { value: 'unknown', detail: `the ${name.split('.')[0]} route does not answer` };
  }
  return { probedAt: new Date().toISOString(), endpoint: target.baseUrl, completions: completionsRoute, chat: chatRoute, echoScoring: echo, promptLogprobs, constraints };
}

function routeWorks(outcome: ProbeOutcome, route: string): Capability {
  if (outcome.kind === 'ok') return { value: 'yes' };
  if (outcome.kind === 'network') return { value: 'unknown', detail: outcome.detail };
  return { value: 'no', detail: `POST /${route === 'chat' ? 'chat/completions' : 'completions'}: ${describeOutcome(outcome)}` };
}

async function echoScoring(target: ProbeTarget, base: Record<string, unknown>): Promise<Capability> {
  // max_tokens 1: vLLM refuses 0; the generated token is ignored by the reader.
  const outcome = await probeRequest(target, 'POST', '/completions', { ...base, prompt: 'The sky is blue', echo: true, logprobs: 1, max_tokens: 1 });
  if (outcome.kind === 'network') return { value: 'unknown', detail: outcome.detail };
  if (outcome.kind !== 'ok') return { value: 'no', detail: `echo with logprobs refused: ${describeOutcome(outcome)}` };
  try {
    const scored = readEchoResponse(outcome.json, 1, ' blue');
    return scored.tokens.length > 0 ? { value: 'yes' } : { value: 'no', detail: 'the echoed log-probabilities do not cover the prompt' };
  } catch (error) {
    return { value: 'no', detail: `echo ignored: ${(error as Error).message}` };
  }
}

function readPromptLogprobs(outcome: ProbeOutcome): Capability {
  if (outcome.kind === 'network') return { value: 'unknown', detail: outcome.detail };
  if (outcome.kind !== 'ok') return { value: 'no', detail: `prompt_logprobs refused: ${describeOutcome(outcome)}` };
  const choice = (outcome.json as { choices?: Array<Record<string, unknown>> } | null)?.choices?.[0];
  const lp = choice?.prompt_logprobs ?? (outcome.json as Record<string, unknown> | null)?.prompt_logprobs;
  return Array.isArray(lp) && lp.length >= 2 ? { value: 'yes' } : { value: 'no', detail: 'prompt_logprobs ignored (no prompt log-probabilities in the answer)' };
}

/** Whether the output is the one the constraint allows (or its prefix, cut by max_tokens). */
function honoured(outcome: ProbeOutcome, chat: boolean, expected: string): Capability {
  if (outcome.kind === 'network') return { value: 'unknown', detail: outcome.detail };
  if (outcome.kind !== 'ok') return { value: 'no', detail: `refused: ${describeOutcome(outcome)}` };
  const choice = (outcome.json as { choices?: Array<Record<string, unknown>> } | null)?.choices?.[0];
  const text = chat ? (choice?.message as { content?: unknown } | undefined)?.content : choice?.text;
  if (typeof text !== 'string') return { value: 'unknown', detail: 'no text in the answer' };
  const compact = text.replace(/\s+/g, '');
  if (compact === expected) return { value: 'yes' };
  const cut = choice?.finish_reason === 'length';
  if (cut && compact.length > 0 && expected.startsWith(compact)) return { value: 'yes', detail: 'the output was cut by max_tokens but follows the constraint' };
  return { value: 'no', detail: `ignored: the output ${JSON.stringify(text.slice(0, 60))} does not follow the constraint` };
}

/**
 * What a remote engine sends, chosen from what the server was seen to do at `remote add` (issue 24
 * item 3), so each request uses a transport the server honours, and a request needing what it
 * lacks is refused before it is sent (`refusals`: the reason, per need) instead of being answered
 * with a constraint ignored. Only a plain "no" refuses: a capability not known (probe failed, or
 * not asked) leaves the server kind's default in force.
 *
 * JSON schemas on /v1/completions, in order of preference: llama.cpp: `gbnf` (node-llama-cpp's
 * grammar in `grammar`, the local engine's exact decoding) when `grammar` is honoured, then
 * `json_schema`; other servers: `response_format`, `structured_outputs`, `guided_json`. On chat
 * requests: llama.cpp: `gbnf` (`grammar`) when honoured on chat, then `json_schema`, then
 * `response_format`; a stored probe from before the chat fields were asked (no `chat.grammar`)
 * keeps the completions choice, as before. Other servers: `response_format` when honoured there.
 * A llama.cpp server seen to honour none of the three on chat refuses JSON-schema chat requests.
 */
export interface ChosenTransports {
  jsonSchemaTransport?: JsonSchemaTransport;
  chatJsonSchemaTransport?: JsonSchemaTransport;
  refusals: RemoteRefusals;
}

export function chooseTransports(serverKind: RemoteServerKind, capabilities: ServerCapabilities | undefined): ChosenTransports {
  if (!capabilities) return { refusals: {} };
  const c = capabilities.constraints;
  const yes = (t: ConstraintTransportName) => c[t]?.value === 'yes';
  const no = (t: ConstraintTransportName) => c[t] === undefined || c[t]?.value === 'no';
  const refusals: RemoteRefusals = {};
  const seen = (t: ConstraintTransportName) => `${t} ${c[t]?.value ?? 'not asked'}`;

  const completionOrder: Array<[ConstraintTransportName, JsonSchemaTransport]> =
    serverKind === 'llama.cpp'
      ? [['completions.grammar', 'gbnf'], ['completions.json_schema', 'json_schema'], ['completions.response_format', 'response_format'], ['completions.structured_outputs', 'structured_outputs'], ['completions.guided_json', 'guided_json']]
      : [['completions.response_format', 'response_format'], ['completions.structured_outputs', 'structured_outputs'], ['completions.guided_json', 'guided_json'], ...(serverKind === 'vllm' ? ([['completions.json_schema', 'json_schema']] as Array<[ConstraintTransportName, JsonSchemaTransport]>) : [])];
  const jsonSchemaTransport = completionOrder.find(([t]) => yes(t))?.[1];
  if (jsonSchemaTransport === undefined && completionOrder.every(([t]) => no(t))) {
    refusals.jsonSchema = `its server honoured no JSON-schema transport on /v1/completions when probed at remote add (${completionOrder.map(([t]) => seen(t)).join(', ')})`;
  }
  let chatJsonSchemaTransport: JsonSchemaTransport | undefined;
  if (serverKind === 'llama.cpp') {
    const chatOrder: Array<[ConstraintTransportName, JsonSchemaTransport]> = [['chat.grammar', 'gbnf'], ['chat.json_schema', 'json_schema'], ['chat.response_format', 'response_format']];
    chatJsonSchemaTransport = chatOrder.find(([t]) => yes(t))?.[1];
    // Only when every chat field was asked and plainly not honoured (an older probe did not ask chat.grammar).
    if (chatJsonSchemaTransport === undefined && chatOrder.every(([t]) => c[t]?.value === 'no')) {
      refusals.chatJsonSchema = `its server honoured no JSON-schema transport on /v1/chat/completions when probed at remote add (${chatOrder.map(([t]) => `${seen(t)}${c[t]?.detail ? ` (${c[t]!.detail})` : ''}`).join(', ')})`;
    }
  } else if (yes('chat.response_format')) chatJsonSchemaTransport = 'response_format';
  else if (no('chat.response_format')) refusals.chatJsonSchema = `its server did not honour response_format on /v1/chat/completions when probed at remote add (${seen('chat.response_format')})`;
  if (serverKind === 'llama.cpp' && no('completions.grammar')) refusals.grammar = `its server did not honour a GBNF grammar on /v1/completions when probed at remote add (${seen('completions.grammar')})`;
  if (capabilities.completions.value === 'no') refusals.completions = `its server does not answer /v1/completions (probed at remote add: ${capabilities.completions.detail ?? 'no'}); plain prompts need it`;
  if (capabilities.chat.value === 'no') refusals.chat = `its server does not answer /v1/chat/completions (probed at remote add: ${capabilities.chat.detail ?? 'no'}); chat messages need it`;
  return { ...(jsonSchemaTransport ? { jsonSchemaTransport } : {}), ...(chatJsonSchemaTransport ? { chatJsonSchemaTransport } : {}), refusals };
}
