/**
 * Messages between `LocalEngine` (parent) and its worker process. Every request carries an id;
 * the worker answers each id exactly once with `result` or `error`, and may send `progress`
 * before that. `cancel` names the id to stop. The channel is Node's IPC (JSON), so payloads are
 * plain data.
 */
import type {
  EmbedRequest,
  EmbedResult,
  EngineErrorCode,
  GenerateRequest,
  GenerateResult,
  ScoreRequest,
  ScoreResult,
  TokenizeRequest,
  TokenizeResult,
} from '../types';
import type { LocalEngineSettings } from './settings';
import type { ThreadMeasurement, TuneRequest, TuneTrial } from './threadTuning';

/**
 * How the worker turns a prompt into tokens (worker/tokens.ts): the model's own rule, SentencePiece
 * space prefix included, as llama.cpp's server does. Part of the local engine's cache identity, so
 * results cached under the earlier rule (no prefix, one token fewer) are not reused as if equal.
 */
export const TOKENIZATION = 'model-space-prefix';

/**
 * How the worker generates from a plain prompt (worker/generate.ts): the whole prompt is evaluated,
 * whatever share of the context it fills. Before this rule node-llama-cpp's LlamaCompletion cut the
 * start of any prompt longer than nine tenths of the context (room it keeps for a context shift),
 * so such calls gave other outputs. Part of the local engine's cache identity, so outputs cached by
 * the earlier path are never mixed with new ones.
 */
export const GENERATION = 'whole-prompt';

/**
 * How the worker tokenizes chat messages (worker/generate.ts, wholeTextChatWrapper): the chat
 * template's rendered text tokenized as one text between builtin special tokens, as llama.cpp's
 * server does. node-llama-cpp's own piecewise tokenization gave other tokens for some messages
 * (a space-prefix token before a message starting with a newline). Part of the cache identity so
 * chat outputs cached by the earlier rule are not reused as equal.
 */
export const CHAT_TOKENIZATION = 'whole-text';

export interface TuneTrialsResult {
  trials: TuneTrial[];
  /** The trial shape actually used (the prompt is shortened to fit a small context). */
  promptTokens: number;
  decodeTokens: number;
}

export interface ThreadsRequest {
  threads: number;
  adaptive: boolean;
  measurements?: ThreadMeasurement[] | undefined;
}

export interface LoadRequest {
  modelPath: string;
  settings: LocalEngineSettings;
  /**
   * node-llama-cpp's binary self-test (worker/bindingTests.ts): 'cached' (the default) skips it for a
   * binary whose test passed before; 'always' runs it (the parent's second load after a load that
   * skipped it failed).
   */
  bindingTests?: 'cached' | 'always';
}

/** What the worker learned while loading, for the engine identity and the manifest. */
export interface LoadResult {
  /** GPU backend actually used, or false for CPU. */
  gpu: string | false;
  gpuLayers: number;
  /** The thread count in force (fixed) or the most to use (adaptive), and which. */
  threads: number;
  adaptiveThreads: boolean;
  /** Logical CPUs this process may use. */
  usableCores: number;
  contextSize: number;
  trainContextSize: number;
  embeddingLength: number;
  versions: Record<string, string>;
}

/** The operations and the payloads they carry each way. */
export interface WorkerOps {
  load: { request: LoadRequest; result: LoadResult };
  generate: { request: GenerateRequest; result: GenerateResult };
  score: { request: ScoreRequest; result: ScoreResult };
  embed: { request: EmbedRequest; result: EmbedResult };
  tokenize: { request: TokenizeRequest; result: TokenizeResult };
  tune: { request: TuneRequest; result: TuneTrialsResult };
  threads: { request: ThreadsRequest; result: { threads: number; adaptive: boolean } };
}

export type WorkerOp = keyof WorkerOps;

export type ParentMessage =
  | { [K in WorkerOp]: { type: 'call'; id: number; op: K; request: WorkerOps[K]['request']; stream?: true } }[WorkerOp]
  | { type: 'cancel'; id: number }
  | { type: 'shutdown' };

export interface WorkerProgress {
  /** Model loading: fraction in [0, 1]. */
  load?: number;
  /** Model loading: a binary's self-test was skipped on its record (sent before the binary loads). */
  bindingTestSkipped?: string;
  /** Model loading: the binary whose test was skipped loaded with the GPU type its test saw (a later failure is not its doing). */
  bindingTestConfirmed?: true;
  /** Generation: tokens produced so far. */
  tokens?: number;
  /** Generation: the text so far, sent only for a call made with `stream` (Try it, issue 17 item 4). */
  text?: string;
}

export type WorkerMessage =
  /** `ms`: the worker's time for a generate or score call from the moment it had its sequence (not counting time queued). */
  | { type: 'result'; id: number; result: unknown; ms?: number }
  | { type: 'error'; id: number; code: EngineErrorCode; message: string }
  | { type: 'progress'; id: number; progress: WorkerProgress }
  /** `source`: 'llama.cpp' for node-llama-cpp's logger, absent for the worker's own lines. */
  | { type: 'log'; level: string; message: string; source?: string };
