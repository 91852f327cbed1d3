import { EngineError, type CallReport } from '../types';
import { abortable } from './abortable';
import type { Endpoint, EndpointPool } from './endpointPool';
import { LinkedSignal } from './linkedSignal';
import { parseRetryAfter } from './retryDelay';
import type { RemoteServerKind } from './remoteEngineConfig';
import { reportedPartOf } from './servedRevision';
import { verifyEndpointWeights } from './weightsCheck';
import type { WeightsFingerprint } from './weightsFingerprint';
import { outboundFetch } from '../outbound';

export interface HttpClientSettings {
  apiKey: string | undefined;
  timeoutMs: number;
  retries: number;
  maxRetryAfterMs: number;
  /** The model whose revision `checkRevision` verifies on each endpoint before its first call. */
  model: string;
  /** When set, an endpoint must report this served revision (servedRevision.ts) or it is left out. */
  checkRevision: string | undefined;
  /** When set (with checkRevision), an endpoint must also give these greedy continuations (weightsFingerprint.ts). */
  fingerprint?: WeightsFingerprint | undefined;
  serverKind?: RemoteServerKind;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Override the configured retries and timeout (e.g. for an optional lookup). */
  retries?: number;
  timeoutMs?: number;
  /** Filled in with the endpoint that answered and the attempts made. */
  report?: CallReport | undefined;
  /** A metadata lookup (GET /models): left out of the endpoints' call statistics. */
  metadata?: boolean;
}

/** 408, 429 and 5xx are worth another try; 501 (not implemented) will not change. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

/** How one HTTP attempt ended. Only a cancellation throws; everything else is decided by the caller. */
type Outcome =
  | { kind: 'ok'; json: unknown }
  | { kind: 'not-json'; text: string }
  | { kind: 'http'; status: number; detail: string; retryAfterMs: number | undefined }
  | { kind: 'network'; detail: string }
  | { kind: 'timeout' };

/** Revision checks are a small GET: do not let a hung replica stall a call for long. */
const checkTimeoutMs = 10_000;

/**
 * JSON over HTTP to a pool of OpenAI-compatible replicas (endpointPool.ts): each attempt takes a
 * slot on the least-loaded healthy endpoint; a transient failure (network error, 408/429/5xx) is
 * retried, on another endpoint when one is available and otherwise on the same one once its
 * back-off (Retry-After or exponential) is over. Bearer auth, a timeout per attempt, and errors that
 * never contain the API key.
 */
export class OpenAiHttpClient {
  constructor(
    private readonly settings: HttpClientSettings,
    readonly pool: EndpointPool,
  ) {}

  getJson(path: string, options: RequestOptions = {}): Promise<unknown> {
    return this.send('GET', path, undefined, options);
  }

  postJson(path: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.send('POST', path, body, options);
  }

  private async send(method: string, path: string, body: unknown, options: RequestOptions): Promise<unknown> {
    const { signal, report } = options;
    const retries = options.retries ?? this.settings.retries;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const failedOn = new Set<Endpoint>();

    for (let attempt = 0; ; ) {
      if (signal?.aborted) throw new EngineError('aborted', `${method} ${path}: cancelled`);
      const lease = await this.pool.acquire(signal, failedOn, options.metadata !== true).catch((error: unknown) => {
        if (signal?.aborted || (error instanceof EngineError && error.code === 'aborted')) {
          throw new EngineError('aborted', `${method} ${path}: cancelled`);
        }
        throw error;
      });
      const endpoint = lease.endpoint;
      const where = `${method} ${endpoint.baseUrl}${path}`;
      let outcome: Outcome;
      let latencyMs = 0;
      try {
        if (this.settings.checkRevision !== undefined && !endpoint.checked) {
          await this.checkRevision(endpoint, signal);
          if (endpoint.excluded !== undefined) continue; // not an attempt: the pool now leaves it out
          if (!endpoint.checked) {
            // The check itself failed transiently (the pool marked the endpoint): count it as an attempt.
            if (++attempt > retries) throw new EngineError('remote-error', `${where}: ${endpoint.lastError?.message ?? 'revision check failed'}`);
            failedOn.add(endpoint);
            continue;
          }
        }
        attempt++;
        if (report) report.attempts++;
        const started = performance.now();
        outcome = await this.once(endpoint, method, path, payload, timeoutMs, signal);
        latencyMs = performance.now() - started;
      } finally {
        lease.release();
      }

      switch (outcome.kind) {
        case 'ok':
          if (options.metadata !== true) this.pool.markSuccess(endpoint, latencyMs, usageOf(outcome.json));
          if (report && !report.servedBy.includes(endpoint.baseUrl)) report.servedBy.push(endpoint.baseUrl);
          return outcome.json;
        case 'not-json': {
          const message = `${where}: response is not JSON: ${this.redact(snippet(outcome.text))}`;
          if (options.metadata !== true) this.pool.markError(endpoint, message);
          throw new EngineError('remote-error', message);
        }
        case 'timeout': {
          // Never retried on the same endpoint: it may still be working on it, and a retry there would
          // double that work. Another replica may answer (a hung one never will).
          const message = `${where}: no complete response within ${timeoutMs} ms`;
          this.pool.markFailure(endpoint, message);
          failedOn.add(endpoint);
          if (attempt > retries || !this.pool.hasAlternative(failedOn)) throw new EngineError('timeout', message);
          endpoint.retriedElsewhere++;
          continue;
        }
        case 'network': {
          const detail = this.redact(outcome.detail);
          this.pool.markFailure(endpoint, `network error: ${detail}`);
          if (attempt > retries) throw new EngineError('remote-error', `${where}: network error after ${attempt} attempt(s): ${detail}`);
          this.retryElsewhere(endpoint, failedOn);
          continue;
        }
        case 'http': {
          const detail = `HTTP ${outcome.status}: ${this.redact(outcome.detail)}`;
          if (!isRetryableStatus(outcome.status)) {
            // The request's own fault (or this server's configuration): no back-off, no retry.
            if (options.metadata !== true) this.pool.markError(endpoint, detail);
            throw new EngineError(codeForStatus(outcome.status), `${where}: ${detail}${hintForStatus(outcome.status, attempt)}`);
          }
          const asked = outcome.retryAfterMs;
          this.pool.markFailure(endpoint, detail, asked);
          if (attempt > retries) throw new EngineError('remote-error', `${where}: ${detail}${hintForStatus(outcome.status, attempt)}`);
          if (asked !== undefined && asked > this.settings.maxRetryAfterMs && !this.pool.hasAlternative(new Set([...failedOn, endpoint]))) {
            throw new EngineError('remote-error', `${where}: ${detail} (server asks to retry after ${asked} ms, more than maxRetryAfterMs)`);
          }
          this.retryElsewhere(endpoint, failedOn);
          continue;
        }
      }
    }
  }

  /** Remembers that this call failed on `endpoint`; counts a retry that can go to another one. */
  private retryElsewhere(endpoint: Endpoint, failedOn: Set<Endpoint>): void {
    failedOn.add(endpoint);
    if (this.pool.hasAlternative(failedOn)) endpoint.retriedElsewhere++;
  }

  /** One attempt on one endpoint. Throws only when the caller's signal aborts it. */
  private async once(endpoint: Endpoint, method: string, path: string, payload: string | undefined, timeoutMs: number, signal: AbortSignal | undefined): Promise<Outcome> {
    const url = `${endpoint.baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    const attemptSignal = new LinkedSignal(signal);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attemptSignal.abort();
    }, timeoutMs);
    let response: Response;
    let text: string;
    try {
      // Redirects are followed only to public addresses or the host typed (issue 15).
      response = await outboundFetch(url, { method, headers, body: payload, signal: attemptSignal.signal });
      // Reading the body is part of the attempt: a server can stall mid-response too.
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw new EngineError('aborted', `${method} ${url}: cancelled`);
      if (timedOut) return { kind: 'timeout' };
      return { kind: 'network', detail: describeNetworkError(error) };
    } finally {
      clearTimeout(timer);
      attemptSignal.dispose();
    }
    if (response.ok) {
      try {
        return { kind: 'ok', json: JSON.parse(text) as unknown };
      } catch {
        return { kind: 'not-json', text };
      }
    }
    return { kind: 'http', status: response.status, detail: serverMessage(text), retryAfterMs: parseRetryAfter(response.headers) };
  }

  /**
   * Before an endpoint's first call: does it serve the expected revision of the model? One GET
   * /models, shared by the calls that arrive meanwhile. A mismatch leaves the endpoint out of the
   * pool; a failed lookup marks it like a failed call (it is checked again later).
   */
  private async checkRevision(endpoint: Endpoint, signal: AbortSignal | undefined): Promise<void> {
    endpoint.checking ??= (async () => {
      const where = `GET ${endpoint.baseUrl}/models`;
      const verdict = await verifyEndpointWeights(
        { baseUrl: endpoint.baseUrl, apiKey: this.settings.apiKey, timeoutMs: Math.min(this.settings.timeoutMs, checkTimeoutMs) },
        {
          model: this.settings.model,
          serverKind: this.settings.serverKind ?? 'openai',
          reported: reportedPartOf(this.settings.checkRevision),
          fingerprint: this.settings.fingerprint,
        },
      );
      if (verdict.kind === 'failed') this.pool.markFailure(endpoint, `${where} (revision check): ${this.redact(verdict.reason)}`);
      else if (verdict.kind === 'different') this.pool.exclude(endpoint, `${where}: ${this.redact(verdict.reason)}`);
      else endpoint.checked = true;
    })().finally(() => {
      endpoint.checking = undefined;
    });
    await abortable(endpoint.checking, signal, `GET ${endpoint.baseUrl}/models`);
  }

  /** Servers sometimes quote the key back ("Incorrect API key provided: sk-…"); never pass it on. */
  private redact(text: string): string {
    const key = this.settings.apiKey;
    return key ? text.split(key).join('[redacted]') : text;
  }
}

/** Token counts from an OpenAI `usage` object, when the response has one (per-endpoint throughput). */
function usageOf(json: unknown): { prompt?: number; completion?: number } {
  const usage = (json as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } } | null)?.usage;
  if (!usage || typeof usage !== 'object') return {};
  return {
    ...(typeof usage.prompt_tokens === 'number' ? { prompt: usage.prompt_tokens } : {}),
    ...(typeof usage.completion_tokens === 'number' ? { completion: usage.completion_tokens } : {}),
  };
}

function codeForStatus(status: number): 'bad-request' | 'remote-error' {
  return status === 400 || status === 422 ? 'bad-request' : 'remote-error';
}

function hintForStatus(status: number, attempts: number): string {
  if (status === 401 || status === 403) return ' (check the API key)';
  if (status === 404) return ' (check that baseUrl ends in /v1 and that the server serves this model)';
  if (isRetryableStatus(status)) return ` (after ${attempts} attempt(s))`;
  return '';
}

/** The human part of an error body: OpenAI `{error:{message}}`, vLLM `{message}`, FastAPI `{detail}`. */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error;
    if (error && typeof error === 'object' && typeof (error as Record<string, unknown>).message === 'string') {
      return snippet((error as Record<string, unknown>).message as string);
    }
    if (typeof error === 'string') return snippet(error);
    if (typeof body.message === 'string') return snippet(body.message);
    if (body.detail !== undefined) return snippet(typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail));
  } catch {
    // not JSON: fall through to the raw text
  }
  return snippet(text) || '(empty body)';
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** undici's "fetch failed" hides the useful part (ECONNREFUSED, ENOTFOUND, …) in `cause`. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return `${error.message} (${cause.code})`;
  if (cause && typeof cause.message === 'string') return `${error.message} (${cause.message})`;
  return error.message;
}
