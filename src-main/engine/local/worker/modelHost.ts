/**
 * One loaded model inside the worker process: the llama.cpp binding, the model, and — created on
 * first use, so an embedding-only model never pays for a KV cache — a generation context with
 * `sequences` parallel sequences and an embedding context.
 *
 * Threads: the contexts are created wanting every usable core, and `ThreadGovernor` sets
 * `llama.maxThreads` before each operation to the count in force (the user's fixed count, or the
 * tuned count capped by the cores other processes leave free; see threads.ts). llama.cpp's own
 * default (at least 4 threads) was 100x slower on 2 vCPUs. Binaries are never
 * built from source here (`build: 'never'`): a missing prebuilt binary is a load failure with
 * node-llama-cpp's reason, not a silent multi-minute compile.
 */
import { availableParallelism } from 'node:os';
import {
  getLlama,
  LlamaLogLevel,
  resolveChatWrapper,
  type ChatWrapper,
  type Llama,
  type LlamaEmbeddingContext,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';
import { tokenPrefix } from '../../tokenBudget';
import {
  EngineError,
  type EmbedRequest,
  type EmbedResult,
  type GenerateRequest,
  type GenerateResult,
  type ScoreRequest,
  type ScoreResult,
  type TokenizeRequest,
  type TokenizeResult,
} from '../../types';
import type { LoadRequest, LoadResult, TuneTrialsResult } from '../protocol';
import { effectiveContextSize, type LocalEngineSettings } from '../settings';
import { runtimeVersions } from '../runtimeVersions';
import type { TuneRequest } from '../threadTuning';
import { ThreadGovernor, type ThreadPolicy } from './threads';
import { bindingTestsFile, confirmSkipped, withBindingTests } from './bindingTests';
import { runTuneTrials } from './tune';
import { chatPromptTokens, generateInSequence, wholeTextChatWrapper } from './generate';
import { scoreInSequence } from './score';
import { SequencePool } from './sequencePool';
import { embeddingTextLimit, promptTextTokens, promptTokens } from './tokens';

/**
 * llama.cpp's log level: warnings and errors by default; FAIRGROUND_LLAMA_LOG_LEVEL (error, warn,
 * info, debug) changes it for diagnosing a model (info prints the model's metadata on every load).
 * Every line reaches the app's log tagged `llama.cpp` (engineLog.ts).
 */
export function llamaLogLevel(env: Record<string, string | undefined> = process.env): LlamaLogLevel {
  const wanted = env.FAIRGROUND_LLAMA_LOG_LEVEL?.trim().toLowerCase();
  const levels: Record<string, LlamaLogLevel> = { error: LlamaLogLevel.error, warn: LlamaLogLevel.warn, info: LlamaLogLevel.info, debug: LlamaLogLevel.debug };
  return (wanted && levels[wanted]) || LlamaLogLevel.warn;
}

export interface HostCallbacks {
  onLoadProgress?(fraction: number): void;
  /** A binary's self-test was skipped on its record (worker/bindingTests.ts), before the binary loads. */
  onBindingTestSkipped?(binary: string): void;
  /** The binary whose test was skipped loaded with the GPU type its test saw. */
  onBindingTestConfirmed?(): void;
  onLog?(level: string, message: string): void;
}

export class ModelHost {
  private generation?: Promise<SequencePool>;
  private embedding?: Promise<LlamaEmbeddingContext>;
  private embedQueue: Promise<unknown> = Promise.resolve();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private chatWrapper: ChatWrapper | undefined;
  readonly threads: ThreadGovernor;

  private constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly settings: LocalEngineSettings,
    readonly info: LoadResult,
  ) {
    this.threads = new ThreadGovernor(llama, { threads: settings.threads, adaptive: settings.adaptiveThreads }, info.usableCores);
  }

  static async load(req: LoadRequest, callbacks: HostCallbacks = {}): Promise<ModelHost> {
    const { settings } = req;
    // llama.cpp explains a failed load only in its log ("Failed to load model" is all the error
    // says), so the last warnings and errors are kept and added to the error.
    const recent: string[] = [];
    const usableCores = availableParallelism();
    const testsFile = bindingTestsFile();
    const { result: llama, report } = await withBindingTests(
      testsFile,
      req.bindingTests ?? 'cached',
      () =>
        getLlama({
          gpu: settings.gpu,
          maxThreads: usableCores,
          build: 'never',
          logLevel: llamaLogLevel(),
          logger: (level, message) => {
            recent.push(message.trim());
            if (recent.length > 4) recent.shift();
            callbacks.onLog?.(String(level), message);
          },
        }),
      (binary) => callbacks.onBindingTestSkipped?.(binary),
    );
    if (!confirmSkipped(testsFile, report, llama.gpu)) {
      const used = report.skipped[report.skipped.length - 1]!;
      await llama.dispose();
      throw new EngineError(
        'model-load-failed',
        `the llama.cpp binary ${used.binary} now reports GPU type ${String(llama.gpu)}, not the ${String(used.gpu)} its earlier self-test saw (its record is dropped: the next load tests it again)`,
      );
    }
    if (report.skipped.length > 0) callbacks.onBindingTestConfirmed?.();
    const model = await llama
      .loadModel({
        modelPath: req.modelPath,
        gpuLayers: settings.gpuLayers,
        ...(callbacks.onLoadProgress ? { onLoadProgress: callbacks.onLoadProgress } : {}),
      })
      .catch(async (err: unknown) => {
        await llama.dispose();
        const why = recent.filter(Boolean).join(' | ');
        throw new EngineError('model-load-failed', `${(err as Error).message}${why ? `: ${why}` : ''}`);
      });
    const contextSize = effectiveContextSize(settings.contextSize, model.trainContextSize);
    const info: LoadResult = {
      gpu: llama.gpu,
      gpuLayers: model.gpuLayers,
      threads: settings.threads,
      adaptiveThreads: settings.adaptiveThreads,
      usableCores,
      contextSize,
      trainContextSize: model.trainContextSize,
      embeddingLength: model.embeddingVectorSize,
      versions: { ...runtimeVersions(), 'llama.cpp': llama.llamaCppRelease.release, backend: llama.gpu || 'cpu', binary: llama.buildType },
    };
    return new ModelHost(llama, model, { ...settings, contextSize }, info);
  }

  /**
   * `onText` (streaming, issue 17 item 4) gets the text so far and the token count after each token;
   * `onStart` is called once the call has its sequence (its queued time ends there).
   */
  async generate(req: GenerateRequest, signal: AbortSignal, onText?: (text: string, tokens: number) => void, onStart?: () => void): Promise<GenerateResult> {
    const grammar = await this.grammarFor(req);
    const pool = await this.sequences();
    const lease = await pool.acquire(signal).catch((err: unknown) => {
      // Cancelled while waiting for a free sequence: nothing was generated.
      if (err instanceof EngineError && err.code === 'aborted') return undefined;
      throw err;
    });
    if (!lease) return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'aborted' };
    onStart?.();
    try {
      const chatWrapper = (): ChatWrapper => (this.chatWrapper ??= wholeTextChatWrapper(resolveChatWrapper(this.model)));
      const threads = this.threads.beforeCall();
      const t0 = performance.now();
      const result = await generateInSequence(req, { model: this.model, sequence: lease.sequence, grammar, chatWrapper, signal, ...(onText ? { onText } : {}) });
      this.threads.afterCall(threads, result.promptTokens, result.completionTokens, performance.now() - t0);
      return result;
    } finally {
      await lease.release();
    }
  }

  async score(req: ScoreRequest, signal: AbortSignal, onStart?: () => void): Promise<ScoreResult> {
    const pool = await this.sequences();
    const lease = await pool.acquireAll(signal);
    onStart?.();
    try {
      const threads = this.threads.beforeCall();
      const t0 = performance.now();
      const result = await scoreInSequence(req, { model: this.model, sequence: lease.sequence, signal });
      const evaluated = result.scores.reduce((n, s) => n + Math.max(0, s.tokens.length - 1), 0);
      this.threads.afterCall(threads, result.promptTokens + evaluated, 0, performance.now() - t0);
      return result;
    } finally {
      await lease.release();
    }
  }

  /** Texts are embedded one after another; concurrent embed calls queue. */
  async embed(req: EmbedRequest, signal: AbortSignal): Promise<EmbedResult> {
    const run = async (): Promise<EmbedResult> => {
      const ctx = await this.embeddingContext();
      this.threads.beforeCall();
      const vectors: number[][] = [];
      for (const text of req.texts) {
        if (signal.aborted) throw new EngineError('aborted', 'embed cancelled');
        const e = await ctx.getEmbeddingFor(text);
        vectors.push(Array.from(e.vector));
      }
      return { vectors, dimensions: vectors[0]?.length ?? 0 };
    };
    const result = this.embedQueue.then(run, run);
    this.embedQueue = result.catch(() => undefined);
    return result;
  }

  /** Thread-count trials on the generation context (it is held whole, so nothing else runs meanwhile). */
  async tune(req: TuneRequest, signal: AbortSignal): Promise<TuneTrialsResult> {
    const pool = await this.sequences();
    const lease = await pool.acquireAll(signal);
    try {
      const trials = await runTuneTrials(req, { model: this.model, sequence: lease.sequence, pin: (t) => this.threads.pin(t), signal });
      const promptTokens = Math.min(req.promptTokens, lease.sequence.contextSize - req.decodeTokens - 1);
      return { trials, promptTokens, decodeTokens: req.decodeTokens };
    } finally {
      await lease.release();
    }
  }

  /** Apply a thread policy (after tuning, or when the user changes the count). */
  setThreads(policy: ThreadPolicy): { threads: number; adaptive: boolean } {
    this.threads.setPolicy(policy);
    const p = this.threads.current;
    return { threads: p.threads, adaptive: p.adaptive };
  }

  /**
   * Counts as a prompt's text is tokenized (tokens.ts: the model's rule, space prefix included), without the beginning-of-sequence token;
   * with `asPrompt`, every token generate() evaluates for that prompt (the same functions count
   * them: promptTokens for a text prompt, the chat wrapper's context for a user message).
   */
  tokenize(req: TokenizeRequest): TokenizeResult {
    const counts: number[] = [];
    const truncated: string[] = [];
    const contextSize = this.settings.contextSize;
    if (req.asPrompt === 'text') return { counts: req.texts.map((t) => promptTokens(this.model, t).length), source: 'model', contextSize };
    if (req.asPrompt === 'chat') {
      const wrapper = (this.chatWrapper ??= wholeTextChatWrapper(resolveChatWrapper(this.model)));
      const counts = req.texts.map((content) => chatPromptTokens(this.model, wrapper, { messages: [{ role: 'user', content }], maxTokens: 1, sampling: { temperature: 0 } }));
      return { counts, source: 'model', contextSize };
    }
    for (const text of req.texts) {
      const tokens = promptTextTokens(this.model, text);
      counts.push(tokens.length);
      if (req.maxTokens === undefined) continue;
      truncated.push(tokens.length <= req.maxTokens ? text : tokenPrefix(text, req.maxTokens, (k) => this.model.detokenize(tokens.slice(0, k), false)));
    }
    return { counts, source: 'model', contextSize, embedLimit: embeddingTextLimit(this.model, contextSize), ...(req.maxTokens !== undefined ? { truncated } : {}) };
  }

  async dispose(): Promise<void> {
    await this.llama.dispose();
  }

  /** The generation context's sequences, creating the context on first use. */
  private sequences(): Promise<SequencePool> {
    this.generation ??= (async () => {
      const { contextSize, batchSize, sequences } = this.settings;
      const context = await this.wantingAllCores(() => this.model.createContext({ contextSize, batchSize, sequences, threads: this.info.usableCores })).catch((err: unknown) => {
        this.generation = undefined;
        throw new EngineError('model-load-failed', `cannot create a context: ${(err as Error).message}`);
      });
      const seqs = Array.from({ length: sequences }, () => context.getSequence());
      return new SequencePool(seqs);
    })();
    return this.generation;
  }

  private embeddingContext(): Promise<LlamaEmbeddingContext> {
    this.embedding ??= this.wantingAllCores(() =>
      this.model.createEmbeddingContext({ contextSize: this.settings.contextSize, batchSize: this.settings.batchSize, threads: this.info.usableCores }),
    )
      .catch((err: unknown) => {
        this.embedding = undefined;
        throw new EngineError('unsupported', `this model cannot embed: ${(err as Error).message}`);
      });
    return this.embedding;
  }

  /**
   * Contexts are created wanting every usable core (node-llama-cpp caps a context's wanted threads
   * at `llama.maxThreads` when it is created); the governor lowers the count per operation.
   */
  private async wantingAllCores<T>(create: () => Promise<T>): Promise<T> {
    // Every operation sets the count it runs with before it evaluates anything (beforeCall/pin).
    this.llama.maxThreads = this.info.usableCores;
    return create();
  }

  private grammarFor(req: GenerateRequest): Promise<LlamaGrammar> | undefined {
    const source = req.jsonSchema !== undefined ? `json:${JSON.stringify(req.jsonSchema)}` : req.grammar !== undefined ? `gbnf:${req.grammar}` : undefined;
    if (source === undefined) return undefined;
    let g = this.grammars.get(source);
    if (!g) {
      g = (
        req.jsonSchema !== undefined
          ? // The schema is user data; node-llama-cpp validates what it supports and throws otherwise.
            this.llama.createGrammarForJsonSchema(req.jsonSchema as Parameters<Llama['createGrammarForJsonSchema']>[0])
          : this.llama.createGrammar({ grammar: req.grammar as string })
      ).catch((err: unknown) => {
        this.grammars.delete(source);
        throw new EngineError('bad-request', `invalid ${req.jsonSchema !== undefined ? 'JSON schema' : 'GBNF grammar'}: ${(err as Error).message}`);
      });
      this.grammars.set(source, g);
    }
    return g;
  }
}
