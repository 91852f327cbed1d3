import { DataError } from '../../core/errors';
import type { WeightsFingerprint } from './types';

/**
 * Which family of OpenAI-compatible server sits behind `baseUrl`. It only decides how the
 * parameters the OpenAI API lacks are spelled (top-k, min-p, repeat penalty, GBNF grammars):
 * the OpenAI API rejects unknown fields, vLLM and llama.cpp's server accept their own.
 */
export type RemoteServerKind = 'openai' | 'vllm' | 'llama.cpp';

/**
 * - `auto`: probe the server once with a tiny echo+logprobs request; if it cannot score, say so
 *   at once on every later call without another request.
 * - `echo-logprobs`: the server is known to score; skip the probe and always try.
 * - `none`: never score with this server (fails with `unsupported` without a request).
 */
export type RemoteScoringMode = 'auto' | 'echo-logprobs' | 'none';

/**
 * How a JSON schema constraint travels (each server reads only its own fields and ignores the
 * others without an error, so the transport must be the one the server honours; an answer that
 * does not satisfy the schema fails the call, see constraintCheck.ts):
 * - `response_format`: `{type:'json_schema', json_schema:{name, schema, strict:true}}` — the OpenAI
 *   API and vLLM ≥ 0.6 on both routes; llama.cpp's server reads it on /v1/chat/completions only
 *   (on /v1/completions it is ignored).
 * - `json_schema`: llama.cpp's server field (`json_schema: schema`), read on /v1/completions and
 *   /v1/chat/completions alike. The default for serverKind llama.cpp.
 * - `structured_outputs`: vLLM ≥ 0.10.2's field (`structured_outputs: {json: schema}`).
 * - `guided_json`: vLLM's older extra field (`guided_json: schema`), for vLLM builds that predate
 *   `response_format` json_schema support. vLLM ≥ 0.10 deprecates it in favour of `response_format`.
 * - `gbnf`: llama.cpp's server only: the schema converted to the GBNF grammar the local engine
 *   decodes it with (node-llama-cpp's converter, engine/local/jsonSchemaGrammar.ts), sent as
 *   `grammar` with that grammar's stop ("\n\n\n\n") and the answer's trailing whitespace trimmed,
 *   as node-llama-cpp does. The server's own conversion of `json_schema` allows other whitespace,
 *   so the same GGUF writes other JSON there; this transport gives the local engine's answers.
 *   Chosen when the server was seen to honour `grammar` on /v1/completions (engineConfigOf).
 * Unset, it follows serverKind (`defaultJsonSchemaTransport`); `remote add`'s probe may set it.
 */
export type JsonSchemaTransport = 'response_format' | 'json_schema' | 'structured_outputs' | 'guided_json' | 'gbnf';

export const JSON_SCHEMA_TRANSPORTS: readonly JsonSchemaTransport[] = ['response_format', 'json_schema', 'structured_outputs', 'guided_json', 'gbnf'];

/** The transport a server kind honours on both routes when nothing else is known. */
export function defaultJsonSchemaTransport(kind: RemoteServerKind): JsonSchemaTransport {
  return kind === 'llama.cpp' ? 'json_schema' : 'response_format';
}

/**
 * Requests a server was found not to serve (serverProbe.ts `chooseTransports`), each with the
 * reason: such a request is refused before it is sent, naming the model and the reason.
 */
export interface RemoteRefusals {
  /** Plain prompts (/v1/completions). */
  completions?: string;
  /** Chat messages (/v1/chat/completions). */
  chat?: string;
  /** A JSON schema on /v1/completions. */
  jsonSchema?: string;
  /** A JSON schema on /v1/chat/completions. */
  chatJsonSchema?: string;
  /** A GBNF grammar. */
  grammar?: string;
}

/** One replica of a pool: its API root and how many requests it takes at once. */
export interface RemoteEndpointConfig {
  /** The API root including `/v1`, e.g. `http://10.0.0.7:8000/v1`. */
  baseUrl: string;
  /** Most requests in flight at this endpoint; defaults to the engine's `maxConcurrency`. */
  maxConcurrency?: number;
}

export interface RemoteEngineConfig {
  /**
   * The API root including `/v1`, e.g. `http://127.0.0.1:8000/v1`: a pool of one. Give either
   * this or `endpoints`; when both are given, `baseUrl` must be one of the endpoints.
   */
  baseUrl?: string;
  /**
   * Several replicas serving the same model (vLLM, llama.cpp's server, a gateway): each call goes
   * to the least-loaded healthy one and a failed call is retried on another.
   */
  endpoints?: RemoteEndpointConfig[];
  model: string;
  /**
   * Which weights the model name stands for, when known: what the servers reported when the
   * model was added (`servedRevision`) or what the user states (a commit, a file hash). Part of
   * the cache identity, with the model name; the URLs are not, so replicas share cache entries.
   */
  revision?: string;
  /**
   * Check each endpoint before its first call: it must report the same `revision`
   * (see servedRevision.ts). An endpoint that serves different weights is left out of the pool.
   */
  checkRevision?: boolean;
  /**
   * Greedy continuations of fixed prompts taken when the model was added (weightsFingerprint.ts),
   * for servers whose reported revision does not tell weights apart; with `checkRevision`, each
   * endpoint must give the same before it joins the pool.
   */
  fingerprint?: WeightsFingerprint;
  /** Sent as `Authorization: Bearer …`; never appears in any error or identity. */
  apiKey?: string;
  serverKind?: RemoteServerKind;
  /** Most requests in flight at once per endpoint (unless the endpoint says), across all operations. */
  maxConcurrency?: number;
  /** Per HTTP attempt (not per operation): LLM calls can be slow, so the default is generous. */
  timeoutMs?: number;
  /** The context one request may use, as the server reported it (contextProbe.ts); `tokenize` answers it, for prompt budgets' default. */
  contextSize?: number;
  /** Extra attempts after a 408/429/5xx or a network error. */
  retries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Randomise backoff delays (spreads retries of many clients). Off gives exact delays. */
  jitter?: boolean;
  /** A Retry-After longer than this is not waited for: the call fails instead. */
  maxRetryAfterMs?: number;
  scoring?: RemoteScoringMode;
  jsonSchemaTransport?: JsonSchemaTransport;
  /** The transport of a JSON schema on chat requests; unset: `jsonSchemaTransport`. */
  chatJsonSchemaTransport?: JsonSchemaTransport;
  /** Requests refused before they are sent (what the server was found not to serve). */
  refusals?: RemoteRefusals;
  /** Texts per /embeddings request. */
  embedBatchSize?: number;
  /**
   * When every endpoint has failed for this long with no usable answer in between, calls fail
   * with one error naming the endpoints' last errors instead of waiting on (the run stops; its
   * finished calls are in the cache, so running again resumes).
   */
  giveUpAfterMs?: number;
  /** The largest response body read; a bigger one is that endpoint's failure (read streaming, cut at the cap). */
  maxResponseBytes?: number;
  /**
   * Hedging: a call outstanding longer than `hedgeFactor` × the pool's recent median latency (and
   * at least `hedgeMinMs`) is sent again to an idle endpoint; the first answer wins and the other
   * is aborted. 0 turns hedging off; a pool of one endpoint never hedges.
   */
  hedgeFactor?: number;
  hedgeMinMs?: number;
  /** With `checkRevision`: check an endpoint's weights again before its next call once this long has passed since its last check. */
  recheckAfterMs?: number;
  /** After a failed GET /models (the identity's versions), wait this long before asking again; doubled per failure up to identityRetryMaxMs. */
  identityRetryMs?: number;
  identityRetryMaxMs?: number;
}

export type ResolvedRemoteConfig = Required<Omit<RemoteEngineConfig, 'apiKey' | 'baseUrl' | 'endpoints' | 'revision' | 'fingerprint' | 'contextSize' | 'chatJsonSchemaTransport' | 'refusals'>> & {
  chatJsonSchemaTransport: JsonSchemaTransport | undefined;
  refusals: RemoteRefusals;
  apiKey: string | undefined;
  contextSize: number | undefined;
  revision: string | undefined;
  fingerprint: WeightsFingerprint | undefined;
  /** At least one; URLs without trailing slashes, each with its own limit. */
  endpoints: Array<Required<RemoteEndpointConfig>>;
};

export const remoteDefaults = {
  serverKind: 'openai',
  maxConcurrency: 4,
  timeoutMs: 300_000,
  retries: 4,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  jitter: true,
  maxRetryAfterMs: 120_000,
  scoring: 'auto',
  /** For serverKind openai and vllm; llama.cpp's default is json_schema (defaultJsonSchemaTransport). */
  jsonSchemaTransport: 'response_format',
  embedBatchSize: 64,
  checkRevision: false,
  giveUpAfterMs: 60_000,
  maxResponseBytes: 64 * 1024 * 1024,
  hedgeFactor: 3,
  hedgeMinMs: 1_000,
  recheckAfterMs: 60_000,
  identityRetryMs: 2_000,
  identityRetryMaxMs: 60_000,
} as const satisfies Omit<ResolvedRemoteConfig, 'endpoints' | 'model' | 'apiKey' | 'revision' | 'fingerprint' | 'contextSize' | 'chatJsonSchemaTransport' | 'refusals'>;

/**
 * The cache identity of a served model: its name and, when known, its revision — never a URL, so
 * every replica (and every workspace that talks to the same model) shares cache entries. Computed
 * from configuration alone, so a run can finish from the cache with no server reachable.
 */
export function remoteModelKey(model: string, revision?: string | null): string {
  return revision ? `remote:${model}@${revision}` : `remote:${model}`;
}

/** Fills defaults and rejects settings that cannot work, naming the field. */
export function resolveRemoteConfig(config: RemoteEngineConfig): ResolvedRemoteConfig {
  if (typeof config.model !== 'string' || !config.model.trim()) throw new DataError('must not be empty', { field: 'model' });
  const { baseUrl, endpoints, apiKey, revision, fingerprint, contextSize, chatJsonSchemaTransport, refusals, ...rest } = config;
  const resolved = {
    ...remoteDefaults,
    ...definedOnly(rest),
    chatJsonSchemaTransport,
    refusals: refusals ?? {},
    model: config.model,
    apiKey: apiKey || undefined,
    revision: revision?.trim() || undefined,
    fingerprint,
    contextSize,
  };
  oneOf(resolved.serverKind, ['openai', 'vllm', 'llama.cpp'], 'serverKind');
  if (config.jsonSchemaTransport === undefined) resolved.jsonSchemaTransport = defaultJsonSchemaTransport(resolved.serverKind);
  oneOf(resolved.scoring, ['auto', 'echo-logprobs', 'none'], 'scoring');
  oneOf(resolved.jsonSchemaTransport, JSON_SCHEMA_TRANSPORTS, 'jsonSchemaTransport');
  if (resolved.chatJsonSchemaTransport !== undefined) oneOf(resolved.chatJsonSchemaTransport, JSON_SCHEMA_TRANSPORTS, 'chatJsonSchemaTransport');
  if ((resolved.jsonSchemaTransport === 'gbnf' || resolved.chatJsonSchemaTransport === 'gbnf') && resolved.serverKind !== 'llama.cpp') {
    throw new DataError(`gbnf (a GBNF grammar) is read only by llama.cpp's server, not serverKind ${resolved.serverKind}`, { field: 'jsonSchemaTransport' });
  }
  positiveInteger(resolved.maxConcurrency, 'maxConcurrency');
  positiveInteger(resolved.embedBatchSize, 'embedBatchSize');
  positiveInteger(resolved.timeoutMs, 'timeoutMs');
  nonNegativeInteger(resolved.retries, 'retries');
  nonNegativeInteger(resolved.backoffBaseMs, 'backoffBaseMs');
  nonNegativeInteger(resolved.backoffMaxMs, 'backoffMaxMs');
  nonNegativeInteger(resolved.maxRetryAfterMs, 'maxRetryAfterMs');
  nonNegativeInteger(resolved.giveUpAfterMs, 'giveUpAfterMs');
  positiveInteger(resolved.maxResponseBytes, 'maxResponseBytes');
  if (typeof resolved.hedgeFactor !== 'number' || !Number.isFinite(resolved.hedgeFactor) || resolved.hedgeFactor < 0 || (resolved.hedgeFactor > 0 && resolved.hedgeFactor < 1)) {
    throw new DataError(`must be 0 (off) or a number of at least 1, got ${String(resolved.hedgeFactor)}`, { field: 'hedgeFactor' });
  }
  nonNegativeInteger(resolved.hedgeMinMs, 'hedgeMinMs');
  nonNegativeInteger(resolved.recheckAfterMs, 'recheckAfterMs');
  nonNegativeInteger(resolved.identityRetryMs, 'identityRetryMs');
  nonNegativeInteger(resolved.identityRetryMaxMs, 'identityRetryMaxMs');
  if (resolved.contextSize !== undefined) positiveInteger(resolved.contextSize, 'contextSize');
  if (resolved.checkRevision && !resolved.revision) throw new DataError('checkRevision needs a revision to check against', { field: 'revision' });
  return { ...resolved, endpoints: resolveEndpoints(baseUrl, endpoints, resolved.maxConcurrency) };
}

function resolveEndpoints(baseUrl: string | undefined, endpoints: RemoteEndpointConfig[] | undefined, defaultLimit: number): Array<Required<RemoteEndpointConfig>> {
  const list = endpoints && endpoints.length > 0 ? endpoints : baseUrl !== undefined ? [{ baseUrl }] : [];
  if (list.length === 0) throw new DataError('give a base URL or at least one endpoint', { field: 'baseUrl' });
  const seen = new Set<string>();
  const resolved = list.map((endpoint, i) => {
    const field = endpoints && endpoints.length > 0 ? `endpoints[${i}].baseUrl` : 'baseUrl';
    const url = checkBaseUrl(endpoint.baseUrl, field);
    if (seen.has(url)) throw new DataError(`${url} is listed twice`, { field });
    seen.add(url);
    const limit = endpoint.maxConcurrency ?? defaultLimit;
    positiveInteger(limit, field.replace(/baseUrl$/, 'maxConcurrency'));
    return { baseUrl: url, maxConcurrency: limit };
  });
  if (baseUrl !== undefined && endpoints && endpoints.length > 0 && !seen.has(checkBaseUrl(baseUrl, 'baseUrl'))) {
    throw new DataError('must be one of the endpoints when both are given', { field: 'baseUrl' });
  }
  return resolved;
}

/** An http(s) URL without credentials, trailing slashes removed. */
function checkBaseUrl(value: unknown, field: string): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new DataError(`not a URL: ${JSON.stringify(value)}`, { field });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DataError(`must be an http(s) URL, got ${url.protocol}`, { field });
  }
  // fetch refuses URLs with credentials; the key belongs in apiKey, where it is kept out of messages.
  if (url.username || url.password) {
    throw new DataError('must not contain credentials; put the key in apiKey', { field });
  }
  return String(value).replace(/\/+$/, '');
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Settings may come from files, where the type system cannot vouch for them. */
function oneOf(value: string, allowed: readonly string[], field: string): void {
  if (!allowed.includes(value)) throw new DataError(`must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`, { field });
}

function positiveInteger(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 1) throw new DataError(`must be a positive integer, got ${value}`, { field });
}

function nonNegativeInteger(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0) throw new DataError(`must be a non-negative integer, got ${value}`, { field });
}
