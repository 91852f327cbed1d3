import { JSON_SCHEMA_GRAMMAR_STOP, jsonSchemaGbnf } from '../local/jsonSchemaGrammar';
import { EngineError, type FinishReason, type GenerateRequest } from '../types';
import type { JsonSchemaTransport, RemoteRefusals, RemoteServerKind } from './remoteEngineConfig';

export interface GenerateCall {
  path: '/chat/completions' | '/completions';
  body: Record<string, unknown>;
}

export interface GenerateBodySettings {
  model: string;
  serverKind: RemoteServerKind;
  /** On /v1/completions (and on chat requests unless `chatJsonSchemaTransport` says otherwise). */
  jsonSchemaTransport: JsonSchemaTransport;
  chatJsonSchemaTransport?: JsonSchemaTransport | undefined;
  /** What the server was found not to serve: refused here, before any request. */
  refusals?: RemoteRefusals | undefined;
}

/** Per call, beside the settings. */
export interface GenerateCallOptions {
  /**
   * The prompt as the server's own token ids (llama.cpp: from its /tokenize with the model's
   * beginning token and space prefix, special-token text kept as text), sent instead of the text
   * so the server evaluates exactly the sequence the local engine evaluates. Plain prompts only.
   */
  promptTokens?: number[];
}

/**
 * Maps an engine request (already checked by `checkGenerateRequest`) onto the OpenAI API:
 * `messages` → /chat/completions, a plain `prompt` → /completions (no chat template, as the
 * contract says).
 *
 * `max_tokens` (not `max_completion_tokens`) because vLLM, llama.cpp's server and the OpenAI API
 * all accept it for ordinary models. Parameters the OpenAI API lacks are sent under the names the
 * configured server kind understands, and refused for plain OpenAI rather than silently dropped,
 * because dropping them would change outputs without a trace.
 */
export function buildGenerateCall(request: GenerateRequest, settings: GenerateBodySettings, options: GenerateCallOptions = {}): GenerateCall {
  const hasMessages = request.messages !== undefined;
  const { sampling } = request;
  const transport = hasMessages ? (settings.chatJsonSchemaTransport ?? settings.jsonSchemaTransport) : settings.jsonSchemaTransport;
  const refused = generateRefusal(request, settings);
  if (refused) throw new EngineError('unsupported', refused.message);

  const body: Record<string, unknown> = { model: settings.model };
  if (hasMessages) body.messages = request.messages;
  else body.prompt = options.promptTokens ?? request.prompt;
  body.max_tokens = request.maxTokens;
  body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  const stops = [...(request.stop ?? [])];
  // The local engine's JSON-schema grammar ends with "\n\n\n\n" and stops there (jsonSchemaGrammar.ts).
  if (request.jsonSchema !== undefined && transport === 'gbnf' && !stops.includes(JSON_SCHEMA_GRAMMAR_STOP)) stops.push(JSON_SCHEMA_GRAMMAR_STOP);
  if (stops.length > 0) body.stop = stops;
  Object.assign(body, extraSampling(request, settings.serverKind));
  // llama.cpp's server reuses a cached KV prefix by default and then evaluates the rest of the
  // prompt in another batch split: near-tie argmaxes flip with request order (2 of 155 greedy
  // outputs; 7 of 206 between a live run and a replay). Evaluating every prompt whole keeps
  // outputs reproducible (issue 24 item 2).
  if (settings.serverKind === 'llama.cpp') body.cache_prompt = false;
  // Greedy on llama.cpp's server runs its whole sampler chain (top-k, top-p, min-p, …) before the
  // temperature-0 pick, and top-k's sort orders tied logits its own way; the local engine's greedy
  // pick (node-llama-cpp) takes the lowest token id among tied maxima. With only the temperature
  // sampler (and the repeat penalty when asked for), the server keeps the vocabulary order and picks
  // the same token: on the tiny F16 model, whose byte tokens share one logit, 489 of 523 JSON
  // answers differed in one whitespace token before this (issue 24 item 2).
  if (settings.serverKind === 'llama.cpp' && sampling.temperature === 0) {
    body.samplers = sampling.repeatPenalty !== undefined && sampling.repeatPenalty !== 1 ? ['penalties', 'temperature'] : ['temperature'];
  }
  if (settings.serverKind === 'llama.cpp' && sampling.temperature > 0) Object.assign(body, llamaCppSampledChain(sampling));

  if (request.jsonSchema !== undefined) {
    if (transport === 'gbnf' && settings.serverKind !== 'llama.cpp') {
      throw new EngineError('unsupported', `a JSON schema sent as a GBNF grammar needs a llama.cpp server (serverKind is ${settings.serverKind})`);
    }
    Object.assign(body, jsonSchemaFields(request.jsonSchema, transport));
  }
  if (request.grammar !== undefined) {
    if (settings.serverKind !== 'llama.cpp') {
      throw new EngineError('unsupported', `GBNF grammars need the local engine or a llama.cpp server (serverKind is ${settings.serverKind})`);
    }
    body.grammar = request.grammar;
  }
  return { path: hasMessages ? '/chat/completions' : '/completions', body };
}

/**
 * Why this server cannot serve a request, or undefined: what the probe at `remote add` saw it not
 * honour (`refusals`), a GBNF grammar on a server kind that has none, sampling parameters the
 * OpenAI API lacks. Pure, so spec validation asks exactly what the engine would refuse
 * (experiments/specCapabilities.ts) before any run is written.
 */
export interface GenerateRefusal {
  /** What the request needs, e.g. `a JSON-schema constraint on /v1/completions`. */
  capability: string;
  /** The engine's error message (names the model and the reason). */
  message: string;
  /** The engines that have the capability. */
  engines: string;
}

export const CAPABLE_ENGINES = {
  completions: "a local llama.cpp model, vLLM (vllm serve) or llama.cpp's server (llama-server); or send the prompt as a chat message (chat: true)",
  chat: "a local llama.cpp model, vLLM, llama.cpp's server or the OpenAI API; or send a plain prompt (chat: false)",
  jsonSchema: "a local llama.cpp model, llama.cpp's server added with --server-kind llama.cpp (grammar or json_schema on /v1/completions), vLLM added with --server-kind vllm (response_format, structured_outputs or guided_json)",
  chatJsonSchema: "a local llama.cpp model, llama.cpp's server added with --server-kind llama.cpp (grammar on /v1/chat/completions), vLLM or the OpenAI API (response_format on /v1/chat/completions)",
  grammar: "a local llama.cpp model or llama.cpp's server added with --server-kind llama.cpp",
  sampling: 'a local llama.cpp model, vLLM (--server-kind vllm) or llama.cpp\'s server (--server-kind llama.cpp)',
} as const;

export function generateRefusal(request: GenerateRequest, settings: Pick<GenerateBodySettings, 'model' | 'serverKind' | 'refusals'>): GenerateRefusal | undefined {
  const hasMessages = request.messages !== undefined;
  const unserved = unservedReason(request, hasMessages, settings);
  if (unserved) return unserved;
  if (settings.serverKind === 'openai') {
    const { topK, minP, repeatPenalty } = request.sampling;
    const named = Object.entries({ topK, minP, repeatPenalty })
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    if (named.length > 0) return { capability: named.join(', '), message: `the OpenAI API has no ${named.join(', ')}; set serverKind to vllm or llama.cpp`, engines: CAPABLE_ENGINES.sampling };
  }
  if (request.grammar !== undefined && settings.serverKind !== 'llama.cpp') {
    return { capability: 'a GBNF grammar', message: `GBNF grammars need the local engine or a llama.cpp server (serverKind is ${settings.serverKind})`, engines: CAPABLE_ENGINES.grammar };
  }
  return undefined;
}

/** A request the server was found not to serve, naming the model and why. */
function unservedReason(request: GenerateRequest, hasMessages: boolean, settings: Pick<GenerateBodySettings, 'model' | 'refusals'>): GenerateRefusal | undefined {
  const r = settings.refusals;
  if (!r) return undefined;
  const schema = request.jsonSchema !== undefined;
  const found: Array<[string | undefined, string, string]> = hasMessages
    ? [
        [r.chat, 'chat messages (/v1/chat/completions)', CAPABLE_ENGINES.chat],
        [schema ? r.chatJsonSchema : undefined, 'a JSON-schema constraint on /v1/chat/completions', CAPABLE_ENGINES.chatJsonSchema],
      ]
    : [
        [r.completions, 'plain prompts (/v1/completions)', CAPABLE_ENGINES.completions],
        [schema ? r.jsonSchema : undefined, 'a JSON-schema constraint on /v1/completions', CAPABLE_ENGINES.jsonSchema],
      ];
  found.push([request.grammar !== undefined ? r.grammar : undefined, 'a GBNF grammar', CAPABLE_ENGINES.grammar]);
  const hit = found.find(([why]) => why !== undefined);
  if (!hit) return undefined;
  const what = request.grammar !== undefined ? 'a GBNF-constrained' : schema ? 'a JSON-schema-constrained' : 'a';
  return { capability: hit[1], message: `model ${JSON.stringify(settings.model)} cannot serve ${what} ${hasMessages ? 'chat' : 'plain-prompt'} request: ${hit[0]!}`, engines: hit[2] };
}

/**
 * The sampler chain the local engine (node-llama-cpp's LlamaCompletion / LlamaChat) runs for a
 * sampled request, spelled out for llama.cpp's server so that both draw the same tokens from the
 * same seed (issue 24 item 2). node-llama-cpp (AddonSampler.cpp at the bundled llama.cpp commit)
 * builds [top-k, top-p, min-p when > 0, temperature, dist(seed)] with its own defaults top-k 40,
 * top-p 0.95, min-p 0 and min_keep 1, a top-k ≤ 0 meaning the whole vocabulary; the server's
 * default chain is longer (penalties, DRY, top-n-sigma, typical-p, XTC, …) and its own defaults
 * differ, so every sampler and value is named here. The server's top-k ≤ 0 is a no-op (no sort),
 * which would order the candidates differently before the draw: "the whole vocabulary" is sent as
 * the largest int32, which the server clamps to the vocabulary (a full sort, as node-llama-cpp's).
 * Both reject-and-resample a token the grammar refuses in the same way (common_sampler_sample and
 * AddonSampler::sampleAndReleaseLock) and draw with one dist sampler seeded per request.
 * The repeat penalty's options (node-llama-cpp's punished-token window) are not mirrored here.
 */
export const NODE_LLAMA_CPP_SAMPLING_DEFAULTS = { topK: 40, topP: 0.95, minP: 0 } as const;
const INT32_MAX = 2_147_483_647;

function llamaCppSampledChain(sampling: GenerateRequest['sampling']): Record<string, unknown> {
  const topK = sampling.topK ?? NODE_LLAMA_CPP_SAMPLING_DEFAULTS.topK;
  const topP = sampling.topP ?? NODE_LLAMA_CPP_SAMPLING_DEFAULTS.topP;
  const minP = sampling.minP ?? NODE_LLAMA_CPP_SAMPLING_DEFAULTS.minP;
  const penalties = sampling.repeatPenalty !== undefined && sampling.repeatPenalty !== 1;
  const samplers = [...(penalties ? ['penalties'] : []), 'top_k', 'top_p', ...(minP > 0 ? ['min_p'] : []), 'temperature'];
  return { samplers, top_k: topK <= 0 ? INT32_MAX : topK, top_p: topP, min_p: minP, min_keep: 1 };
}

function extraSampling(request: GenerateRequest, kind: RemoteServerKind): Record<string, unknown> {
  const { topK, minP, repeatPenalty } = request.sampling;
  const wanted = { topK, minP, repeatPenalty };
  if (kind === 'openai') {
    const named = Object.entries(wanted).filter(([, v]) => v !== undefined).map(([k]) => k);
    if (named.length > 0) {
      throw new EngineError('unsupported', `the OpenAI API has no ${named.join(', ')}; set serverKind to vllm or llama.cpp`);
    }
    return {};
  }
  const out: Record<string, unknown> = {};
  if (topK !== undefined) out.top_k = topK;
  if (minP !== undefined) out.min_p = minP;
  // vLLM follows Hugging Face's name, llama.cpp its own.
  if (repeatPenalty !== undefined) out[kind === 'vllm' ? 'repetition_penalty' : 'repeat_penalty'] = repeatPenalty;
  return out;
}

/**
 * The field(s) a JSON schema travels in (remoteEngineConfig.ts, JsonSchemaTransport).
 * `strict: true` asks the OpenAI API to guarantee the schema; it then requires every property to
 * be `required` and `additionalProperties: false` — the caller's schema must follow those rules.
 * vLLM and llama.cpp's server ignore `strict` and always constrain decoding.
 */
function jsonSchemaFields(schema: Record<string, unknown>, transport: JsonSchemaTransport): Record<string, unknown> {
  if (transport === 'gbnf') return { grammar: jsonSchemaGbnf(schema) };
  if (transport === 'guided_json') return { guided_json: schema };
  if (transport === 'json_schema') return { json_schema: schema };
  if (transport === 'structured_outputs') return { structured_outputs: { json: schema } };
  return { response_format: { type: 'json_schema', json_schema: { name: schemaName(schema), schema, strict: true } } };
}

/** The OpenAI API wants a name matching ^[a-zA-Z0-9_-]{1,64}$. */
function schemaName(schema: Record<string, unknown>): string {
  const title = typeof schema.title === 'string' ? schema.title.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64) : '';
  return title || 'response';
}

/**
 * OpenAI says `stop` both for end-of-sequence and for a stop string. vLLM tells them apart in
 * `stop_reason` (the matched string, a token id, or null for EOS); other servers do not, so their
 * `stop` is reported as `stop`. `content_filter` and tool calls also end generation: `stop`.
 */
export function mapFinishReason(finishReason: string | null | undefined, stopReason: unknown, stops: string[] | undefined): FinishReason {
  if (finishReason === 'length') return 'length';
  if (typeof stopReason === 'string' && stops?.includes(stopReason)) return 'stopString';
  return 'stop';
}

/**
 * Whether an answer's trailing whitespace is trimmed, as the local engine trims it: a JSON schema
 * sent as node-llama-cpp's grammar (transport `gbnf`, whose answer ends in the grammar's "\n\n\n\n"
 * stop). Read from the request body sent, so a batch line's answer is read as the live call's.
 */
export function trimsAnswer(request: Pick<GenerateRequest, 'jsonSchema'>, body: Record<string, unknown>): boolean {
  return request.jsonSchema !== undefined && typeof body.grammar === 'string';
}
