/**
 * The model library as a service: local GGUF models (header read at add time, SHA-256 hashed in
 * a resumable background job), OpenAI-compatible servers, per-model engine settings, and the one
 * place experiments get an engine from: `engineFor(ref)` returns a cached engine (every call goes
 * through the workspace's call cache) that is reused across jobs and closed at shutdown.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { GeneratorRef, ModelInfo, ModelSettings } from '../api/contract/models';
import { ApiFailure } from '../api/apiFailure';
import { CachedEngine, callCacheKey } from '../engine/callCache';
import { readGgufMetadata } from '../engine/gguf/ggufReader';
import { sha256File } from '../engine/gguf/sha256File';
import { downloadModel } from '../engine/download/downloadModel';
import { LocalEngine } from '../engine/local/localEngine';
import { effectiveContextSize, machineKey, resolveLocalEngineSettings, type LocalEngineSettings } from '../engine/local/settings';
import type { ThreadTuning } from '../engine/local/threadTuning';
import { RemoteEngine } from '../engine/remote/remoteEngine';
import type { GenerateResult } from '../engine/types';
import { CallCacheRepo } from '../store/callCacheRepo';
import { ModelsRepo, type ModelRecord } from '../store/modelsRepo';
import { ThreadTuningRepo } from '../store/threadTuningRepo';
import type { JobRunner } from './jobRunner';
import {
  checkEndpointsServe,
  concurrencyNotesOf,
  effectiveEndpointsOf,
  endpointsOf,
  engineConfigOf,
  reprobeRemote,
  expectedWeightsOf,
  identityOf,
  modelKeyOf,
  settleRemote,
  storedSettings,
  type RemoteInput,
  type RemoteRow,
} from './remoteModels';
import { listModel } from '../engine/remote/serverProbe';
import { remoteDefaults } from '../engine/remote/remoteEngineConfig';
import { PathAccess } from './paths';
import { SecretStore } from './secrets';
import { addSimModel, createSimEngine, describeSim, isSimRecord, simWorldIsCurrent } from './simulation/simModels';
import { SimEngine } from '../engine/sim/simEngine';
import type { SettingsService } from './settingsService';

/** Where a local model's thread count comes from (issue 19): the user's settings always win. */
export type ThreadsChosenBy = 'model setting' | 'workspace setting' | 'tuning' | 'default';

/** What the library keeps from a GGUF header. */
function headerSummary(info: Awaited<ReturnType<typeof readGgufMetadata>>): Record<string, unknown> {
  const { architecture, name, parameterCount, quantization, fileType, contextLength, embeddingLength, layerCount, headCount, vocabSize, poolingType, hasChatTemplate, version } =
    info;
  return { architecture, name, parameterCount, quantization, fileType, contextLength, embeddingLength, layerCount, headCount, vocabSize, poolingType, hasChatTemplate, ggufVersion: version };
}


export interface DownloadParams {
  url: string;
  sha256?: string | undefined;
  name?: string | undefined;
  /** Stands in for https://huggingface.co (mirrors, tests). */
  hubBaseUrl?: string | undefined;
}

export interface TryOptions {
  prompt: string;
  maxTokens: number;
  temperature: number;
  seed?: number | undefined;
  chat: boolean;
  /** Stream the text as it grows (issue 17 item 4): local models stream token by token, uncached. */
  onText?: ((text: string, tokens: number) => void) | undefined;
}

export class ModelService {
  readonly models: ModelsRepo;
  readonly cache: CallCacheRepo;
  readonly tunings: ThreadTuningRepo;
  private readonly engines = new Map<string, CachedEngine>();

  constructor(
    private readonly db: Database,
    private readonly jobs: JobRunner,
    private readonly settings: SettingsService,
    private readonly workspacePath: string = ':memory:',
    /** Which paths API requests may name (issue 15): `add` checks its path. */
    private readonly paths: PathAccess = new PathAccess('any', null),
    /** Seals remote API keys (never plain text in the workspace; issue 17 item 8). */
    private readonly secrets: SecretStore = new SecretStore(),
  ) {
    this.models = new ModelsRepo(db);
    this.cache = new CallCacheRepo(db);
    this.tunings = new ThreadTuningRepo(db);
    jobs.registerKind<{ id: number }>('models.hash', {
      title: (p) => `Hash ${this.models.get(p.id)?.name ?? `model ${p.id}`}`,
      run: (p, ctx) => this.hash(p.id, ctx.signal, (done, total) => ctx.progress(done, total)),
    });
    // Resuming a download continues its .partial file (Range request) instead of starting over.
    jobs.registerKind<DownloadParams>('models.download', {
      title: (p) => `Download ${p.name ?? p.url}`,
      run: (p, ctx) => this.runDownload(p, ctx.signal, (done, total) => ctx.progress(done, total ?? null)),
    });
  }

  /** Where downloaded models go: a `models` folder beside the workspace file. */
  modelsFolder(): string {
    return this.workspacePath === ':memory:' ? resolve('.fairground-models') : join(dirname(this.workspacePath), 'models');
  }

  /** Start downloading a GGUF from an https:// or hf:<owner>/<repo>/<file> URL (a resumable job). */
  startDownload(params: DownloadParams) {
    if (params.name && this.models.getByName(params.name)) throw new ApiFailure('conflict', `a model named '${params.name}' is already in the library`, 'name');
    return this.jobs.startKind('models.download', params);
  }

  private async runDownload(p: DownloadParams, signal: AbortSignal, progress: (done: number, total: number | undefined) => void): Promise<{ modelId: number; sha256: string; resumedFromBytes: number }> {
    const result = await downloadModel({
      url: p.url,
      destDir: this.modelsFolder(),
      ...(p.sha256 ? { expectedSha256: p.sha256 } : {}),
      ...(p.hubBaseUrl ? { hubBaseUrl: p.hubBaseUrl } : {}),
      signal,
      onProgress: ({ receivedBytes, totalBytes }) => progress(receivedBytes, totalBytes),
    });
    const name = p.name ?? basename(result.path).replace(/\.gguf$/i, '');
    const existing = this.models.getByName(name);
    if (existing && existing.sha256 === result.sha256) return { modelId: existing.id, sha256: result.sha256, resumedFromBytes: result.resumedFromBytes };
    const header = await readGgufMetadata(result.path);
    const record = this.models.add({ name, path: result.path, size: header.fileSize, sha256: result.sha256, metadata: headerSummary(header), status: 'ready' });
    return { modelId: record.id, sha256: result.sha256, resumedFromBytes: result.resumedFromBytes };
  }

  /** GGUF models first, then simulated readers (each by name): a default "first model" is a real one. */
  list(): ModelInfo[] {
    return this.models
      .list()
      .map((m) => this.info(m))
      .sort((a, b) => Number(a.kind === 'sim') - Number(b.kind === 'sim'));
  }

  get(id: number): ModelInfo {
    return this.info(this.require(id));
  }

  /** Register a GGUF by path: the header is read now (a broken file is refused), hashing runs as a job. */
  async add(path: string, name?: string): Promise<ModelInfo> {
    const file = this.paths.checkFile(path, 'path');
    const header = await readGgufMetadata(file);
    const modelName = name ?? basename(file).replace(/\.gguf$/i, '');
    if (this.models.getByName(modelName)) throw new ApiFailure('conflict', `a model named '${modelName}' is already in the library`, 'name');
    const record = this.models.add({ name: modelName, path: file, size: header.fileSize, sha256: null, metadata: headerSummary(header), status: 'pending' });
    this.jobs.startKind('models.hash', { id: record.id });
    return this.info(record);
  }

  /** Register with a known hash (the demo's generated model, tests). */
  async addHashed(path: string, name: string): Promise<ModelInfo> {
    const header = await readGgufMetadata(path);
    const sha256 = await sha256File(path);
    const record = this.models.add({ name, path: resolve(path), size: header.fileSize, sha256, metadata: headerSummary(header), status: 'ready' });
    return this.info(record);
  }

  async remove(id: number): Promise<boolean> {
    await this.closeEngine(`local:${id}`);
    return this.models.remove(id);
  }

  async updateSettings(id: number, settings: ModelSettings): Promise<ModelInfo> {
    this.require(id);
    // Check the combination now so a bad value is an error here, not at the next run.
    try {
      resolveLocalEngineSettings(settings as Partial<LocalEngineSettings>);
    } catch (err) {
      throw new ApiFailure('validation', (err as Error).message, 'settings');
    }
    this.models.setSettings(id, settings);
    await this.closeEngine(`local:${id}`);
    return this.get(id);
  }

  /**
   * Measure the thread counts of a local model on this machine now (a few seconds; see
   * engine/local/threadTuning.ts), store the result with the model, and use it from the next call
   * on unless the user set a thread count.
   */
  async tune(id: number, options: { budgetMs?: number; signal?: AbortSignal } = {}): Promise<ModelInfo & { tuning: ThreadTuning }> {
    const m = this.require(id);
    if (isSimRecord(m)) throw new ApiFailure('validation', `'${m.name}' is a simulated reader: it has no threads to tune`, 'id');
    const inner = this.engineFor({ kind: 'local', modelId: id }).inner;
    if (!(inner instanceof LocalEngine)) throw new ApiFailure('validation', `'${m.name}' is not a local GGUF model`, 'id');
    const tuning = await inner.tune({ ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    return { ...this.get(id), tuning };
  }

  clearCache(id: number): number {
    const m = this.require(id);
    return m.sha256 ? this.cache.clearModel(m.sha256) : 0;
  }

  /** A cached engine for a generator reference, started on first use and reused afterwards. */
  engineFor(ref: GeneratorRef): CachedEngine {
    const key = ref.kind === 'local' ? `local:${ref.modelId}` : `remote:${ref.endpointId}`;
    const existing = this.engines.get(key);
    // A simulated reader whose collection changed since it read it (new labels, a re-import) is
    // rebuilt; calls in flight on the old one finish (it holds no resources).
    if (existing && !(existing.inner instanceof SimEngine && ref.kind === 'local' && !simWorldIsCurrent(this.db, this.require(ref.modelId), existing.inner))) return existing;
    const inner = ref.kind === 'local' ? this.localEngine(ref.modelId) : this.remoteEngine(ref.endpointId);
    const capacity = this.capacityOf(ref, inner);
    // A local worker keeps one call queued beyond its sequences (CachedEngineOptions.lookahead).
    const engine = new CachedEngine(inner, this.cache, { capacity, ...(inner instanceof LocalEngine ? { lookahead: 1 } : {}) });
    this.engines.set(key, engine);
    return engine;
  }

  /**
   * How many calls the engine's work queue keeps in flight: the engine's own figure where it has
   * one (a remote pool: the sum of its healthy endpoints' limits), else a local model's parallel
   * sequences (1 by default, which keeps the batch layout — and so greedy outputs — reproducible)
   * or a server's maxConcurrency.
   */
  private capacityOf(ref: GeneratorRef, inner: object): () => number {
    const own = (inner as { capacity?: () => number }).capacity;
    if (typeof own === 'function') return () => own.call(inner);
    // Settings changes replace the engine (closeEngine), so the figure is read once.
    const d = this.describe(ref) as { settings?: { sequences?: number; maxConcurrency?: number } };
    const n = ref.kind === 'local' ? d.settings?.sequences : d.settings?.maxConcurrency;
    const fixed = typeof n === 'number' && n >= 1 ? Math.min(n, 256) : ref.kind === 'local' ? 1 : 4;
    return () => fixed;
  }

  async try(
    ref: GeneratorRef,
    opts: TryOptions,
  ): Promise<GenerateResult & { fromCache: boolean; durationMs: number; ttftMs: number | null; tokensPerSecond: number | null }> {
    if (ref.kind === 'remote') await this.assertReachable(ref.endpointId);
    const engine = this.engineFor(ref);
    const before = engine.stats().hits;
    const t0 = performance.now();
    const sampling = opts.temperature === 0 ? { temperature: 0 } : { temperature: opts.temperature, seed: opts.seed ?? 0 };
    const request = {
      ...(opts.chat ? { messages: [{ role: 'user' as const, content: opts.prompt }] } : { prompt: opts.prompt }),
      maxTokens: opts.maxTokens,
      sampling,
    };
    const inner = engine.inner;
    if (opts.onText && inner instanceof LocalEngine) {
      // A call the cache holds is answered from it (nothing to measure); otherwise the generation
      // streams — measured for time to first token and tokens/s — and is stored like any other call.
      const identity = await engine.identity();
      const key = callCacheKey(identity, 'generate', request);
      const hit = this.cache.get(key);
      if (hit) {
        const cached = hit.response as GenerateResult;
        opts.onText(cached.text, cached.completionTokens);
        return { ...cached, fromCache: true, durationMs: performance.now() - t0, ttftMs: null, tokensPerSecond: null };
      }
      const onText = opts.onText;
      let first: number | undefined;
      const result = await inner.generateStream(request, (text, tokens) => {
        first ??= performance.now();
        onText(text, tokens);
      });
      const end = performance.now();
      if (result.finishReason !== 'aborted') this.cache.put({ key, modelKey: identity.modelKey, op: 'generate', request, response: result, durationMs: end - t0 });
      const decoding = first === undefined ? 0 : end - first;
      return {
        ...result,
        fromCache: false,
        durationMs: end - t0,
        ttftMs: first === undefined ? null : first - t0,
        // Tokens after the first over the time after the first: the decoding rate, prompt processing excluded.
        tokensPerSecond: result.completionTokens > 1 && decoding > 0 ? ((result.completionTokens - 1) * 1000) / decoding : null,
      };
    }
    const result = await engine.generate(request);
    opts.onText?.(result.text, result.completionTokens);
    return { ...result, fromCache: engine.stats().hits > before, durationMs: performance.now() - t0, ttftMs: null, tokensPerSecond: null };
  }

  // --- remote endpoints -------------------------------------------------------------------

  listRemotes() {
    const rows = this.db.prepare(`SELECT * FROM remote_endpoints ORDER BY name`).all() as RemoteRow[];
    return rows.map((r) => this.remoteInfo(r));
  }

  /**
   * Register a served model: one base URL or a pool of endpoints. Its revision (part of the cache
   * key) is the one given, else what the endpoints report in GET /models (remoteModels.ts).
   */
  async addRemote(input: RemoteInput & { name: string; apiKeyEnv?: string | undefined }) {
    const exists = () => this.db.prepare(`SELECT 1 FROM remote_endpoints WHERE name=?`).get(input.name) !== undefined;
    if (exists()) throw new ApiFailure('conflict', `a server named '${input.name}' already exists`, 'name');
    const { baseUrl, settings, warnings } = await settleRemote(input);
    if (exists()) throw new ApiFailure('conflict', `a server named '${input.name}' already exists`, 'name');
    const info = this.db
      .prepare(`INSERT INTO remote_endpoints(name, base_url, model, api_key, settings, added_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(input.name, baseUrl, input.model, this.secrets.seal(input.apiKey, input.apiKeyEnv), JSON.stringify(settings), new Date().toISOString());
    return { ...this.remoteInfo(this.requireRemote(Number(info.lastInsertRowid))), warnings };
  }

  /**
   * Change a served model's endpoints (add or drop replicas, change limits). Its identity stays:
   * when it is checked (a revision the servers reported, a weights fingerprint), every new
   * endpoint must pass the same check (weightsCheck.ts) or the change is refused, naming it.
   */
  async updateRemoteEndpoints(id: number, endpoints: Array<{ baseUrl: string; maxConcurrency?: number | undefined }>) {
    const row = this.requireRemote(id);
    const old = storedSettings(row);
    const { baseUrl, settings } = await settleRemote({
      model: row.model,
      endpoints,
      serverKind: old.serverKind ?? 'openai',
      maxConcurrency: old.maxConcurrency ?? 4,
      probe: false,
    });
    const expected = expectedWeightsOf(row);
    if (expected) await checkEndpointsServe(expected, (settings.endpoints ?? [{ baseUrl }]).map((e) => e.baseUrl), this.secrets.open(row.api_key, row.name));
    const kept = { ...old, endpoints: settings.endpoints ?? [{ baseUrl, maxConcurrency: old.maxConcurrency ?? remoteDefaults.maxConcurrency }] };
    this.db.prepare(`UPDATE remote_endpoints SET base_url=?, settings=? WHERE id=?`).run(baseUrl, JSON.stringify(kept), id);
    await this.closeEngine(`remote:${id}`);
    return this.remoteInfo(this.requireRemote(id));
  }

  /**
   * Asks a served model's servers again (remoteModels.ts `reprobeRemote`): reachability, what they
   * can do, the context size, the weights (checked, never changed). The stored probe is replaced;
   * the engine is restarted so its transports and refusals follow the new probe.
   */
  async checkRemote(id: number) {
    const row = this.requireRemote(id);
    const { settings, changes, warnings } = await reprobeRemote(row, this.secrets.open(row.api_key, row.name) ?? undefined);
    this.db.prepare(`UPDATE remote_endpoints SET settings=? WHERE id=?`).run(JSON.stringify(settings), id);
    await this.closeEngine(`remote:${id}`);
    return { ...this.remoteInfo(this.requireRemote(id)), changes, warnings };
  }

  /**
   * Change a served model's per-request timeout (seconds, one HTTP attempt) and/or how long its
   * endpoints' weights stay trusted before they are checked again while serving (seconds).
   */
  async updateRemoteSettings(id: number, change: { timeoutSeconds?: number | undefined; recheckAfterSeconds?: number | undefined }) {
    const row = this.requireRemote(id);
    if (change.timeoutSeconds === undefined && change.recheckAfterSeconds === undefined) {
      throw new ApiFailure('validation', 'give timeoutSeconds or recheckAfterSeconds', 'timeoutSeconds');
    }
    if (change.timeoutSeconds !== undefined && (!Number.isInteger(change.timeoutSeconds) || change.timeoutSeconds < 1 || change.timeoutSeconds > 86_400)) {
      throw new ApiFailure('validation', `must be a whole number of seconds from 1 to 86400, got ${change.timeoutSeconds}`, 'timeoutSeconds');
    }
    if (change.recheckAfterSeconds !== undefined && (!Number.isFinite(change.recheckAfterSeconds) || change.recheckAfterSeconds < 0.1 || change.recheckAfterSeconds > 86_400)) {
      throw new ApiFailure('validation', `must be a number of seconds from 0.1 to 86400, got ${change.recheckAfterSeconds}`, 'recheckAfterSeconds');
    }
    const settings = {
      ...storedSettings(row),
      ...(change.timeoutSeconds !== undefined ? { timeoutMs: change.timeoutSeconds * 1000 } : {}),
      ...(change.recheckAfterSeconds !== undefined ? { recheckAfterMs: Math.round(change.recheckAfterSeconds * 1000) } : {}),
    };
    this.db.prepare(`UPDATE remote_endpoints SET settings=? WHERE id=?`).run(JSON.stringify(settings), id);
    await this.closeEngine(`remote:${id}`);
    return this.remoteInfo(this.requireRemote(id));
  }

  /**
   * Before a remote "try": is any endpoint reachable at all? One GET /models per endpoint with a
   * short timeout, so an unreachable server fails in seconds instead of after the engine's retries.
   */
  private async assertReachable(id: number): Promise<void> {
    const row = this.requireRemote(id);
    const apiKey = this.secrets.open(row.api_key, row.name) ?? undefined;
    const results = await Promise.all(endpointsOf(row).map(async (e) => ({ url: withoutCredentials(e.baseUrl), listing: await listModel({ baseUrl: e.baseUrl, apiKey, timeoutMs: 5_000 }, row.model) })));
    if (results.some((r) => r.listing.kind !== 'unreachable')) return;
    const why = results.map((r) => `${r.url}: ${r.listing.kind === 'unreachable' ? r.listing.detail : ''}`).join('; ');
    throw new ApiFailure('engine', `'${row.name}' cannot be reached (${why})`);
  }

  /** Distrusted calls of engines closed since (distrustedAnswers never goes down). */
  private distrustedInClosed = 0;

  /**
   * Calls whose answer was distrusted since this process started, over every engine (issue 35 item 1:
   * a remote endpoint that answered them failed a later weights check). A run compares it before and after.
   */
  distrustedAnswers(): number {
    let n = this.distrustedInClosed;
    for (const engine of this.engines.values()) n += engine.distrustedCount();
    return n;
  }

  /** Every started engine confirms its answers (remote: a weights check of each endpoint that answered since its last one). */
  async confirmRemoteAnswers(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.engines.values()].map((engine) => engine.confirmAnswers(signal)));
  }

  /** Every started remote engine checks its endpoints' weights again before their next call (when a run starts). */
  recheckRemoteWeights(): void {
    for (const engine of this.engines.values()) if (engine.inner instanceof RemoteEngine) engine.inner.recheckWeights();
  }

  /** Per-endpoint load, health, throughput and errors of a served model since its engine started. */
  remoteStats(id: number) {
    this.requireRemote(id);
    const inner = this.engineFor({ kind: 'remote', endpointId: id }).inner as RemoteEngine;
    return { capacity: inner.capacity(), endpoints: inner.endpointStats().map((e) => ({ ...e, baseUrl: withoutCredentials(e.baseUrl) })) };
  }

  async removeRemote(id: number): Promise<boolean> {
    await this.closeEngine(`remote:${id}`);
    return this.db.prepare(`DELETE FROM remote_endpoints WHERE id=?`).run(id).changes > 0;
  }

  /** Register a simulated reader (issue 14; services/simulation/simModels.ts). */
  addSim(input: { name?: string | undefined; profile: unknown }): ModelInfo {
    return this.info(addSimModel(this.db, this.models, input));
  }

  /** Descriptions for manifests: name, file, SHA-256, quantization; never secrets. */
  describe(ref: GeneratorRef): Record<string, unknown> {
    if (ref.kind === 'local') {
      const m = this.require(ref.modelId);
      if (isSimRecord(m)) return describeSim(m);
      return { kind: 'local', name: m.name, file: basename(m.path), sha256: m.sha256, quantization: m.metadata.quantization ?? null, settings: this.describedSettings(m), threads: this.threadsInfo(m) };
    }
    const r = this.requireRemote(ref.endpointId);
    const s = storedSettings(r);
    return {
      kind: 'remote',
      name: r.name,
      baseUrl: withoutCredentials(r.base_url),
      endpoints: endpointsOf(r).map((e, i) => ({ ...e, baseUrl: withoutCredentials(e.baseUrl), effectiveConcurrency: effectiveEndpointsOf(r)[i]!.maxConcurrency })),
      ...(concurrencyNotesOf(r).length > 0 ? { reproducibility: concurrencyNotesOf(r) } : {}),
      model: r.model,
      revision: s.revision ?? null,
      identity: identityOf(r),
      modelKey: modelKeyOf(r),
      settings: JSON.parse(r.settings) as unknown,
    };
  }

  async close(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    await Promise.allSettled(all.map((e) => e.close()));
  }

  // --- internals ----------------------------------------------------------------------------

  private async hash(id: number, signal: AbortSignal, progress: (done: number, total: number) => void): Promise<{ sha256: string }> {
    const m = this.require(id);
    if (!existsSync(m.path)) {
      this.models.setStatus(id, 'missing', `file not found: ${m.path}`);
      throw new Error(`file not found: ${m.path}`);
    }
    const sha256 = await sha256File(m.path, ({ bytesDone, bytesTotal }) => {
      if (signal.aborted) throw new Error('cancelled');
      progress(bytesDone, bytesTotal);
    });
    this.models.setHash(id, sha256);
    if (this.models.get(id)?.status === 'pending') this.models.setStatus(id, 'ready');
    return { sha256 };
  }

  private localEngine(id: number): LocalEngine | ReturnType<typeof createSimEngine> {
    const m = this.require(id);
    if (isSimRecord(m)) return createSimEngine(this.db, m);
    if (!existsSync(m.path)) throw new ApiFailure('not-found', `the model file is missing: ${m.path}`);
    const settings = this.effectiveSettings(m);
    const tuning = settings.adaptiveThreads ? this.tunings.get<ThreadTuning>(id, machineKey()) : undefined;
    return new LocalEngine({
      modelPath: m.path,
      modelName: m.name,
      ...(m.sha256 ? { modelKey: m.sha256 } : {}),
      settings,
      // Threads by measurement: the stored tuning, or one measured right after the first load.
      tuning,
      autoTune: settings.adaptiveThreads,
      onTuned: (t) => {
        if (this.models.get(id)) this.tunings.put(id, t);
      },
      onStateChange: (state) => {
        if (state.status === 'failed' && state.error?.code === 'model-load-failed') this.models.setStatus(id, 'failed', state.error.message);
        else if (state.status === 'ready' && this.models.get(id)?.status === 'failed') this.models.setStatus(id, 'ready');
      },
    });
  }

  private remoteEngine(id: number): RemoteEngine {
    const row = this.requireRemote(id);
    return new RemoteEngine(engineConfigOf({ ...row, api_key: this.secrets.open(row.api_key, row.name) ?? null }));
  }

  private effectiveSettings(m: ModelRecord): LocalEngineSettings {
    const own = m.settings as Partial<LocalEngineSettings>;
    const { threads, chosenBy } = this.threadsOf(m);
    return resolveLocalEngineSettings({ ...own, threads, adaptiveThreads: chosenBy === 'tuning' || chosenBy === 'default' });
  }

  /** The thread count of a local model and where it comes from: the user's settings, else this machine's tuning. */
  private threadsOf(m: ModelRecord): { threads: number; chosenBy: ThreadsChosenBy; tuning?: ThreadTuning } {
    const own = (m.settings as Partial<LocalEngineSettings>).threads;
    if (own !== undefined) return { threads: own, chosenBy: 'model setting' };
    const workspace = this.settings.explicitThreads();
    if (workspace !== undefined) return { threads: workspace, chosenBy: 'workspace setting' };
    const tuning = this.tunings.get<ThreadTuning>(m.id, machineKey());
    if (tuning) return { threads: tuning.threads, chosenBy: 'tuning', tuning };
    return { threads: this.settings.effectiveThreads(), chosenBy: 'default' };
  }

  /** Effective settings plus who chose the threads and this machine's tuning (manifestRuntime records them). */
  private describedSettings(m: ModelRecord): Record<string, unknown> {
    const { chosenBy } = this.threadsOf(m);
    const tuning = this.tunings.get<ThreadTuning>(m.id, machineKey());
    const settings = this.effectiveSettings(m);
    // The context the engine runs with, not the configured one: the worker caps it at the model's
    // trained context (issue 34 item 8c: a model trained for 512 ran with 512 while records said 4096).
    const trained = m.metadata.contextLength;
    const contextSize = effectiveContextSize(settings.contextSize, typeof trained === 'number' ? trained : undefined);
    const capped = contextSize !== settings.contextSize ? { contextSizeConfigured: settings.contextSize, contextSizeCappedBy: `the model's trained context (${contextSize} tokens)` } : {};
    return { ...settings, contextSize, ...capped, threadsChosenBy: chosenBy, ...(tuning ? { threadTuning: tuning } : {}) };
  }

  /** The model card's and the manifest's account of the threads: count, source, measurements. */
  private threadsInfo(m: ModelRecord): ModelInfo['threads'] {
    if (isSimRecord(m)) return null;
    const { threads, chosenBy, tuning } = this.threadsOf(m);
    const measured = tuning ?? this.tunings.get<ThreadTuning>(m.id, machineKey());
    return {
      threads,
      chosenBy,
      adaptive: chosenBy === 'tuning' || chosenBy === 'default',
      tuning: measured
        ? {
            threads: measured.threads,
            tunedAt: measured.tunedAt,
            durationMs: measured.durationMs,
            usableCores: measured.usableCores,
            freeCores: measured.freeCores,
            reference: measured.reference,
            measurements: measured.measurements,
          }
        : null,
    };
  }

  private info(m: ModelRecord): ModelInfo {
    let effective: Record<string, unknown>;
    try {
      effective = isSimRecord(m) ? {} : { ...this.effectiveSettings(m) };
    } catch (err) {
      effective = { error: (err as Error).message };
    }
    return {
      id: m.id,
      kind: isSimRecord(m) ? 'sim' : 'gguf',
      name: m.name,
      path: m.path,
      size: m.size,
      sha256: m.sha256,
      status: m.status,
      error: m.error,
      // A simulated reader's settings are its profile (shown in metadata.profile), not llama.cpp settings.
      metadata: isSimRecord(m) ? { ...m.metadata, profile: m.settings } : m.metadata,
      settings: (isSimRecord(m) ? {} : m.settings) as ModelSettings,
      effectiveSettings: effective,
      threads: this.threadsInfo(m),
      cachedCalls: m.sha256 ? this.cache.count(m.sha256) : 0,
      addedAt: m.addedAt,
    };
  }

  private remoteInfo(r: RemoteRow) {
    return {
      id: r.id,
      name: r.name,
      baseUrl: withoutCredentials(r.base_url),
      model: r.model,
      hasApiKey: r.api_key !== null && r.api_key !== '',
      endpoints: endpointsOf(r).map((e, i) => ({ ...e, baseUrl: withoutCredentials(e.baseUrl), effectiveConcurrency: effectiveEndpointsOf(r)[i]!.maxConcurrency })),
      ...(concurrencyNotesOf(r).length > 0 ? { reproducibility: concurrencyNotesOf(r) } : {}),
      revision: storedSettings(r).revision ?? null,
      identity: identityOf(r),
      capabilities: storedSettings(r).capabilities ?? null,
      timeoutMs: storedSettings(r).timeoutMs ?? remoteDefaults.timeoutMs,
      recheckAfterMs: storedSettings(r).recheckAfterMs ?? remoteDefaults.recheckAfterMs,
      settings: JSON.parse(r.settings) as Record<string, unknown>,
      cachedCalls: this.cache.count(modelKeyOf(r)),
      addedAt: r.added_at,
    };
  }

  private require(id: number): ModelRecord {
    const m = this.models.get(id);
    if (!m) throw new ApiFailure('not-found', `no model with id ${id}`);
    return m;
  }

  private requireRemote(id: number): RemoteRow {
    const r = this.db.prepare(`SELECT * FROM remote_endpoints WHERE id=?`).get(id) as RemoteRow | undefined;
    if (!r) throw new ApiFailure('not-found', `no server with id ${id}`);
    return r;
  }

  private async closeEngine(key: string): Promise<void> {
    const e = this.engines.get(key);
    if (!e) return;
    this.distrustedInClosed += e.distrustedCount();
    this.engines.delete(key);
    await e.close();
  }
}

/** A URL for display and manifests: `user:password@` typed into it is masked (the engine still uses it). */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '***';
    u.password = '';
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  } catch {
    return url;
  }
}
