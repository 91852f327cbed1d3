/**
 * Token budgets shared by every engine's `tokenize`:
 * - `estimateTokenCount`, the stated fallback where no tokenizer answers (a remote server without a
 *   tokenize endpoint, or one that failed): an UPPER BOUND, never an average. Byte-level BPE and
 *   SentencePiece with byte fallback never make a token of less than one byte of text, and
 *   SentencePiece may add one space-prefix token, so a text has at most UTF-8 bytes + 1 tokens.
 *   (bytes / 4, the usual rule of thumb, undercounted by 2.7–2.9× on the tiny test model's
 *   tokenizer: prompts cut by it overflowed their budget.) As a whole prompt (`asPrompt`) the
 *   estimate adds a margin for what the server puts around it: ESTIMATE_PROMPT_MARGIN.
 * - `tokenPrefix`, the longest string prefix of a text that a tokenizer's own decoding of its
 *   first n tokens names (decoders may cut characters or normalise spaces, so the decoded text is
 *   matched back onto the original rather than returned as is).
 */
import type { TokenizeRequest, TokenizeResult } from './types';

/** Tokens an estimated whole prompt may carry beyond its text: beginning-of-sequence (text), a chat template (chat). */
export const ESTIMATE_PROMPT_MARGIN = { text: 2, chat: 64 } as const;
export const ESTIMATE_METHOD = 'UTF-8 bytes + 1 per text (an upper bound: no token is shorter than one byte)';

export function estimateTokenCount(text: string): number {
  return Buffer.byteLength(text, 'utf8') + 1;
}

/** The longest prefix of `text` whose estimate is at most `maxTokens`, cut before a space where one is near. */
export function estimatePrefix(text: string, maxTokens: number): string {
  if (estimateTokenCount(text) <= maxTokens) return text;
  const maxBytes = maxTokens - 1;
  // Largest character index whose prefix fits in maxBytes (never splitting a surrogate pair).
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const b = Buffer.byteLength(ch, 'utf8');
    if (bytes + b > maxBytes) break;
    bytes += b;
    end += ch.length;
  }
  const cut = text.slice(0, end);
  const space = cut.search(/\s\S*$/);
  // Prefer a word boundary unless it throws away more than a fifth of the budget.
  return space > 0 && space >= end * 0.8 ? cut.slice(0, space) : cut;
}

/** `tokenize` by the estimate, for engines with no tokenizer; `reason` says why (recorded with the run). */
export function estimateTokenize(request: TokenizeRequest, reason = 'the engine has no tokenizer', contextSize?: number): TokenizeResult {
  const margin = request.asPrompt ? ESTIMATE_PROMPT_MARGIN[request.asPrompt] : 0;
  const counts = request.texts.map((t) => estimateTokenCount(t) + margin);
  const max = request.maxTokens;
  return {
    counts,
    source: 'estimate',
    estimate: { method: ESTIMATE_METHOD, margin: `+${ESTIMATE_PROMPT_MARGIN.text} tokens per text prompt, +${ESTIMATE_PROMPT_MARGIN.chat} per chat prompt`, reason },
    ...(contextSize !== undefined ? { contextSize } : {}),
    ...(max !== undefined ? { truncated: request.texts.map((t) => estimatePrefix(t, max)) } : {}),
  };
}

/**
 * The longest prefix of `text` made of whole tokens from its first `maxTokens`: decode the first
 * k tokens for k = maxTokens, maxTokens − 1, … until the decoding is a string prefix of the text
 * (a cut inside a multi-byte character, or a decoder that adds or drops a leading space, is
 * stepped over). `decode(k)` decodes the text's first k tokens.
 */
export function tokenPrefix(text: string, maxTokens: number, decode: (k: number) => string): string {
  for (let k = maxTokens; k > 0; k--) {
    const cut = matchPrefix(text, decode(k));
    if (cut !== undefined) return cut;
  }
  return '';
}

/** `tokenPrefix` with an asynchronous decoder (a server's /detokenize). */
export async function tokenPrefixAsync(text: string, maxTokens: number, decode: (k: number) => Promise<string>): Promise<string> {
  for (let k = maxTokens; k > 0; k--) {
    const decoded = await decode(k);
    const cut = matchPrefix(text, decoded);
    if (cut !== undefined) return cut;
  }
  return '';
}

/** `decoded` as a prefix of `text`: itself, or with the leading whitespace the decoder dropped or invented set right. */
function matchPrefix(text: string, decoded: string): string | undefined {
  if (text.startsWith(decoded)) return decoded;
  const lead = text.length - text.trimStart().length;
  const body = decoded.trimStart();
  return text.startsWith(body, lead) ? text.slice(0, lead + body.length) : undefined;
}

/**
 * A common cap for texts that must share a room (prompt budgets that cut every document alike):
 * the largest integer c ≥ 0 with Σ min(lengths_i, c) ≤ room (every length when they all fit).
 */
export function waterLevel(lengths: readonly number[], room: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let used = 0;
  for (let i = 0; i < sorted.length; i++) {
    const left = sorted.length - i;
    const v = sorted[i] as number;
    if (used + v * left > room) return Math.max(0, Math.floor((room - used) / left));
    used += v;
  }
  return sorted.length === 0 ? 0 : (sorted[sorted.length - 1] as number);
}
