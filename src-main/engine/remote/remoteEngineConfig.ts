import { DataError } from '../../core/errors';

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
 * How a JSON schema constraint travels:
 * - `response_format`: `{type:'json_schema', json_schema:{name, schema, strict:true}}` — the OpenAI
 *   API, vLLM ≥ 0.6 and llama.cpp's server all accept this shape.
 * - `guided_json`: vLLM's older extra field (`guided_json: schema`), for vLLM builds that predate
 *   `response_format` json_schema support. vLLM ≥ 0.10 deprecates it in favour of `response_format`.
 */
export type JsonSchemaTransport = 'response_format' | 'guided_json';

export interface RemoteEngineConfig {
  /** The API root including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …`; never appears in any error or identity. */
  apiKey?: string;
  serverKind?: RemoteServerKind;
  /** Most requests in flight at once, across all operations of this engine. */
  maxConcurrency?: number;
  /** Per HTTP attempt (not per operation): LLM calls can be slow, so the default is generous. */
  timeoutMs?: number;
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
  /** Texts per /embeddings request. */
  embedBatchSize?: number;
}

export type ResolvedRemoteConfig = Required<Omit<RemoteEngineConfig, 'apiKey'>> & { apiKey: string | undefined };

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
  jsonSchemaTransport: 'response_format',
  embedBatchSize: 64,
} as const satisfies Omit<ResolvedRemoteConfig, 'baseUrl' | 'model' | 'apiKey'>;

/** Fills defaults and rejects settings that cannot work, naming the field. */
export function resolveRemoteConfig(config: RemoteEngineConfig): ResolvedRemoteConfig {
  let url: URL;
  try {
    url = new URL(config.baseUrl);
  } catch {
    throw new DataError(`not a URL: ${JSON.stringify(config.baseUrl)}`, { field: 'baseUrl' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DataError(`must be an http(s) URL, got ${url.protocol}`, { field: 'baseUrl' });
  }
  // fetch refuses URLs with credentials; the key belongs in apiKey, where it is kept out of messages.
  if (url.username || url.password) {
    throw new DataError('must not contain credentials; put the key in apiKey', { field: 'baseUrl' });
  }
  if (!config.model.trim()) throw new DataError('must not be empty', { field: 'model' });

  const resolved: ResolvedRemoteConfig = {
    ...remoteDefaults,
    ...definedOnly(config),
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    model: config.model,
    apiKey: config.apiKey || undefined,
  };
  oneOf(resolved.serverKind, ['openai', 'vllm', 'llama.cpp'], 'serverKind');
  oneOf(resolved.scoring, ['auto', 'echo-logprobs', 'none'], 'scoring');
  oneOf(resolved.jsonSchemaTransport, ['response_format', 'guided_json'], 'jsonSchemaTransport');
  positiveInteger(resolved.maxConcurrency, 'maxConcurrency');
  positiveInteger(resolved.embedBatchSize, 'embedBatchSize');
  positiveInteger(resolved.timeoutMs, 'timeoutMs');
  nonNegativeInteger(resolved.retries, 'retries');
  nonNegativeInteger(resolved.backoffBaseMs, 'backoffBaseMs');
  nonNegativeInteger(resolved.backoffMaxMs, 'backoffMaxMs');
  nonNegativeInteger(resolved.maxRetryAfterMs, 'maxRetryAfterMs');
  return resolved;
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
