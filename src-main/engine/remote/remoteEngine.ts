import { setMaxListeners } from 'node:events';
import { checkEmbedRequest, checkGenerateRequest, checkScoreRequest, checkTokenizeRequest } from '../requestChecks';
import {
  EngineError,
  type CallReport,
  type EmbedRequest,
  type EmbedResult,
  type Engine,
  type EngineIdentity,
  type GenerateRequest,
  type GenerateResult,
  type ScoreRequest,
  type ScoreResult,
  type TokenizeRequest,
  type TokenizeResult,
} from '../types';
import { allOrAbort } from './abortable';
import type { BatchSettings } from './batchCodec';
import { readEmbeddingsResponse, readGenerateResponse } from './responseReaders';
import { EchoScorer } from './echoScorer';
import { checkConstrainedOutput } from './constraintCheck';
import { buildGenerateCall, trimsAnswer } from './generateRequestBody';
import { LinkedSignal } from './linkedSignal';
import { EndpointPool, type EndpointStats } from './endpointPool';
import { OpenAiHttpClient } from './openAiHttpClient';
import { modelsResponse, parseResponse } from './openAiResponses';
import { remoteModelKey, resolveRemoteConfig, type RemoteEngineConfig, type ResolvedRemoteConfig } from './remoteEngineConfig';
import { servedRevision } from './servedRevision';
import { ServerTokenizer, type TokenEstimator } from './serverTokenize';
import { CALIBRATION_USER, calibrate, calibrationFor, SAMPLE_BYTES, type PromptCounter } from './tokenCalibration';

/** /models is optional metadata: do not let a hung server stall identity() for long. */
const modelsLookupTimeoutMs = 10_000;

/**
 * An `Engine` backed by OpenAI-compatible HTTP servers (vLLM, llama.cpp's server, the OpenAI API,
 * …): one base URL, or a pool of replicas serving the same model (endpointPool.ts), each with its
 * own concurrency limit, shared by all operations of the engine.
 *
 * Identity: the served model — its name and recorded revision (`remoteModelKey`) plus the
 * settings that change how requests are spelled — never a URL, so replicas share cache entries.
 * Which endpoint computed a call goes into the caller's `CallReport`, not into the result.
 */
export class RemoteEngine implements Engine {
  private readonly config: ResolvedRemoteConfig;
  private readonly http: OpenAiHttpClient;
  private readonly scorer: EchoScorer;
  /** Aborted by close(): cancels everything in flight. */
  private readonly lifetime = new AbortController();
  private identityFound: EngineIdentity | undefined;
  /** The provisional identity after a failed GET /models, and when to ask again. */
  private identityFailed: { identity: EngineIdentity; failures: number; retryAt: number } | undefined;
  private identityLookup: Promise<EngineIdentity> | undefined;
  private tokenizer: ServerTokenizer | undefined;
  /** The llama.cpp server answered 404/501 to /tokenize: prompts go as text. */
  private noTokenizeEndpoint = false;

  constructor(config: RemoteEngineConfig) {
    this.config = resolveRemoteConfig(config);
    // Every call in flight listens on the engine's lifetime: hundreds at once are expected, not a leak.
    setMaxListeners(0, this.lifetime.signal);
    const pool = new EndpointPool(this.config.endpoints, this.config);
    this.http = new OpenAiHttpClient(
      { ...this.config, checkRevision: this.config.checkRevision ? this.config.revision : undefined, fingerprint: this.config.checkRevision ? this.config.fingerprint : undefined },
      pool,
    );
    this.scorer = new EchoScorer(this.http, this.config.model, this.config.scoring, this.lifetime.signal);
  }

  /**
   * The served model's identity. Its cache key (`modelKey`, from the recorded revision or
   * fingerprint, and the request settings) needs no server; `versions` (for manifests) come from
   * GET /models. When that lookup fails (network, timeout, 5xx, an unreadable answer) the identity
   * is provisional: `provisional` says why, `versions` says it is incomplete and still names the
   * recorded revision, and it is never kept for the engine's life. The next need asks again in the
   * background, no more often than the back-off allows (identityRetryMs, doubling to
   * identityRetryMaxMs), so calls never wait on a failing server more than once. A server without
   * the endpoint (HTTP 404) or not listing the model is an answer, kept as before.
   */
  async identity(): Promise<EngineIdentity> {
    if (this.identityFound) return this.identityFound;
    const failed = this.identityFailed;
    if (failed) {
      if (Date.now() >= failed.retryAt) void this.lookUpIdentity().catch(() => undefined);
      return failed.identity;
    }
    return this.lookUpIdentity();
  }

  /** The identity without GET /models: the key's parts. */
  private baseIdentity(): EngineIdentity {
    return {
      kind: 'remote',
      modelKey: remoteModelKey(this.config.model, this.config.revision),
      modelName: this.config.model,
      outputAffectingSettings: {
        serverKind: this.config.serverKind,
        jsonSchemaTransport: this.config.jsonSchemaTransport,
        // Only when it differs, so the keys of models without it stay as they were.
        ...(this.config.chatJsonSchemaTransport !== undefined && this.config.chatJsonSchemaTransport !== this.config.jsonSchemaTransport ? { chatJsonSchemaTransport: this.config.chatJsonSchemaTransport } : {}),
      },
      versions: {},
    };
  }

  /** One GET /models at a time; a failure becomes the provisional identity until the next retry. */
  private lookUpIdentity(): Promise<EngineIdentity> {
    this.identityLookup ??= (async () => {
      const identity = this.baseIdentity();
      const found = await this.modelVersions();
      if (found.ok) {
        this.identityFound = { ...identity, versions: found.versions };
        this.identityFailed = undefined;
        return this.identityFound;
      }
      const failures = (this.identityFailed?.failures ?? 0) + 1;
      const wait = Math.min(this.config.identityRetryMaxMs, this.config.identityRetryMs * 2 ** (failures - 1));
      const note = `incomplete: GET /models failed (${found.reason}) at ${new Date().toISOString()}; asked again when next needed`;
      const provisional: EngineIdentity = {
        ...identity,
        versions: { 'remote.identity': note, ...(this.config.revision !== undefined ? { 'remote.revision': this.config.revision } : {}) },
        provisional: `GET /models failed: ${found.reason}`,
      };
      this.identityFailed = { identity: provisional, failures, retryAt: Date.now() + wait };
      return provisional;
    })().finally(() => (this.identityLookup = undefined));
    return this.identityLookup;
  }

  /** What an OpenAI-Batch file of this engine's calls needs (batchCodec.ts): the served model and request dialect. */
  batchSettings(): BatchSettings {
    return {
      model: this.config.model,
      serverKind: this.config.serverKind,
      jsonSchemaTransport: this.config.jsonSchemaTransport,
      chatJsonSchemaTransport: this.config.chatJsonSchemaTransport,
      refusals: this.config.refusals,
      embedBatchSize: this.config.embedBatchSize,
    };
  }

  /** Requests the engine can have in flight at once: the sum of its endpoints' limits (for a work queue's bound). */
  capacity(): number {
    return this.http.pool.capacity();
  }

  /**
   * Before its next call, each endpoint in the pool proves its weights again (servedRevision.ts,
   * weightsFingerprint.ts): called when a run starts, so a server restarted with other weights
   * between runs is caught. Endpoints already left out stay out.
   */
  recheckWeights(): void {
    for (const endpoint of this.http.pool.endpoints) if (endpoint.excluded === undefined) endpoint.checkedAt = undefined;
  }

  /**
   * Before a run is marked succeeded (issue 35 item 1): every endpoint that answered since its last
   * passing weights check is checked again; the answers of one that fails are distrusted (their
   * callers drop them). Returns how many calls were distrusted.
   */
  confirmAnswers(signal?: AbortSignal): Promise<number> {
    return this.http.confirmAnswers(signal ?? this.lifetime.signal);
  }

  /** Per-endpoint load, health, throughput and errors since the engine started. */
  endpointStats(): EndpointStats[] {
    return this.http.pool.stats();
  }

  /**
   * On llama.cpp's server a plain prompt goes as the server's token ids (POST /tokenize with the
   * beginning token, special-token text kept as text), the sequence the local engine evaluates for
   * the same GGUF; a server without /tokenize gets the text. A constrained answer that breaks its
   * constraint fails the call (constraintCheck.ts).
   */
  async generate(request: GenerateRequest, signal?: AbortSignal, report?: CallReport): Promise<GenerateResult> {
    checkGenerateRequest(request);
    buildGenerateCall(request, this.config); // refuses what this server cannot express before any request
    const result = await this.guarded(signal, async (s) => {
      const promptTokens = request.prompt !== undefined ? await this.promptTokenIds(request.prompt, s) : undefined;
      const call = buildGenerateCall(request, this.config, { promptTokens });
      // Read as each answer arrives: one of the wrong shape is that endpoint's failure, retried elsewhere.
      const trim = trimsAnswer(request, call.body);
      return this.http.postJson(call.path, call.body, { signal: s, report, read: (json) => readGenerateResponse(call.path, json, { stop: request.stop }, undefined, trim) });
    });
    // A constraint the server ignored is the server's setting, not a passing fault: the call fails, naming it.
    checkConstrainedOutput(result.text, result.finishReason, request, { model: this.config.model, transport: request.grammar !== undefined ? 'grammar' : request.messages !== undefined ? (this.config.chatJsonSchemaTransport ?? this.config.jsonSchemaTransport) : this.config.jsonSchemaTransport });
    return result;
  }

  /** llama.cpp only: the prompt's token ids as the server's tokenizer makes them, or undefined (send text). */
  private async promptTokenIds(prompt: string, signal: AbortSignal): Promise<number[] | undefined> {
    if (this.config.serverKind !== 'llama.cpp' || this.noTokenizeEndpoint) return undefined;
    try {
      const json = (await this.http.postJson('/../tokenize', { content: prompt, add_special: true, parse_special: false }, { signal })) as { tokens?: unknown };
      const ids = json?.tokens;
      if (!Array.isArray(ids) || !ids.every((t) => Number.isInteger(t) && (t as number) >= 0)) {
        throw new EngineError('remote-error', 'POST /tokenize: the response has no array of token ids');
      }
      return ids as number[];
    } catch (err) {
      if (err instanceof EngineError && /HTTP (404|501)/.test(err.message)) {
        this.noTokenizeEndpoint = true;
        return undefined;
      }
      throw err;
    }
  }

  /** One request per continuation, all within the engine's concurrency bound. */
  async score(request: ScoreRequest, signal?: AbortSignal, report?: CallReport): Promise<ScoreResult> {
    checkScoreRequest(request);
    const scores = await this.guarded(signal, async (s) => {
      await this.scorer.ready(s);
      return allOrAbort(request.continuations, s, (continuation, itemSignal) => this.scorer.scoreOne(request.prompt, continuation, itemSignal, report));
    });
    return {
      // Tokens wholly inside the prompt for every continuation (a straddling token is not).
      promptTokens: Math.min(...scores.map((s) => s.promptTokens)),
      scores: scores.map(({ tokens, logprobs, sum, mean }) => ({ tokens, logprobs, sum, mean })),
    };
  }

  async embed(request: EmbedRequest, signal?: AbortSignal, report?: CallReport): Promise<EmbedResult> {
    checkEmbedRequest(request);
    const size = this.config.embedBatchSize;
    const batches: string[][] = [];
    for (let at = 0; at < request.texts.length; at += size) batches.push(request.texts.slice(at, at + size));
    const results = await this.guarded(signal, (s) => allOrAbort(batches, s, (batch, itemSignal) => this.embedBatch(batch, itemSignal, report)));
    const vectors = results.flat();
    const dimensions = vectors[0]!.length;
    if (vectors.some((v) => v.length !== dimensions)) {
      throw new EngineError('remote-error', 'POST /embeddings: vectors of different lengths in one response');
    }
    return { vectors, dimensions };
  }

  /** The server's tokenizer (llama.cpp, vLLM: POST /tokenize), else the stated estimate; see serverTokenize.ts. */
  async tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    checkTokenizeRequest(request);
    const tokenizer = (this.tokenizer ??= new ServerTokenizer(
      this.config.serverKind,
      this.config.model,
      (path, body, s) => this.http.postJson(path, body, { signal: s }),
      this.estimator(),
    ));
    const result = await this.guarded(signal, (s) => tokenizer.tokenize(request, s));
    const contextSize = this.config.contextSize;
    return contextSize !== undefined && result.contextSize === undefined ? { ...result, contextSize } : result;
  }

  /**
   * How this engine estimates tokens where its server cannot tokenize (tokenCalibration.ts): the
   * model's costs measured through its generation routes once per endpoints + model + revision in
   * this process, under the engine's lifetime (not one caller's signal: every caller waiting on it
   * shares it); then each request's own sampled texts counted through the same route (memoized).
   */
  private estimator(): TokenEstimator {
    const { model, revision, serverKind } = this.config;
    const key = JSON.stringify([serverKind, model, revision ?? null, this.config.endpoints.map((e) => e.baseUrl).sort()]);
    const count: PromptCounter = async (route, text, signal) => {
      const body = { model, ...(route === 'completions' ? { prompt: text } : { messages: [{ role: 'user', content: text }] }), max_tokens: 1, temperature: 0, user: CALIBRATION_USER };
      const path = route === 'completions' ? '/completions' : '/chat/completions';
      const json = (await this.http.postJson(path, body, { signal, retries: 1 })) as { usage?: { prompt_tokens?: unknown } } | null;
      const n = json?.usage?.prompt_tokens;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new EngineError('remote-error', `POST ${path}: the response reports no usage.prompt_tokens`);
      return n;
    };
    const routes = serverKind === 'openai' ? (['chat', 'completions'] as const) : (['completions', 'chat'] as const);
    const counted = new Map<string, Promise<number>>();
    const contextSize = this.config.contextSize;
    return {
      calibrate: () => calibrationFor(key, () => calibrate(count, routes, this.lifetime.signal)),
      count: (route, text, signal) => {
        const memo = `${route}\u0000${text}`;
        let found = counted.get(memo);
        if (!found) {
          found = count(route, text, signal);
          counted.set(memo, found);
          found.catch(() => counted.delete(memo));
        }
        return found;
      },
      // A sample prompt of at most (context − 16) bytes fits the context: no token is shorter than a byte.
      ...(contextSize !== undefined ? { maxSampleBytes: Math.max(16, Math.min(SAMPLE_BYTES, contextSize - 16)) } : {}),
    };
  }

  async close(): Promise<void> {
    if (this.lifetime.signal.aborted) return;
    const closed = new EngineError('aborted', 'the remote engine is closed');
    this.lifetime.abort(closed);
    this.http.pool.close(closed);
  }

  private async embedBatch(texts: string[], signal: AbortSignal, report: CallReport | undefined): Promise<number[][]> {
    return this.http.postJson('/embeddings', { model: this.config.model, input: texts }, { signal, report, read: (json) => readEmbeddingsResponse(json, texts.length) });
  }

  /**
   * Versions from GET /models of one endpoint: `ok` with what it says (nothing when the server has
   * no such endpoint, HTTP 404, or does not list the model), else why the lookup failed.
   */
  private async modelVersions(): Promise<{ ok: true; versions: Record<string, string> } | { ok: false; reason: string }> {
    let json: unknown;
    try {
      json = await this.http.getJson('/models', {
        signal: this.lifetime.signal,
        retries: 0,
        timeoutMs: Math.min(this.config.timeoutMs, modelsLookupTimeoutMs),
        metadata: true,
      });
    } catch (error) {
      const message = (error as Error).message;
      if (/\bHTTP 404\b/.test(message)) return { ok: true, versions: {} };
      return { ok: false, reason: message };
    }
    let entry;
    try {
      entry = parseResponse(modelsResponse, json, 'GET /models').data.find((m) => m.id === this.config.model);
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
    if (!entry) return { ok: true, versions: {} };
    const versions: Record<string, string> = { 'remote.model': entry.id };
    if (entry.owned_by !== undefined) versions['remote.ownedBy'] = entry.owned_by;
    if (entry.created !== undefined) versions['remote.modelCreated'] = String(entry.created);
    // vLLM also reports the weights it loaded and the context length.
    if (typeof entry.root === 'string') versions['remote.modelRoot'] = entry.root;
    if (typeof entry.max_model_len === 'number') versions['remote.maxModelLen'] = String(entry.max_model_len);
    const served = servedRevision(entry);
    if (served !== undefined) versions['remote.servedRevision'] = served;
    if (this.config.revision !== undefined) versions['remote.revision'] = this.config.revision;
    if (this.config.endpoints.length > 1) versions['remote.endpoints'] = String(this.config.endpoints.length);
    return { ok: true, versions };
  }

  /** Runs one call under a signal that the caller's signal and close() both abort. */
  private async guarded<T>(signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.lifetime.signal.aborted) throw new EngineError('aborted', 'the remote engine is closed');
    const linked = new LinkedSignal(this.lifetime.signal, signal);
    try {
      return await run(linked.signal);
    } finally {
      linked.dispose();
    }
  }
}
