import { setTimeout as sleep } from 'node:timers/promises';
import { EngineError } from '../types';
import { LinkedSignal } from './linkedSignal';
import { backoffDelay, parseRetryAfter } from './retryDelay';
import type { Semaphore } from './semaphore';

export interface HttpClientSettings {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  retries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  jitter: boolean;
  maxRetryAfterMs: number;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Override the configured retries and timeout (e.g. for an optional lookup). */
  retries?: number;
  timeoutMs?: number;
}

/** 408, 429 and 5xx are worth another try; 501 (not implemented) will not change. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

/**
 * JSON over HTTP to an OpenAI-compatible server: bearer auth, a timeout per attempt, retries with
 * backoff on transient failures, and errors that never contain the API key.
 *
 * A request holds its concurrency slot through its retries: when the server says "too many
 * requests", freeing the slot during the backoff would only let another request take its place.
 */
export class OpenAiHttpClient {
  constructor(
    private readonly settings: HttpClientSettings,
    private readonly slots: Semaphore,
  ) {}

  getJson(path: string, options: RequestOptions = {}): Promise<unknown> {
    return this.send('GET', path, undefined, options);
  }

  postJson(path: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.send('POST', path, body, options);
  }

  private async send(method: string, path: string, body: unknown, options: RequestOptions): Promise<unknown> {
    const { signal } = options;
    try {
      return await this.slots.run(() => this.attempts(method, path, body, options), signal);
    } catch (error) {
      // An abort while waiting for a slot rejects with the signal's reason, not an EngineError.
      if (!(error instanceof EngineError) && signal?.aborted) {
        throw new EngineError('aborted', `${method} ${this.url(path)}: cancelled`);
      }
      throw error;
    }
  }

  private async attempts(method: string, path: string, body: unknown, options: RequestOptions): Promise<unknown> {
    const { signal } = options;
    const retries = options.retries ?? this.settings.retries;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const where = `${method} ${this.url(path)}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new EngineError('aborted', `${where}: cancelled`);
      const attemptSignal = new LinkedSignal(signal);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attemptSignal.abort();
      }, timeoutMs);

      let response: Response | undefined;
      let text = '';
      let networkError: string | undefined;
      try {
        response = await fetch(this.url(path), { method, headers, body: payload, signal: attemptSignal.signal });
        // Reading the body is part of the attempt: a server can stall mid-response too.
        text = await response.text();
      } catch (error) {
        if (signal?.aborted) throw new EngineError('aborted', `${where}: cancelled`);
        if (timedOut) {
          // Not retried: the server may still be working on it, and a retry would double that work.
          throw new EngineError('timeout', `${where}: no complete response within ${timeoutMs} ms`);
        }
        networkError = this.redact(describeNetworkError(error));
      } finally {
        clearTimeout(timer);
        attemptSignal.dispose();
      }

      if (networkError !== undefined || response === undefined) {
        if (attempt < retries) {
          await this.pause(backoffDelay(attempt, this.settings.backoffBaseMs, this.settings.backoffMaxMs, this.settings.jitter), where, signal);
          continue;
        }
        throw new EngineError('remote-error', `${where}: network error after ${attempt + 1} attempt(s): ${networkError}`);
      }

      if (response.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new EngineError('remote-error', `${where}: response is not JSON: ${this.redact(snippet(text))}`);
        }
      }

      const detail = `HTTP ${response.status}: ${this.redact(serverMessage(text))}`;
      if (isRetryableStatus(response.status) && attempt < retries) {
        const asked = parseRetryAfter(response.headers);
        if (asked !== undefined && asked > this.settings.maxRetryAfterMs) {
          throw new EngineError('remote-error', `${where}: ${detail} (server asks to retry after ${asked} ms, more than maxRetryAfterMs)`);
        }
        const wait =
          asked ?? backoffDelay(attempt, this.settings.backoffBaseMs, this.settings.backoffMaxMs, this.settings.jitter);
        await this.pause(wait, where, signal);
        continue;
      }
      throw new EngineError(codeForStatus(response.status), `${where}: ${detail}${hintForStatus(response.status, attempt)}`);
    }
  }

  private async pause(ms: number, where: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, undefined, { signal });
    } catch {
      throw new EngineError('aborted', `${where}: cancelled`);
    }
  }

  private url(path: string): string {
    return `${this.settings.baseUrl}${path}`;
  }

  /** Servers sometimes quote the key back ("Incorrect API key provided: sk-…"); never pass it on. */
  private redact(text: string): string {
    const key = this.settings.apiKey;
    return key ? text.split(key).join('[redacted]') : text;
  }
}

function codeForStatus(status: number): 'bad-request' | 'remote-error' {
  return status === 400 || status === 422 ? 'bad-request' : 'remote-error';
}

function hintForStatus(status: number, attempt: number): string {
  if (status === 401 || status === 403) return ' (check the API key)';
  if (status === 404) return ' (check that baseUrl ends in /v1 and that the server serves this model)';
  if (isRetryableStatus(status)) return ` (after ${attempt + 1} attempt(s))`;
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
