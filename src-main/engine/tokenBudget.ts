/**
 * Token budgets shared by every engine's `tokenize`:
 * - `estimateTokenCount`, the stated fallback where no tokenizer is available (a remote server
 *   without a tokenize endpoint): UTF-8 bytes / 4, rounded up — the usual rule of thumb for
 *   BPE/SentencePiece tokenizers on English text. It errs on the long side for plain English words,
 *   so a budget cut by it rarely overflows the real one.
 * - `tokenPrefix`, the longest string prefix of a text that a tokenizer's own decoding of its
 *   first n tokens names (decoders may cut characters or normalise spaces, so the decoded text is
 *   matched back onto the original rather than returned as is).
 */
import type { TokenizeRequest, TokenizeResult } from './types';

export function estimateTokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** The longest prefix of `text` whose estimate is at most `maxTokens`, cut before a space where one is near. */
export function estimatePrefix(text: string, maxTokens: number): string {
  if (estimateTokenCount(text) <= maxTokens) return text;
  const maxBytes = maxTokens * 4;
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

/** `tokenize` by the estimate, for engines with no tokenizer. */
export function estimateTokenize(request: TokenizeRequest): TokenizeResult {
  const counts = request.texts.map(estimateTokenCount);
  const max = request.maxTokens;
  return { counts, source: 'estimate', ...(max !== undefined ? { truncated: request.texts.map((t) => estimatePrefix(t, max)) } : {}) };
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
