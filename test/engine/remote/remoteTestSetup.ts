import { fakeTokenize, fakeTokenLogprob } from '../../support/fakeOpenAiServer';
import type { RemoteEngineConfig } from '../../../src-main/engine/remote/remoteEngineConfig';

/** Short waits so retry tests take milliseconds; exact delays (no jitter). */
export const fastRetries = { backoffBaseMs: 1, backoffMaxMs: 5, jitter: false } satisfies Partial<RemoteEngineConfig>;

/**
 * What the fake server's toy model gives `continuation` after `prompt`, computed from the fake's
 * own tokenizer and logprob function: tokens ending after the prompt (a straddling token included).
 */
export function expectedScore(prompt: string, continuation: string): { tokens: string[]; logprobs: number[]; sum: number } {
  const promptLength = [...prompt].length;
  const tokens: string[] = [];
  const logprobs: number[] = [];
  let context = '';
  for (const token of fakeTokenize(prompt + continuation)) {
    if (token.offset + [...token.text].length > promptLength) {
      tokens.push(token.text);
      logprobs.push(fakeTokenLogprob(context, token.text));
    }
    context += token.text;
  }
  return { tokens, logprobs, sum: logprobs.reduce((a, b) => a + b, 0) };
}
