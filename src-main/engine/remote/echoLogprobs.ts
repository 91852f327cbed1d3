import { EngineError } from '../types';

/** `choices[0].logprobs` of an OpenAI legacy completion. */
export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: Array<number | null>;
  text_offset: number[];
}

export interface ContinuationLogprobs {
  tokens: string[];
  logprobs: number[];
  /** Echoed tokens wholly inside the prompt (a straddling token is not one of them). */
  promptTokens: number;
}

/** Offsets count characters as Python does (code points), not UTF-16 units as JS `length` does. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Picks the continuation's tokens out of an echo+logprobs completion of `prompt + continuation`.
 *
 * `echoedCount` is how many leading tokens are the echoed input (the rest were generated, when
 * the server needed `max_tokens: 1`).
 *
 * The boundary is found from the END of the echoed text: it lies `codePointLength(continuation)`
 * characters before the end of the last echoed token. For a server whose offsets start at 0 this
 * is exactly "text_offset >= prompt length"; anchoring at the end also stays right when the server
 * echoes a BOS token first (vLLM decodes it to `<s>` or `<|begin_of_text|>` and shifts every offset
 * by that many characters) or miscounts a multi-byte character inside the prompt.
 *
 * Boundary rule: a token that straddles the boundary (starts in the prompt, ends in the
 * continuation — e.g. prompt "The cat sa", continuation "t", token " sat") counts as continuation,
 * so its whole log-probability is charged to the continuation and every continuation character is
 * covered by exactly the tokens reported.
 */
export function continuationLogprobs(
  logprobs: CompletionLogprobs,
  echoedCount: number,
  continuation: string,
): ContinuationLogprobs {
  const { tokens, token_logprobs: values, text_offset: offsets } = logprobs;
  const n = tokens.length;
  if (values.length !== n || offsets.length !== n) {
    throw new EngineError('unsupported', 'this server cannot score: logprobs arrays differ in length');
  }
  if (echoedCount < 1 || echoedCount > n) {
    throw new EngineError('unsupported', 'this server cannot score: it did not echo the input tokens with their logprobs');
  }

  const echoedEnd =
    echoedCount < n ? offsets[echoedCount]! : offsets[echoedCount - 1]! + codePointLength(tokens[echoedCount - 1]!);
  const boundary = echoedEnd - codePointLength(continuation);
  if (boundary < 0) {
    throw new EngineError('unsupported', 'this server cannot score: the echoed text is shorter than the continuation');
  }

  const out: ContinuationLogprobs = { tokens: [], logprobs: [], promptTokens: 0 };
  for (let i = 0; i < echoedCount; i++) {
    const end = i + 1 < echoedCount ? offsets[i + 1]! : echoedEnd;
    if (end <= boundary) {
      out.promptTokens++;
      continue;
    }
    const value = values[i];
    if (typeof value !== 'number') {
      if (i === 0) {
        throw new EngineError('bad-request', 'the first continuation token has no log-probability: nothing precedes it; give a non-empty prompt');
      }
      throw new EngineError('unsupported', `this server cannot score: no log-probability for echoed token ${i}`);
    }
    out.tokens.push(tokens[i]!);
    out.logprobs.push(value);
  }
  return out;
}
