/**
 * One loaded model inside the worker process: the llama.cpp binding, the model, and — created on
 * first use, so an embedding-only model never pays for a KV cache — a generation context with
 * `sequences` parallel sequences and an embedding context.
 *
 * Threads are set explicitly everywhere: getLlama's `maxThreads` and each context's `threads`
 * (llama.cpp's default of at least 4 threads was 100x slower on 2 vCPUs). Binaries are never
 * built from source here (`build: 'never'`): a missing prebuilt binary is a load failure with
 * node-llama-cpp's reason, not a silent multi-minute compile.
 */
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
import type { LoadRequest, LoadResult } from '../protocol';
import type { LocalEngineSettings } from '../settings';
import { runtimeVersions } from '../runtimeVersions';
import { generateInSequence } from './generate';
import { scoreInSequence } from './score';
import { SequencePool } from './sequencePool';
import { textTokens } from './tokens';

export interface HostCallbacks {
  onLoadProgress?(fraction: number): void;
  onLog?(level: string, message: string): void;
}

export class ModelHost {
  private generation?: Promise<SequencePool>;
  private embedding?: Promise<LlamaEmbeddingContext>;
  private embedQueue: Promise<unknown> = Promise.resolve();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private chatWrapper: ChatWrapper | undefined;

  private constructor(
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly settings: LocalEngineSettings,
    readonly info: LoadResult,
  ) {}

  static async load(req: LoadRequest, callbacks: HostCallbacks = {}): Promise<ModelHost> {
    const { settings } = req;
    // llama.cpp explains a failed load only in its log ("Failed to load model" is all the error
    // says), so the last warnings and errors are kept and added to the error.
    const recent: string[] = [];
    const llama = await getLlama({
      gpu: settings.gpu,
      maxThreads: settings.threads,
      build: 'never',
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => {
        recent.push(message.trim());
        if (recent.length > 4) recent.shift();
        callbacks.onLog?.(String(level), message);
      },
    });
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
    const contextSize = Math.min(settings.contextSize, model.trainContextSize || settings.contextSize);
    const info: LoadResult = {
      gpu: llama.gpu,
      gpuLayers: model.gpuLayers,
      threads: settings.threads,
      contextSize,
      trainContextSize: model.trainContextSize,
      embeddingLength: model.embeddingVectorSize,
      versions: { ...runtimeVersions(), 'llama.cpp': llama.llamaCppRelease.release, backend: llama.gpu || 'cpu', binary: llama.buildType },
    };
    return new ModelHost(llama, model, { ...settings, contextSize }, info);
  }

  async generate(req: GenerateRequest, signal: AbortSignal): Promise<GenerateResult> {
    const grammar = await this.grammarFor(req);
    const pool = await this.sequences();
    const lease = await pool.acquire(signal).catch((err: unknown) => {
      // Cancelled while waiting for a free sequence: nothing was generated.
      if (err instanceof EngineError && err.code === 'aborted') return undefined;
      throw err;
    });
    if (!lease) return { text: '', promptTokens: 0, completionTokens: 0, finishReason: 'aborted' };
    try {
      const chatWrapper = (): ChatWrapper => (this.chatWrapper ??= resolveChatWrapper(this.model));
      return await generateInSequence(req, { model: this.model, sequence: lease.sequence, grammar, chatWrapper, signal });
    } finally {
      await lease.release();
    }
  }

  async score(req: ScoreRequest, signal: AbortSignal): Promise<ScoreResult> {
    const pool = await this.sequences();
    const lease = await pool.acquireAll(signal);
    try {
      return await scoreInSequence(req, { model: this.model, sequence: lease.sequence, signal });
    } finally {
      await lease.release();
    }
  }

  /** Texts are embedded one after another; concurrent embed calls queue. */
  async embed(req: EmbedRequest, signal: AbortSignal): Promise<EmbedResult> {
    const run = async (): Promise<EmbedResult> => {
      const ctx = await this.embeddingContext();
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

  /** Counts as a prompt's text is tokenized (tokens.ts), without the beginning-of-sequence token. */
  tokenize(req: TokenizeRequest): TokenizeResult {
    const counts: number[] = [];
    const truncated: string[] = [];
    for (const text of req.texts) {
      const tokens = textTokens(this.model, text);
      counts.push(tokens.length);
      if (req.maxTokens === undefined) continue;
      truncated.push(tokens.length <= req.maxTokens ? text : tokenPrefix(text, req.maxTokens, (k) => this.model.detokenize(tokens.slice(0, k), false)));
    }
    return { counts, source: 'model', ...(req.maxTokens !== undefined ? { truncated } : {}) };
  }

  async dispose(): Promise<void> {
    await this.llama.dispose();
  }

  /** The generation context's sequences, creating the context on first use. */
  private sequences(): Promise<SequencePool> {
    this.generation ??= (async () => {
      const { contextSize, batchSize, sequences, threads } = this.settings;
      const context = await this.model.createContext({ contextSize, batchSize, sequences, threads }).catch((err: unknown) => {
        this.generation = undefined;
        throw new EngineError('model-load-failed', `cannot create a context: ${(err as Error).message}`);
      });
      const seqs = Array.from({ length: sequences }, () => context.getSequence());
      return new SequencePool(seqs);
    })();
    return this.generation;
  }

  private embeddingContext(): Promise<LlamaEmbeddingContext> {
    this.embedding ??= this.model
      .createEmbeddingContext({ contextSize: this.settings.contextSize, batchSize: this.settings.batchSize, threads: this.settings.threads })
      .catch((err: unknown) => {
        this.embedding = undefined;
        throw new EngineError('unsupported', `this model cannot embed: ${(err as Error).message}`);
      });
    return this.embedding;
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
