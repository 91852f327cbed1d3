/**
 * The one interface every LLM engine implements: the local llama.cpp engine (in its own process)
 * and the OpenAI-compatible remote engine. Jobs and experiments only ever see `Engine`.
 *
 * All operations are deterministic given their inputs (greedy, or sampled with an explicit seed),
 * which is what makes the call cache (`engine/callCache.ts`) sound.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Decoding settings. `temperature: 0` means greedy; otherwise `seed` is required. */
export interface SamplingOptions {
  temperature: number;
  topK?: number;
  topP?: number;
  minP?: number;
  repeatPenalty?: number;
  seed?: number;
}

export interface GenerateRequest {
  /** Plain prompt (no chat template) — exactly one of `prompt` and `messages`. */
  prompt?: string;
  /** Chat messages, rendered with the model's chat template. */
  messages?: ChatMessage[];
  maxTokens: number;
  sampling: SamplingOptions;
  stop?: string[];
  /** Constrain output to JSON matching this JSON schema. */
  jsonSchema?: Record<string, unknown>;
  /** Constrain output with a GBNF grammar (local engine only). */
  grammar?: string;
}

export type FinishReason = 'stop' | 'length' | 'stopString' | 'aborted';

export interface GenerateResult {
  text: string;
  promptTokens: number;
  completionTokens: number;
  finishReason: FinishReason;
}

export interface ScoreRequest {
  /** The shared prompt; its KV prefix is evaluated once for all continuations. */
  prompt: string;
  /** Continuations whose log-probability after `prompt` is wanted. */
  continuations: string[];
}

export interface ContinuationScore {
  /** Token texts of the continuation, in order. */
  tokens: string[];
  /** Natural-log probability of each continuation token given everything before it. */
  logprobs: number[];
  sum: number;
  mean: number;
}

export interface ScoreResult {
  promptTokens: number;
  scores: ContinuationScore[];
}

export interface EmbedRequest {
  texts: string[];
}

export interface EmbedResult {
  vectors: number[][];
  dimensions: number;
}

/**
 * Count texts in the generator's own tokens, and cut them to a token budget (prompt budgets as the
 * papers truncated: "the first 512 tokens of each passage" means the generator's tokens).
 */
export interface TokenizeRequest {
  texts: string[];
  /** Also return each text cut to at most this many tokens (a non-negative integer). */
  maxTokens?: number;
  /**
   * Count each text as the whole prompt of a generation, every token the engine will evaluate:
   * 'text' a `prompt` (with the beginning-of-sequence token the engine puts in front), 'chat' the
   * content of one user message (`messages: [{role: 'user', content}]`, with the chat template).
   * Absent: plain text (see `TokenizeResult.counts`).
   */
  asPrompt?: 'text' | 'chat';
}

/** Who counted the tokens of a `TokenizeResult`. */
export type TokenCountSource =
  /** The model's own tokenizer (the local engine, the simulated engine). */
  | 'model'
  /** The server's tokenize endpoint (llama.cpp server and vLLM: POST /tokenize). */
  | 'server'
  /**
   * No tokenizer available (a remote server without /tokenize, or one that failed): `estimateTokenCount`,
   * an upper bound (UTF-8 bytes + 1; with `asPrompt`, a margin for what the server adds). See `TokenizeResult.estimate`.
   */
  | 'estimate';

export interface TokenizeResult {
  /**
   * Tokens of each text as plain text is tokenized for a prompt: no beginning-of-sequence or other
   * special tokens added, no space invented at the start. counts[i] belongs to texts[i].
   */
  counts: number[];
  /**
   * Only with `maxTokens`: texts[i] itself when counts[i] <= maxTokens, otherwise its longest
   * prefix (a string prefix of texts[i], ending on a token boundary) of at most maxTokens tokens.
   */
  truncated?: string[];
  source: TokenCountSource;
  /** The context window (tokens) one sequence of this engine holds, prompt and generated tokens together, where the engine knows it. */
  contextSize?: number;
  /**
   * The most tokens (counted as `counts` counts them) one text may have to be embedded whole, where
   * the engine knows it: the local engine's embedding context less its beginning/end tokens and the
   * one position llama.cpp keeps free (issue 34 item 8b). Absent: the engine does not say.
   */
  embedLimit?: number;
  /** With source 'estimate': how the counts were estimated and why no tokenizer counted them. */
  estimate?: { method: string; margin: string; reason: string };
}

/** What identifies the model an engine runs, for cache keys and manifests. */
export interface EngineIdentity {
  kind: 'local' | 'remote' | 'sim';
  /** Local: SHA-256 of the GGUF file. Remote: `remote:<model>` or `remote:<model>@<revision>` (remoteModelKey). */
  modelKey: string;
  /** Human-readable model name. */
  modelName: string;
  /** Engine settings that change outputs (e.g. batch layout for scoring), as a stable JSON-able object. */
  outputAffectingSettings: Record<string, unknown>;
  /** Versions for the reproducibility manifest (node-llama-cpp, llama.cpp build, GPU backend, server). */
  versions: Record<string, string>;
  /**
   * Set when the identity is incomplete for now (a remote server's GET /models failed): why. The
   * key's parts are still right; `versions` is not complete, so it must not be kept for good.
   */
  provisional?: string;
}

/**
 * Where one call was computed, filled in by the engine while it runs (pass a fresh one per call).
 * For manifests; never part of a result or a cache key, so replicas' results stay identical.
 */
export interface CallReport {
  /** The remote endpoints (base URLs) that answered the call's requests, in order of first use. */
  servedBy: string[];
  /** HTTP attempts made, retries included. */
  attempts: number;
  /**
   * The engine's own time for the call where it measures one (the local worker: from the moment the
   * call had its sequence to its answer, without the time it waited queued), in ms.
   */
  engineMs?: number;
  /**
   * Set by a remote engine when an endpoint that answered this call later failed its weights check
   * (issue 35 item 1: an answer is trusted only between two passing checks): the answer may come
   * from other weights and must not be kept. `onDistrust` (set by the caller) is called then.
   */
  distrusted?: boolean;
  onDistrust?: () => void;
}

export interface Engine {
  identity(): Promise<EngineIdentity>;
  generate(request: GenerateRequest, signal?: AbortSignal, report?: CallReport): Promise<GenerateResult>;
  score(request: ScoreRequest, signal?: AbortSignal, report?: CallReport): Promise<ScoreResult>;
  embed(request: EmbedRequest, signal?: AbortSignal, report?: CallReport): Promise<EmbedResult>;
  /**
   * Token counts (and, with maxTokens, truncations) in this engine's tokens. Deterministic, cheap,
   * never cached; `texts: []` answers `counts: []`. See `TokenizeResult` for the contract.
   */
  tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult>;
  /** Release the model and any process or connection. Idempotent. */
  close(): Promise<void>;
}

/** Thrown by engines. `code` lets the UI and jobs react without parsing messages. */
export type EngineErrorCode =
  | 'model-load-failed'
  | 'engine-crashed'
  | 'unsupported'
  | 'bad-request'
  | 'aborted'
  | 'timeout'
  | 'remote-error';

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
