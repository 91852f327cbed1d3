import { EngineError, type CallReport } from '../types';
import { abortable } from './abortable';
import { BodyTooLarge, exchange, type Exchange } from './httpExchange';
import type { Endpoint, EndpointLease, EndpointPool } from './endpointPool';
import { LinkedSignal } from './linkedSignal';
import { parseRetryAfter } from './retryDelay';
import type { RemoteServerKind } from './remoteEngineConfig';
import { reportedPartOf } from './servedRevision';
import { verifyEndpointWeights } from './weightsCheck';
import type { WeightsFingerprint } from './weightsFingerprint';

export interface HttpClientSettings {
  apiKey: string | undefined;
  timeoutMs: number;
  retries: number;
  maxRetryAfterMs: number;
  /** The model whose revision `checkRevision` verifies on each endpoint before it takes calls. */
  model: string;
  /** When set, an endpoint must report this served revision (servedRevision.ts) or it is left out. */
  checkRevision: string | undefined;
  /** When set (with checkRevision), an endpoint must also give these greedy continuations (weightsFingerprint.ts). */
  fingerprint?: WeightsFingerprint | undefined;
  /** Which server family: the OpenAI API answers a dated snapshot of the model asked for. */
  serverKind: RemoteServerKind;
  /** The largest response body read (bytes). */
  maxResponseBytes: number;
  /** A call slower than this × the pool's median latency is hedged on an idle endpoint (0: never). */
  hedgeFactor: number;
  /** …and never before this many ms. */
  hedgeMinMs: number;
  /** An endpoint's weights are checked again before its next call after this long. */
  recheckAfterMs: number;
}

export interface RequestOptions<T = unknown> {
  signal?: AbortSignal | undefined;
  /** Override the configured retries and timeout (e.g. for an optional lookup). */
  retries?: number;
  timeoutMs?: number;
  /** Filled in with the endpoint that answered and the attempts made. */
  report?: CallReport | undefined;
  /** A metadata lookup (GET /models): left out of the endpoints' call statistics, never hedged. */
  metadata?: boolean;
  /**
   * Reads the answer into its result, throwing an EngineError when it is not of the expected
   * shape. Run on each attempt's answer as it arrives: a bad answer is that endpoint's failure
   * and the call goes on to another endpoint.
   */
  read?: (json: unknown) => T;
}

/** 408, 429 and 5xx are worth another try; 501 (not implemented) will not change. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

/** How one HTTP attempt ended. Only a cancellation throws; everything else is decided by the caller. */
type Outcome =
  | { kind: 'ok'; json: unknown; value: unknown }
  | { kind: 'bad-answer'; detail: string }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'http'; status: number; detail: string; retryAfterMs: number | undefined }
  | { kind: 'network'; detail: string }
  | { kind: 'timeout' }
  /** The endpoint failed its weights check: another endpoint takes the call (not an attempt). */
  | { kind: 'excluded' }
  /** The weights check could not be made (the endpoint is marked as failing). */
  | { kind: 'unchecked'; detail: string };

/** How the call goes on after an attempt that did not answer. */
interface Judged {
  error: EngineError;
  /** Worth another attempt (elsewhere, or here after the back-off). */
  retryable: boolean;
  /** Counted against the call's retries. */
  counted: boolean;
}

/** Revision checks are a small GET: do not let a hung replica stall a call for long. */
const checkTimeoutMs = 10_000;
/** Successful attempts the pool must have seen before it hedges (a median of fewer says little). */
const hedgeMinSamples = 4;

/**
 * JSON over HTTP to a pool of OpenAI-compatible replicas (endpointPool.ts): each attempt takes a
 * slot on the least-loaded healthy endpoint; a transient failure (network error, 408/429/5xx, an
 * answer that is not JSON, too large, of the wrong shape or from another model) is retried, on
 * another endpoint when one is available and otherwise on the same one once its back-off
 * (Retry-After or exponential) is over. An endpoint takes calls only once its weights check
 * passed (again after a failure). A call much slower than the pool's median is hedged on an idle
 * endpoint. Bearer auth, a timeout per attempt, a cap on response size, and errors that never
 * contain the API key.
 */
export class OpenAiHttpClient {
  constructor(
    private readonly settings: HttpClientSettings,
    readonly pool: EndpointPool,
  ) {}

  getJson(path: string, options: RequestOptions = {}): Promise<unknown> {
    return this.send('GET', path, undefined, options);
  }

  postJson<T = unknown>(path: string, body: unknown, options: RequestOptions<T> = {}): Promise<T> {
    return this.send('POST', path, body, options);
  }

  private async send<T>(method: string, path: string, body: unknown, options: RequestOptions<T>): Promise<T> {
    const { signal, report } = options;
    const retries = options.retries ?? this.settings.retries;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const asked = body !== null && typeof body === 'object' ? (body as { model?: unknown }).model : undefined;
    const call: CallContext = {
      method,
      path,
      payload,
      timeoutMs,
      signal,
      report,
      metadata: options.metadata === true,
      read: options.read as ((json: unknown) => unknown) | undefined,
      askedModel: typeof asked === 'string' ? asked : undefined,
      attempts: 0,
      failedOn: new Set<Endpoint>(),
    };

    for (;;) {
      if (signal?.aborted) throw new EngineError('aborted', `${method} ${path}: cancelled`);
      const lease = await this.pool.acquire(signal, call.failedOn, !call.metadata).catch((error: unknown) => {
        if (signal?.aborted || (error instanceof EngineError && error.code === 'aborted')) {
          throw new EngineError('aborted', `${method} ${path}: cancelled`);
        }
        throw error;
      });
      const round = await this.attemptRound(lease, call);
      if ('value' in round) return round.value as T;
      // Every attempt of this round failed in a way worth retrying.
      const last = round.failures.at(-1)!;
      if (call.attempts > retries && round.failures.some((f) => f.counted)) throw last.error;
      if (round.failures.every((f) => f.error.code === 'timeout') && !this.pool.hasAlternative(call.failedOn)) throw last.error;
    }
  }

  /**
   * One attempt on `first`, and — when it is much slower than the pool's recent median and an
   * endpoint sits idle — one hedge on another endpoint. Resolves with the first answer (the other
   * attempt is aborted) or, when every attempt failed retryably, with their failures; rejects on a
   * failure not worth retrying and on cancellation.
   */
  private attemptRound(first: EndpointLease, call: CallContext): Promise<{ value: unknown } | { failures: Judged[] }> {
    return new Promise((resolve, reject) => {
      const running = new Set<{ endpoint: Endpoint; cancel: LinkedSignal }>();
      const failures: Judged[] = [];
      let settled = false;
      let hedgeTimer: NodeJS.Timeout | undefined;
      const roundStarted = performance.now();
      const finish = (): void => {
        settled = true;
        if (hedgeTimer) clearTimeout(hedgeTimer);
        for (const r of running) r.cancel.abort();
      };
      const start = (lease: EndpointLease): void => {
        const entry = { endpoint: lease.endpoint, cancel: new LinkedSignal(call.signal) };
        running.add(entry);
        this.attemptOn(lease.endpoint, call, entry.cancel)
          .finally(() => {
            running.delete(entry);
            lease.release();
            entry.cancel.dispose();
          })
          .then(
            (done) => {
              if (settled) return; // the other attempt answered first
              if (done.outcome.kind === 'ok') {
                // A hedge answered while the first attempt still ran: that endpoint is far slower than
                // its peers (or hung): it backs off like a failure, so new calls go elsewhere meanwhile.
                const outrun = lease !== first ? [...running].filter((r) => r.endpoint === first.endpoint) : [];
                finish();
                for (const r of outrun) {
                  this.pool.markFailure(r.endpoint, `far slower than the pool: a hedge on ${lease.endpoint.baseUrl} answered after ${Math.round(performance.now() - roundStarted)} ms, while this endpoint had not`);
                }
                if (!call.metadata) this.pool.markSuccess(lease.endpoint, done.latencyMs, usageOf(done.outcome.json));
                if (call.report && !call.report.servedBy.includes(lease.endpoint.baseUrl)) call.report.servedBy.push(lease.endpoint.baseUrl);
                // Trusted only once a weights check started after it passes (issue 35 item 1).
                if (call.report && this.settings.checkRevision !== undefined && !call.metadata) lease.endpoint.unconfirmed.push(call.report);
                resolve({ value: done.outcome.value });
                return;
              }
              const judged = this.judge(lease.endpoint, done.outcome, call);
              if (!judged.retryable) {
                finish();
                reject(judged.error);
                return;
              }
              failures.push(judged);
              if (running.size === 0) {
                finish();
                resolve({ failures });
              }
            },
            (error: unknown) => {
              if (settled) return;
              finish();
              reject(error instanceof EngineError ? error : new EngineError('aborted', `${call.method} ${call.path}: cancelled`));
            },
          );
      };
      const hedgeCheck = (): void => {
        hedgeTimer = undefined;
        if (settled || running.size !== 1) return;
        const due = this.hedgeAfterMs();
        const elapsed = performance.now() - roundStarted;
        if (due !== undefined && elapsed >= due) {
          const avoid = new Set<Endpoint>([...call.failedOn, ...[...running].map((r) => r.endpoint)]);
          const lease = this.pool.tryAcquireIdle(avoid);
          if (lease) {
            lease.endpoint.hedged++;
            start(lease);
            return; // one hedge per round
          }
        }
        // Not yet slow enough, no median yet, or no idle endpoint: look again a little later.
        const wait = due !== undefined && elapsed < due ? due - elapsed : Math.max(50, this.settings.hedgeMinMs / 4);
        hedgeTimer = setTimeout(hedgeCheck, wait);
        hedgeTimer.unref?.();
      };
      start(first);
      if (!call.metadata && this.settings.hedgeFactor > 0 && this.pool.endpoints.length > 1 && !settled) {
        hedgeTimer = setTimeout(hedgeCheck, this.hedgeAfterMs() ?? this.settings.hedgeMinMs);
        hedgeTimer.unref?.();
      }
    });
  }

  /** How long a call may take before it is hedged: factor × the pool's recent median, at least hedgeMinMs. */
  private hedgeAfterMs(): number | undefined {
    const median = this.pool.medianLatencyMs(hedgeMinSamples);
    return median === undefined ? undefined : Math.max(this.settings.hedgeMinMs, this.settings.hedgeFactor * median);
  }

  /**
   * One attempt on one endpoint: its weights check when due, the request, and the answer checked
   * as it arrives. Throws only when `signal` aborts it (the caller's, or a hedge that lost).
   */
  private async attemptOn(endpoint: Endpoint, call: CallContext, cancel: LinkedSignal): Promise<{ outcome: Outcome; latencyMs: number }> {
    if (this.settings.checkRevision !== undefined && this.needsCheck(endpoint)) {
      await this.checkRevision(endpoint, cancel.signal);
      if (endpoint.excluded !== undefined) return { outcome: { kind: 'excluded' }, latencyMs: 0 };
      if (endpoint.checkedAt === undefined) {
        call.attempts++;
        return { outcome: { kind: 'unchecked', detail: endpoint.lastError?.message ?? 'weights check failed' }, latencyMs: 0 };
      }
    }
    call.attempts++;
    if (call.report) call.report.attempts++;
    const started = performance.now();
    const outcome = await this.once(endpoint, call.method, call.path, call.payload, call.timeoutMs, cancel);
    const latencyMs = performance.now() - started;
    if (outcome.kind !== 'ok') return { outcome, latencyMs };
    // Found serving other weights while this request ran: its answer is not used; another endpoint takes the call.
    if (endpoint.excluded !== undefined && this.settings.checkRevision !== undefined) return { outcome: { kind: 'excluded' }, latencyMs };
    const bad = this.checkAnswer(outcome.json, call);
    return { outcome: bad ?? outcome, latencyMs };
  }

  /** The answer's own checks: the model it names, then the caller's reader (its shape). */
  private checkAnswer(json: unknown, call: CallContext): Outcome | undefined {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return { kind: 'bad-answer', detail: 'the answer is not a JSON object' };
    const named = (json as { model?: unknown }).model;
    if (call.askedModel !== undefined && typeof named === 'string' && !sameModel(call.askedModel, named, this.settings.serverKind)) {
      return { kind: 'bad-answer', detail: `answered by model ${JSON.stringify(named)}, not the ${JSON.stringify(call.askedModel)} asked for` };
    }
    if (!call.read) return { kind: 'ok', json, value: json };
    try {
      return { kind: 'ok', json, value: call.read(json) };
    } catch (error) {
      if (error instanceof EngineError && error.code !== 'remote-error') throw error; // e.g. 'unsupported': not this endpoint's fault
      return { kind: 'bad-answer', detail: this.redact((error as Error).message) };
    }
  }

  private needsCheck(endpoint: Endpoint): boolean {
    return endpoint.checkedAt === undefined || this.pool.clock() - endpoint.checkedAt >= this.settings.recheckAfterMs;
  }

  /** What a failed attempt means for its endpoint and for the call. */
  private judge(endpoint: Endpoint, outcome: Exclude<Outcome, { kind: 'ok' }>, call: CallContext): Judged {
    const where = `${call.method} ${endpoint.baseUrl}${call.path}`;
    const failure = (message: string, code: EngineError['code'] = 'remote-error', retryAfterMs?: number): Judged => {
      this.pool.markFailure(endpoint, message, retryAfterMs);
      this.retryElsewhere(endpoint, call.failedOn);
      return { error: new EngineError(code, `${where}: ${message}`), retryable: true, counted: true };
    };
    switch (outcome.kind) {
      case 'excluded':
        return { error: new EngineError('remote-error', `${where}: ${endpoint.excluded ?? 'left out of the pool'}`), retryable: true, counted: false };
      case 'unchecked':
        call.failedOn.add(endpoint);
        return { error: new EngineError('remote-error', `${where}: ${outcome.detail}`), retryable: true, counted: true };
      case 'bad-answer':
        return failure(`unusable answer: ${outcome.detail}`);
      case 'too-large':
        return failure(`response larger than maxResponseBytes (${outcome.bytes} bytes); the rest was not read`);
      case 'timeout':
        // Never retried on the same endpoint: it may still be working on it, and a retry there would
        // double that work. Another replica may answer (a hung one never will).
        return failure(`no complete response within ${call.timeoutMs} ms`, 'timeout');
      case 'network': {
        const judged = failure(`network error: ${this.redact(outcome.detail)}`);
        judged.error = new EngineError('remote-error', `${where}: network error after ${call.attempts} attempt(s): ${this.redact(outcome.detail)}`);
        return judged;
      }
      case 'http': {
        const detail = `HTTP ${outcome.status}: ${this.redact(outcome.detail)}`;
        if (!isRetryableStatus(outcome.status)) {
          // The request's own fault (or this server's configuration): no back-off, no retry.
          if (!call.metadata) this.pool.markError(endpoint, detail);
          return { error: new EngineError(codeForStatus(outcome.status), `${where}: ${detail}${hintForStatus(outcome.status, call.attempts)}`), retryable: false, counted: true };
        }
        const asked = outcome.retryAfterMs;
        this.pool.markFailure(endpoint, detail, asked);
        const error = new EngineError('remote-error', `${where}: ${detail}${hintForStatus(outcome.status, call.attempts)}`);
        if (asked !== undefined && asked > this.settings.maxRetryAfterMs && !this.pool.hasAlternative(new Set([...call.failedOn, endpoint]))) {
          return { error: new EngineError('remote-error', `${where}: ${detail} (server asks to retry after ${asked} ms, more than maxRetryAfterMs)`), retryable: false, counted: true };
        }
        this.retryElsewhere(endpoint, call.failedOn);
        return { error, retryable: true, counted: true };
      }
    }
  }

  /** Remembers that this call failed on `endpoint`; counts a retry that can go to another one. */
  private retryElsewhere(endpoint: Endpoint, failedOn: Set<Endpoint>): void {
    failedOn.add(endpoint);
    if (this.pool.hasAlternative(failedOn)) endpoint.retriedElsewhere++;
  }

  /**
   * One attempt on one endpoint. `cancel`: the attempt's own signal (the timeout aborts it too).
   * Throws only when something other than the timeout aborts it (the caller, a hedge that won).
   */
  private async once(endpoint: Endpoint, method: string, path: string, payload: string | undefined, timeoutMs: number, cancel: LinkedSignal): Promise<Outcome> {
    const url = `${endpoint.baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cancel.abort();
    }, timeoutMs);
    let response: Exchange;
    try {
      // Reading the body is part of the attempt: a server can stall or trickle mid-response too.
      response = await exchange(url, { method, headers, body: payload, signal: cancel.signal }, this.settings.maxResponseBytes);
    } catch (error) {
      if (timedOut) return { kind: 'timeout' };
      if (cancel.signal.aborted) throw new EngineError('aborted', `${method} ${url}: cancelled`);
      if (error instanceof BodyTooLarge) return { kind: 'too-large', bytes: error.bytes };
      return { kind: 'network', detail: describeNetworkError(error) };
    } finally {
      clearTimeout(timer);
    }
    const text = response.text;
    if (response.status >= 200 && response.status < 300) {
      try {
        return { kind: 'ok', json: JSON.parse(text) as unknown, value: undefined };
      } catch {
        return { kind: 'bad-answer', detail: `response is not JSON: ${this.redact(snippet(text))}` };
      }
    }
    return { kind: 'http', status: response.status, detail: serverMessage(text), retryAfterMs: parseRetryAfter(response.headers) };
  }

  /**
   * Is the endpoint serving the expected revision of the model? Before its first call, after a
   * failure and every recheckAfterMs: one GET /models, shared by the calls that arrive meanwhile.
   * A mismatch leaves the endpoint out of the pool; a failed lookup marks it like a failed call
   * (it is checked again later).
   */
  private async checkRevision(endpoint: Endpoint, signal: AbortSignal | undefined): Promise<void> {
    endpoint.checking ??= (async () => {
      const where = `GET ${endpoint.baseUrl}/models`;
      // The answers this check vouches for: those received before it started.
      const covered = endpoint.unconfirmed.length;
      // The reported revision and, where recorded, the weights fingerprint (weightsCheck.ts).
      const verdict = await verifyEndpointWeights(
        { baseUrl: endpoint.baseUrl, apiKey: this.settings.apiKey, timeoutMs: Math.min(this.settings.timeoutMs, checkTimeoutMs), signal: this.pool.closedSignal },
        {
          model: this.settings.model,
          serverKind: this.settings.serverKind,
          reported: reportedPartOf(this.settings.checkRevision),
          fingerprint: this.settings.fingerprint,
        },
      );
      if (verdict.kind === 'failed') this.pool.markFailure(endpoint, `${where} (weights check): ${this.redact(verdict.reason)}`);
      else if (verdict.kind === 'different') {
        this.pool.exclude(endpoint, `${where}: ${this.redact(verdict.reason)}`);
        // Every answer since its last passing check may come from the other weights.
        this.distrust(endpoint);
      } else {
        endpoint.checkedAt = this.pool.clock();
        endpoint.unconfirmed.splice(0, covered);
      }
    })().finally(() => {
      endpoint.checking = undefined;
    });
    await abortable(endpoint.checking, signal, `GET ${endpoint.baseUrl}/models`);
  }

  /**
   * The end of a run (issue 35 item 1): every endpoint with answers not yet vouched for by a passing
   * weights check is checked now. Answers of an endpoint found serving other weights, or that cannot
   * be checked after `attempts` tries, are distrusted (their reports marked, their callers told).
   * Returns how many calls were distrusted.
   */
  async confirmAnswers(signal: AbortSignal | undefined, attempts = 4): Promise<number> {
    if (this.settings.checkRevision === undefined) return 0;
    const counts = await Promise.all(
      this.pool.endpoints.map(async (endpoint) => {
        for (let attempt = 0; endpoint.unconfirmed.length > 0 && endpoint.excluded === undefined; attempt++) {
          if (attempt >= attempts) return this.distrust(endpoint);
          if (attempt > 0) await abortable(new Promise((r) => setTimeout(r, Math.min(this.settings.recheckAfterMs, 250 * 2 ** attempt))), signal, 'the final weights check');
          await this.checkRevision(endpoint, signal);
        }
        return 0;
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Marks every unconfirmed answer of `endpoint` as not to be kept; returns how many calls. */
  private distrust(endpoint: Endpoint): number {
    const reports = new Set(endpoint.unconfirmed.splice(0));
    for (const report of reports) {
      if (report.distrusted) continue;
      report.distrusted = true;
      report.onDistrust?.();
    }
    return reports.size;
  }

  /** Servers sometimes quote the key back ("Incorrect API key provided: sk-…"); never pass it on. */
  private redact(text: string): string {
    const key = this.settings.apiKey;
    return key ? text.split(key).join('[redacted]') : text;
  }
}

interface CallContext {
  method: string;
  path: string;
  payload: string | undefined;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  report: CallReport | undefined;
  metadata: boolean;
  read: ((json: unknown) => unknown) | undefined;
  /** The `model` of the request body: an answer naming another model is refused. */
  askedModel: string | undefined;
  /** HTTP attempts made (and weights checks that failed), hedges included. */
  attempts: number;
  /** Endpoints this call failed on: others are preferred. */
  failedOn: Set<Endpoint>;
}

/**
 * Whether an answer naming `named` is from the model asked for: the same name, or — on the
 * OpenAI API, which answers with the dated snapshot an alias points to — `asked-YYYY-MM-DD`.
 */
export function sameModel(asked: string, named: string, serverKind: RemoteServerKind): boolean {
  if (named === asked) return true;
  return serverKind === 'openai' && named.startsWith(`${asked}-`) && /^\d{4}-\d{2}-\d{2}$/.test(named.slice(asked.length + 1));
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
