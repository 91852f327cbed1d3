/**
 * Maps the tokens of a scored continuation (their texts as the engine reports them) back onto
 * character ranges of the continuation, so the log-probabilities of one pass can be split into the
 * passage segments and the question segment of Eq. 3.
 *
 * A token belongs to the segment that contains its anchor: the first non-whitespace character of
 * the token (its start when it is all whitespace), so " What" belongs to the query that starts at
 * "W" and a separator "\n" to no segment.
 *
 * Token texts normally concatenate to the continuation. Byte-fallback tokens do not: a character
 * outside the vocabulary becomes one token per UTF-8 byte, each rendered as "�" or "" on its own.
 * Such a token is matched as one byte of the character at the current position (a character of b
 * bytes takes b tokens). If the texts still cannot be matched (e.g. a byte-level BPE token that
 * mixes part of a character with other text), the positions are estimated by scaling the
 * cumulative token-text lengths to the continuation's length, and `exact` is false.
 */
export interface TokenSpan {
  start: number;
  end: number;
}

export interface Alignment {
  spans: TokenSpan[];
  exact: boolean;
}

function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

export function alignTokens(text: string, tokens: readonly string[]): Alignment {
  const spans: TokenSpan[] = [];
  let pos = 0;
  let pendingBytes = 0;
  let charStart = 0;
  for (const t of tokens) {
    if (pendingBytes > 0) {
      pendingBytes--;
      const end = pendingBytes === 0 ? charStart + (text.codePointAt(charStart)! > 0xffff ? 2 : 1) : charStart;
      spans.push({ start: charStart, end });
      if (pendingBytes === 0) pos = end;
      continue;
    }
    if (t.length > 0 && text.startsWith(t, pos)) {
      spans.push({ start: pos, end: pos + t.length });
      pos += t.length;
      continue;
    }
    if (pos < text.length && (t === '' || t.includes('\uFFFD'))) {
      const cp = text.codePointAt(pos)!;
      charStart = pos;
      pendingBytes = utf8Length(cp) - 1;
      const width = cp > 0xffff ? 2 : 1;
      spans.push({ start: pos, end: pendingBytes === 0 ? pos + width : pos });
      if (pendingBytes === 0) pos += width;
      continue;
    }
    return { spans: proportional(text, tokens), exact: false };
  }
  if (pos !== text.length || pendingBytes > 0) return { spans: proportional(text, tokens), exact: false };
  return { spans, exact: true };
}

function proportional(text: string, tokens: readonly string[]): TokenSpan[] {
  const total = tokens.reduce((a, t) => a + t.length, 0);
  const scale = total === 0 ? 0 : text.length / total;
  let acc = 0;
  return tokens.map((t) => {
    const start = Math.min(text.length, Math.round(acc * scale));
    acc += t.length;
    return { start, end: Math.min(text.length, Math.max(start, Math.round(acc * scale))) };
  });
}

/** The anchor of a token span: its first non-whitespace character, else its start. */
function anchor(text: string, span: TokenSpan): number {
  for (let i = span.start; i < span.end; i++) if (!/\s/.test(text[i]!)) return i;
  return span.start;
}

/** Log-probabilities of the tokens anchored in each segment (segments must not overlap). */
export function segmentLogprobs(text: string, tokens: readonly string[], logprobs: readonly number[], segments: readonly TokenSpan[]): { perSegment: number[][]; exact: boolean } {
  if (tokens.length !== logprobs.length) throw new RangeError(`${tokens.length} tokens but ${logprobs.length} log-probabilities`);
  const { spans, exact } = alignTokens(text, tokens);
  const perSegment = segments.map(() => [] as number[]);
  spans.forEach((span, i) => {
    const at = anchor(text, span);
    const k = segments.findIndex((s) => at >= s.start && at < s.end);
    if (k >= 0) perSegment[k]!.push(logprobs[i]!);
  });
  return { perSegment, exact };
}
