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
 * Threads (issue 19): with `adaptiveThreads` (no count given by the user) the engine uses the
 * `tuning` it was given, or with `autoTune` measures one right after the model loads (a second or
 * two for a small model; `onTuned` receives it to store), and the worker keeps the count within
 * the cores other processes leave free. `tune()` measures again on demand. A fixed count is never
 * changed: `tune()` then only reports.
 *
 * Identity: the model key is the SHA-256 of the GGUF (pass `modelKey` when the model library has
 * it, otherwise it is hashed once, on demand). Output-affecting settings are the backend actually
 * used and the llama.cpp build (not the requested GPU setting), offloaded layers and batch size
 * (the batch layout changes log-probs in the last bits); threads and parallel sequences are left
 * out (greedy output was identical across thread counts).
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
  type CallReport,
  type GenerateResult,
  type ScoreRequest,
  type ScoreResult,
  type TokenizeRequest,
  type TokenizeResult,
} from '../types';
import { engineLog, logLevelOf } from './engineLog';
import { CHAT_TOKENIZATION, GENERATION, TOKENIZATION, type LoadResult, type WorkerOp, type WorkerOps } from './protocol';
import { FreeCoreMeter } from './freeCores';
import { runtimeVersions } from './runtimeVersions';
import { machineKey, resolveLocalEngineSettings, type LocalEngineSettings } from './settings';
import { candidateThreadCounts, chooseThreads, REFERENCE_CALL, summarizeTrials, TRIAL, type ThreadTuning, type TuneTrial } from './threadTuning';
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

export interface TuneOptions {
  /** Most alternating rounds (default 7). */
  rounds?: number;
  /** Stop starting rounds after this long, ms (default 8000; at least 2 rounds run). */
  budgetMs?: number;
  /** Thread counts to try (default 1 … usable cores). */
  threadCounts?: number[];
  signal?: AbortSignal;
  onTrial?(trial: TuneTrial): void;
}

export interface LocalEngineOptions {
  modelPath: string;
  settings?: Partial<LocalEngineSettings>;
  /** SHA-256 of the file, when already known (model library). */
  modelKey?: string;
  modelName?: string;
  /** Worker script override (see workerLaunch.ts). */
  workerPath?: string;
  /** A stored tuning for this model and machine (adaptive threads only; ignored for another machine). */
  tuning?: ThreadTuning | undefined;
  /** Measure threads right after loading when there is no usable `tuning` (adaptive threads only). */
  autoTune?: boolean;
  /** Receives each tuning measured (to store it with the model). */
  onTuned?(tuning: ThreadTuning): void;
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
  private tuned: ThreadTuning | undefined;

  constructor(private readonly options: LocalEngineOptions) {
    this.settings = resolveLocalEngineSettings(options.settings);
    if (options.modelKey) this.modelKey = Promise.resolve(options.modelKey);
    if (options.tuning && options.tuning.machine === machineKey()) this.tuned = options.tuning;
  }

  /** The tuning in force (given, or measured by this engine), if any. */
  get tuning(): ThreadTuning | undefined {
    return this.tuned;
  }

  /**
   * Measure each thread count on this model now (see threadTuning.ts) and, for adaptive threads,
   * use the best from the next call on. Loads the model if needed; waits for calls in flight.
   */
  async tune(opts: TuneOptions = {}): Promise<ThreadTuning> {
    const worker = await this.ready();
    const loaded = this.current.loaded as LoadResult;
    const tuning = await this.measure(worker, loaded.usableCores, opts);
    this.tuned = tuning;
    if (this.settings.adaptiveThreads) loaded.threads = (await this.applyThreads(worker)).threads;
    this.options.onTuned?.(tuning);
    return tuning;
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
    const modelKey = await this.modelKey;
    const runtime = await this.runtimeUsed();
    const loaded = this.current.loaded;
    return {
      kind: 'local',
      modelKey,
      modelName: this.options.modelName ?? basename(this.options.modelPath).replace(/\.gguf$/i, ''),
      // What computes the outputs — the backend llama.cpp actually loaded and its build — not the requested `gpu`;
      // how prompts become tokens (worker/tokens.ts) and how a prompt is generated from (worker/generate.ts),
      // so results of an earlier rule are not reused as equal.
      outputAffectingSettings: {
        backend: runtime.backend,
        llamaCpp: runtime.build,
        gpuLayers: runtime.gpuLayers,
        batchSize: this.settings.batchSize,
        tokenization: TOKENIZATION,
        generation: GENERATION,
        chatTokenization: CHAT_TOKENIZATION,
      },
      versions: loaded ? { ...loaded.versions } : { ...runtimeVersions() },
    };
  }

  /**
   * The backend (cpu, cuda, metal, vulkan), llama.cpp build and offloaded layers that compute this
   * engine's outputs. With `gpu: false` that is the CPU build, known without loading anything; with
   * 'auto' (or a named GPU backend) only llama.cpp knows what it got, so the model is loaded first.
   * The two agree: 'auto' on a machine without a GPU keys like `gpu: false`.
   */
  private async runtimeUsed(): Promise<{ backend: string; build: string; gpuLayers: number }> {
    if (this.settings.gpu === false) return { backend: 'cpu', build: runtimeVersions()['llama.cpp'] ?? 'unknown', gpuLayers: 0 };
    const loaded = this.current.loaded ?? (await this.load());
    const backend = loaded.gpu || 'cpu';
    return { backend, build: loaded.versions['llama.cpp'] ?? 'unknown', gpuLayers: backend === 'cpu' ? 0 : loaded.gpuLayers };
  }

  /** Start the worker and load the model now rather than on the first call. */
  async load(): Promise<LoadResult> {
    await this.ready();
    return this.current.loaded as LoadResult;
  }

  async generate(request: GenerateRequest, signal?: AbortSignal, report?: CallReport): Promise<GenerateResult> {
    checkGenerateRequest(request);
    if (signal?.aborted) return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'aborted' };
    return this.call('generate', request, signal, report);
  }

  /**
   * generate() with the text streamed as it grows (Try it, issue 17 item 4): `onText` gets the text
   * so far and the token count after each token. Not part of `Engine` and never cached.
   */
  async generateStream(request: GenerateRequest, onText: (text: string, tokens: number) => void, signal?: AbortSignal): Promise<GenerateResult> {
    checkGenerateRequest(request);
    if (signal?.aborted) return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'aborted' };
    const worker = await this.ready();
    return worker.call('generate', request, {
      ...(signal ? { signal } : {}),
      stream: true,
      onProgress: (p) => p.text !== undefined && onText(p.text, p.tokens ?? 0),
    });
  }

  async score(request: ScoreRequest, signal?: AbortSignal, report?: CallReport): Promise<ScoreResult> {
    checkScoreRequest(request);
    if (signal?.aborted) throw new EngineError('aborted', 'score cancelled before it started');
    return this.call('score', request, signal, report);
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

  private async call<K extends Exclude<WorkerOp, 'load'>>(op: K, request: WorkerOps[K]['request'], signal?: AbortSignal, report?: CallReport): Promise<WorkerOps[K]['result']> {
    const worker = await this.ready();
    return worker.call(op, request, { ...(signal ? { signal } : {}), ...(report ? { onEngineMs: (ms: number) => (report.engineMs = ms) } : {}) });
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

  /**
   * Starts a worker and loads the model. `bindingTests` 'cached' lets the worker skip
   * node-llama-cpp's binary self-test for a binary whose test passed before (worker/bindingTests.ts).
   * When such a load fails before the worker confirmed the binary (it said it skipped a test, then
   * died, or the binary reported another GPU type), it is tried once more with every test run: a
   * binary that stopped working (a GPU driver removed) is found by its test, and node-llama-cpp
   * falls back as it would have.
   */
  private async start(bindingTests: 'cached' | 'always' = 'cached'): Promise<WorkerProcess> {
    if (bindingTests === 'cached') this.setState({ status: 'loading' });
    let worker: WorkerProcess;
    try {
      // Not a GGUF, truncated, missing: say so precisely, without starting a process.
      await readGgufMetadata(this.options.modelPath);
      worker = new WorkerProcess(resolveWorkerLaunch(this.options.workerPath), {
        onExit: (exit) => {
          // A death while loading is logged once, by the load's failure below (with "while loading").
          if (this.current.status !== 'loading') engineLog(this.current.status === 'closed' && exit.code === 0 ? 'info' : 'error', 'engine', `${this.label()}: ${describeExit(exit)}`);
          if (this.worker !== worker || this.current.status === 'closed') return;
          this.worker = undefined;
          // While loading, the load call's rejection sets the state (with the load error) instead.
          if (this.current.status === 'ready') this.setState({ status: 'failed', error: new EngineError('engine-crashed', describeExit(exit)) });
        },
        onLog: (level, message, source) => {
          engineLog(logLevelOf(level), source ?? 'engine', `${this.label()}: ${message.trim()}`);
          this.options.onLog?.(level, message);
        },
        onOutputLine: (line) => engineLog('warn', 'engine-worker', `${this.label()}: ${line}`),
      });
      engineLog('info', 'engine', `${this.label()}: worker pid ${worker.pid ?? '?'} started for ${this.options.modelPath}`);
    } catch (err) {
      const error = err instanceof EngineError ? err : new EngineError('model-load-failed', (err as Error).message);
      engineLog('error', 'engine', `${this.label()}: ${error.message}`);
      this.setState({ status: 'failed', error });
      throw error;
    }
    this.worker = worker;
    let skippedTest: string | undefined;
    try {
      const loaded = await worker.call(
        'load',
        { modelPath: this.options.modelPath, settings: this.settings, bindingTests },
        {
          onProgress: (p) => {
            if (p.bindingTestSkipped !== undefined) skippedTest = p.bindingTestSkipped;
            if (p.bindingTestConfirmed) skippedTest = undefined;
            if (p.load !== undefined) this.options.onLoadProgress?.(p.load);
          },
        },
      );
      if (this.current.status === 'closed') {
        await worker.shutdown();
        throw new EngineError('bad-request', 'the engine was closed while loading');
      }
      if (this.settings.adaptiveThreads) {
        if (!this.tuned && this.options.autoTune) {
          try {
            this.tuned = await this.measure(worker, loaded.usableCores, {});
            this.options.onTuned?.(this.tuned);
          } catch (err) {
            // A model that cannot generate (an embedding-only GGUF) cannot be timed this way: it keeps
            // the default count (still capped by the free cores), and the load goes on.
            if (!worker.alive) throw err;
            engineLog('warn', 'engine', `${this.label()}: thread tuning skipped: ${(err as Error).message}`);
            this.options.onLog?.('warn', `thread tuning skipped: ${(err as Error).message}`);
          }
        }
        if (this.tuned) loaded.threads = (await this.applyThreads(worker)).threads;
      }
      this.setState({ status: 'ready', loaded });
      engineLog(
        'info',
        'engine',
        `${this.label()}: model loaded (backend ${loaded.gpu || 'cpu'}, llama.cpp ${loaded.versions['llama.cpp'] ?? '?'}, ${loaded.threads} threads${loaded.adaptiveThreads ? ' adaptive' : ''}, context ${loaded.contextSize})`,
      );
      return worker;
    } catch (err) {
      const error = err instanceof EngineError ? err : new EngineError('model-load-failed', (err as Error).message);
      if (skippedTest !== undefined && bindingTests === 'cached' && this.current.status === 'loading') {
        engineLog('warn', 'engine', `${this.label()}: ${error.message} — loading again with node-llama-cpp's self-test of ${skippedTest}, which this load had skipped on its record`);
        if (this.worker === worker) this.worker = undefined;
        worker.kill();
        return this.start('always');
      }
      if (this.current.status !== 'closed') {
        engineLog('error', 'engine', `${this.label()}: ${error.message}`);
        this.setState({ status: 'failed', error });
        if (this.worker === worker) this.worker = undefined;
        worker.kill();
      }
      throw error;
    }
  }

  private async measure(worker: WorkerProcess, usable: number, opts: TuneOptions): Promise<ThreadTuning> {
    const started = performance.now();
    const freeCores = await new FreeCoreMeter(usable).measure(200);
    const threadCounts = opts.threadCounts ?? candidateThreadCounts(usable);
    const result = await worker.call(
      'tune',
      { threadCounts, rounds: opts.rounds ?? 7, budgetMs: opts.budgetMs ?? 8000, promptTokens: TRIAL.promptTokens, decodeTokens: TRIAL.decodeTokens },
      opts.signal ? { signal: opts.signal } : {},
    );
    for (const t of result.trials) opts.onTrial?.(t);
    const measurements = summarizeTrials(result.trials, { promptTokens: result.promptTokens, decodeTokens: result.decodeTokens });
    return {
      threads: chooseThreads(measurements),
      measurements,
      reference: { ...REFERENCE_CALL },
      usableCores: usable,
      freeCores,
      machine: machineKey(),
      tunedAt: new Date().toISOString(),
      durationMs: performance.now() - started,
    };
  }

  private applyThreads(worker: WorkerProcess): Promise<{ threads: number; adaptive: boolean }> {
    const t = this.tuned;
    return worker.call('threads', { threads: t?.threads ?? this.settings.threads, adaptive: this.settings.adaptiveThreads, measurements: t?.measurements });
  }

  /** The model's name in log lines. */
  private label(): string {
    return this.options.modelName ?? basename(this.options.modelPath);
  }

  private setState(state: LocalEngineState): void {
    this.current = state;
    this.options.onStateChange?.(state);
  }
}
