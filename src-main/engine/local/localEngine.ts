/**
 * The local llama.cpp engine, parent side. One `LocalEngine` serves one GGUF model from its own
 * worker process (one process per model, the VS Code / @electron/llm pattern): a model that
 * aborts llama.cpp takes down only its own process, and the other models keep serving.
 *
 * Lifecycle: the worker starts on the first call and loads the model; calls wait for the load.
 * If the process dies, calls in flight are rejected with EngineError 'model-load-failed' (while
 * loading) or 'engine-crashed' (otherwise), the engine's state becomes 'failed' with that error,
 * and the next call starts a fresh worker. `close()` ends the worker; calls still in flight end
 * as aborted.
 *
 * Cancelling (AbortSignal): `generate` resolves early with the text so far and finishReason
 * 'aborted' (empty if it had not started); `score` and `embed` reject with EngineError 'aborted'.
 *
 * Identity: the model key is the SHA-256 of the GGUF (pass `modelKey` when the model library has
 * it, otherwise it is hashed once, on demand). Output-affecting settings are the GPU choice,
 * offloaded layers and batch size (the batch layout changes log-probs in the last bits); threads
 * and parallel sequences are left out (greedy output was identical across thread counts).
 */
import { basename } from 'node:path';
import { readGgufMetadata } from '../gguf/ggufReader';
import { sha256File } from '../gguf/sha256File';
import { checkEmbedRequest, checkGenerateRequest, checkScoreRequest, checkTokenizeRequest } from '../requestChecks';
import {
  EngineError,
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
import type { LoadResult, WorkerOp, WorkerOps } from './protocol';
import { runtimeVersions } from './runtimeVersions';
import { resolveLocalEngineSettings, type LocalEngineSettings } from './settings';
import { resolveWorkerLaunch } from './workerLaunch';
import { WorkerProcess, describeExit } from './workerProcess';

export type LocalEngineStatus = 'idle' | 'loading' | 'ready' | 'failed' | 'closed';

export interface LocalEngineState {
  status: LocalEngineStatus;
  /** Why the engine is 'failed'. */
  error?: EngineError;
  /** What the worker reported once the model loaded. */
  loaded?: LoadResult;
}

export interface LocalEngineOptions {
  modelPath: string;
  settings?: Partial<LocalEngineSettings>;
  /** SHA-256 of the file, when already known (model library). */
  modelKey?: string;
  modelName?: string;
  /** Worker script override (see workerLaunch.ts). */
  workerPath?: string;
  onStateChange?(state: LocalEngineState): void;
  onLoadProgress?(fraction: number): void;
  onLog?(level: string, message: string): void;
}

export class LocalEngine implements Engine {
  readonly settings: LocalEngineSettings;
  private worker: WorkerProcess | undefined;
  private loading: Promise<WorkerProcess> | undefined;
  private modelKey: Promise<string> | undefined;
  private current: LocalEngineState = { status: 'idle' };

  constructor(private readonly options: LocalEngineOptions) {
    this.settings = resolveLocalEngineSettings(options.settings);
    if (options.modelKey) this.modelKey = Promise.resolve(options.modelKey);
  }

  get state(): LocalEngineState {
    return this.current;
  }

  /** Process id of the current worker (tests, diagnostics). */
  get workerPid(): number | undefined {
    return this.worker?.alive ? this.worker.pid : undefined;
  }

  async identity(): Promise<EngineIdentity> {
    this.modelKey ??= sha256File(this.options.modelPath).catch((err: unknown) => {
      this.modelKey = undefined;
      throw new EngineError('model-load-failed', `cannot read ${this.options.modelPath}: ${(err as Error).message}`);
    });
    const loaded = this.current.loaded;
    return {
      kind: 'local',
      modelKey: await this.modelKey,
      modelName: this.options.modelName ?? basename(this.options.modelPath).replace(/\.gguf$/i, ''),
      outputAffectingSettings: { gpu: this.settings.gpu, gpuLayers: this.settings.gpuLayers, batchSize: this.settings.batchSize },
      versions: loaded ? { ...loaded.versions } : { ...runtimeVersions() },
    };
  }

  /** Start the worker and load the model now rather than on the first call. */
  async load(): Promise<LoadResult> {
    await this.ready();
    return this.current.loaded as LoadResult;
  }

  async generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult> {
    checkGenerateRequest(request);
    if (signal?.aborted) return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'aborted' };
    return this.call('generate', request, signal);
  }

  async score(request: ScoreRequest, signal?: AbortSignal): Promise<ScoreResult> {
    checkScoreRequest(request);
    if (signal?.aborted) throw new EngineError('aborted', 'score cancelled before it started');
    return this.call('score', request, signal);
  }

  async embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedResult> {
    checkEmbedRequest(request);
    if (signal?.aborted) throw new EngineError('aborted', 'embed cancelled before it started');
    return this.call('embed', request, signal);
  }

  /** The model's own tokenizer, in the worker (loads the model if it is not loaded yet). */
  async tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    checkTokenizeRequest(request);
    if (signal?.aborted) throw new EngineError('aborted', 'tokenize cancelled before it started');
    if (request.texts.length === 0) return { counts: [], source: 'model', ...(request.maxTokens !== undefined ? { truncated: [] } : {}) };
    return this.call('tokenize', request, signal);
  }

  async close(): Promise<void> {
    if (this.current.status === 'closed') return;
    this.setState({ status: 'closed' });
    const worker = this.worker;
    this.worker = undefined;
    this.loading = undefined;
    await worker?.shutdown();
  }

  private async call<K extends Exclude<WorkerOp, 'load'>>(op: K, request: WorkerOps[K]['request'], signal?: AbortSignal): Promise<WorkerOps[K]['result']> {
    const worker = await this.ready();
    return worker.call(op, request, signal ? { signal } : {});
  }

  /** The loaded worker, starting a fresh one if there is none (first call, or after a failure). */
  private ready(): Promise<WorkerProcess> {
    if (this.current.status === 'closed') return Promise.reject(new EngineError('bad-request', 'the engine is closed'));
    if (this.worker?.alive && this.current.status === 'ready') return Promise.resolve(this.worker);
    this.loading ??= this.start().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async start(): Promise<WorkerProcess> {
    this.setState({ status: 'loading' });
    let worker: WorkerProcess;
    try {
      // Not a GGUF, truncated, missing: say so precisely, without starting a process.
      await readGgufMetadata(this.options.modelPath);
      worker = new WorkerProcess(resolveWorkerLaunch(this.options.workerPath), {
        onExit: (exit) => {
          if (this.worker !== worker || this.current.status === 'closed') return;
          this.worker = undefined;
          // While loading, the load call's rejection sets the state (with the load error) instead.
          if (this.current.status === 'ready') this.setState({ status: 'failed', error: new EngineError('engine-crashed', describeExit(exit)) });
        },
        ...(this.options.onLog ? { onLog: this.options.onLog } : {}),
      });
    } catch (err) {
      const error = err instanceof EngineError ? err : new EngineError('model-load-failed', (err as Error).message);
      this.setState({ status: 'failed', error });
      throw error;
    }
    this.worker = worker;
    try {
      const loaded = await worker.call(
        'load',
        { modelPath: this.options.modelPath, settings: this.settings },
        this.options.onLoadProgress ? { onProgress: (p) => p.load !== undefined && this.options.onLoadProgress?.(p.load) } : {},
      );
      if (this.current.status === 'closed') {
        await worker.shutdown();
        throw new EngineError('bad-request', 'the engine was closed while loading');
      }
      this.setState({ status: 'ready', loaded });
      return worker;
    } catch (err) {
      const error = err instanceof EngineError ? err : new EngineError('model-load-failed', (err as Error).message);
      if (this.current.status !== 'closed') {
        this.setState({ status: 'failed', error });
        if (this.worker === worker) this.worker = undefined;
        worker.kill();
      }
      throw error;
    }
  }

  private setState(state: LocalEngineState): void {
    this.current = state;
    this.options.onStateChange?.(state);
  }
}
