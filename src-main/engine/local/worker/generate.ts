/**
 * Text generation in one context sequence: a plain prompt through LlamaCompletion, chat messages
 * through LlamaChat with the model's own chat template (node-llama-cpp resolves a wrapper from
 * `tokenizer.chat_template`). Greedy when temperature is 0, otherwise sampled with the request's
 * seed. Repeat penalty is off unless asked for (node-llama-cpp enables one by default, which
 * would make "greedy" not greedy). A prompt that does not fit with `maxTokens` is refused rather
 * than silently shortened. Cancelling returns the text so far with finishReason 'aborted'.
 *
 * The text of a plain-prompt completion is the generated tokens detokenized after the prompt's
 * last tokens, so prompt + text reads as the model wrote it: LlamaCompletion's own response drops
 * the leading space of the first token (" that" comes back as "that").
 *
 * Stop strings are matched here on that text rather than with node-llama-cpp's
 * `customStopTriggers`, which drop the whole token a stop string starts in (its leading space
 * too) and leave it uncounted. Here the text ends exactly before the stop string, and
 * completionTokens counts every token generated.
 */
import {
  LlamaChat,
  LlamaCompletion,
  LlamaText,
  SpecialToken,
  SpecialTokensText,
  type ChatHistoryItem,
  type ChatWrapper,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import { EngineError, type FinishReason, type GenerateRequest, type GenerateResult } from '../../types';
import { beginningToken, promptTextTokens } from './tokens';

type StopReason = 'eogToken' | 'stopGenerationTrigger' | 'maxTokens' | 'abort' | 'customStopTrigger' | 'functionCalls';

const FINISH: Record<StopReason, FinishReason> = {
  eogToken: 'stop',
  stopGenerationTrigger: 'stop',
  functionCalls: 'stop',
  maxTokens: 'length',
  customStopTrigger: 'stopString',
  abort: 'aborted',
};

export interface GenerateEnv {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  grammar: LlamaGrammar | undefined;
  /** Resolved once per model: resolving it from the template costs about a second. */
  chatWrapper: () => ChatWrapper;
  signal: AbortSignal;
  /** Streaming: the text so far and the tokens generated, after each token (issue 17 item 4). */
  onText?: (text: string, tokens: number) => void;
}

export async function generateInSequence(req: GenerateRequest, env: GenerateEnv): Promise<GenerateResult> {
  const { model, sequence, grammar, signal } = env;
  const s = req.sampling;
  const stops = new StopStrings(req.stop ?? []);
  const options = {
    maxTokens: req.maxTokens,
    temperature: s.temperature,
    ...(s.temperature > 0 ? { seed: s.seed, topK: s.topK, topP: s.topP, minP: s.minP } : {}),
    repeatPenalty: s.repeatPenalty !== undefined && s.repeatPenalty !== 1 ? { penalty: s.repeatPenalty } : (false as const),
    ...(grammar ? { grammar } : {}),
    signal: AbortSignal.any([signal, stops.signal]),
    stopOnAbortSignal: true,
  };
  const result = (text: string, stopReason: StopReason, promptTokens: number, completionTokens: number): GenerateResult => {
    const cut = stops.textBeforeStop();
    if (cut !== undefined) return { text: cut, promptTokens, completionTokens, finishReason: 'stopString' };
    return { text, promptTokens, completionTokens, finishReason: FINISH[stopReason] };
  };

  if (req.prompt !== undefined) {
    const input = promptTextTokens(model, req.prompt);
    const promptTokens = input.length + (beginningToken(model) === null ? 0 : 1);
    checkFits(promptTokens, req.maxTokens, sequence.contextSize);
    const generated: Token[] = [];
    const context = input.slice(-8);
    const textSoFar = (): string => model.detokenize(generated, false, context);
    const completion = new LlamaCompletion({ contextSequence: sequence });
    try {
      const { metadata } = await completion.generateCompletionWithMeta(input, {
        ...options,
        disableContextShift: true,
        // LlamaCompletion keeps room for a context shift of contextShiftSize tokens (default: a tenth of
        // the context) by cutting the prompt's start before it evaluates anything, even with the shift
        // disabled: a prompt of 462 tokens in a 512-token context lost its first token after BOS, silently.
        // checkFits above already guarantees prompt + maxTokens fit, so no room is kept and nothing is cut.
        contextShiftSize: 0,
        onToken: (tokens) => {
          generated.push(...tokens);
          if (stops.active || env.onText) {
            const text = textSoFar();
            if (stops.active) stops.check(text);
            env.onText?.(text, generated.length);
          }
        },
      });
      let text = textSoFar();
      if (grammar?.trimWhitespaceSuffix) text = text.trimEnd();
      return result(text, metadata.stopReason, promptTokens, generated.length);
    } finally {
      completion.dispose({ disposeSequence: false });
    }
  }

  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: env.chatWrapper() });
  try {
    const history = toChatHistory(req);
    const promptTokens = chatPromptTokens(model, chat.chatWrapper, req);
    checkFits(promptTokens, req.maxTokens, sequence.contextSize);
    let completionTokens = 0;
    let streamed = '';
    const res = await chat.generateResponse(history, {
      ...options,
      onToken: (tokens) => {
        completionTokens += tokens.length;
      },
      onTextChunk: (chunk) => {
        streamed += chunk;
        if (stops.active) stops.check(streamed);
        env.onText?.(streamed, completionTokens);
      },
    });
    return result(res.response, res.metadata.stopReason as StopReason, promptTokens, completionTokens);
  } finally {
    chat.dispose({ disposeSequence: false });
  }
}

/** Tokens the chat wrapper's context for `req.messages` has (what generate() evaluates; the engine's tokenize with asPrompt 'chat'). */
export function chatPromptTokens(model: LlamaModel, wrapper: ChatWrapper, req: GenerateRequest): number {
  const { contextText } = wrapper.generateContextState({ chatHistory: toChatHistory(req) });
  return contextText.tokenize(model.tokenizer).length;
}

/**
 * The model's chat wrapper, its rendered prompt tokenized as one text between the builtin special
 * tokens (BOS), special-token text parsed: the tokens llama.cpp's server evaluates for the same
 * messages (its template rendered, then tokenized with parse_special) and what a Hugging Face
 * tokenizer gives for apply_chat_template's text. node-llama-cpp tokenizes each piece of the context
 * separately (the template's special-token text, then each message with its "trimLeadingSpace"
 * workaround), which puts an SPM space-prefix token before a message that starts with a newline and
 * cannot merge tokens across a piece's edge: 36 of 60 random conversations on the tiny model had
 * other tokens than the server's; with this, 60 of 60 (issue 24 item 2, sampledChatParity.test.ts).
 * As on the server, special-token text inside a message (e.g. "<|im_end|>") is read as that token.
 */
export function wholeTextChatWrapper(inner: ChatWrapper): ChatWrapper {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'generateContextState') return Reflect.get(target, prop, receiver) as unknown;
      return (...args: Parameters<ChatWrapper['generateContextState']>) => {
        const state = target.generateContextState(...args);
        return { ...state, contextText: wholeText(state.contextText) };
      };
    },
  });
}

/** Runs of text and special-token text between builtin special tokens, joined into one special-token text each. */
function wholeText(text: LlamaText): LlamaText {
  const out: Array<SpecialToken | SpecialTokensText> = [];
  let run = '';
  const flush = () => {
    if (run !== '') out.push(new SpecialTokensText(run));
    run = '';
  };
  for (const value of text.values) {
    if (value instanceof SpecialToken) {
      flush();
      out.push(value);
    } else run += typeof value === 'string' ? value : value.value;
  }
  flush();
  return LlamaText(out);
}

/** Chat messages as node-llama-cpp history; a trailing assistant message is continued, not answered. */
function toChatHistory(req: GenerateRequest): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = (req.messages ?? []).map((m) =>
    m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content },
  );
  if (history[history.length - 1]?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}

function checkFits(promptTokens: number, maxTokens: number, contextSize: number): void {
  if (promptTokens + maxTokens > contextSize) {
    throw new EngineError(
      'bad-request',
      `the prompt (${promptTokens} tokens) plus maxTokens (${maxTokens}) exceeds the context size (${contextSize} tokens)`,
    );
  }
}

/** Watches the growing text for the first stop string and stops the generation when it appears. */
class StopStrings {
  private readonly controller = new AbortController();
  private text = '';
  private cut: number | undefined;

  constructor(private readonly stops: readonly string[]) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get active(): boolean {
    return this.stops.length > 0 && this.cut === undefined;
  }

  check(text: string): void {
    let first: number | undefined;
    for (const stop of this.stops) {
      const i = text.indexOf(stop);
      if (i >= 0 && (first === undefined || i < first)) first = i;
    }
    if (first === undefined) return;
    this.cut = first;
    this.text = text;
    this.controller.abort();
  }

  /** The text before the stop string, if one was seen. */
  textBeforeStop(): string | undefined {
    return this.cut === undefined ? undefined : this.text.slice(0, this.cut);
  }
}
