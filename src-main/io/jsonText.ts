/**
 * JSON.parse for user files: a syntax error becomes a one-line DataError placed at its line and
 * column when the engine reports a position (V8's echo of the source text is dropped).
 */
import { DataError } from '../core/errors';

/** The deepest nesting of arrays and objects any reader accepts (issue 15 item 6). */
export const MAX_JSON_DEPTH = 256;

/**
 * Throws a DataError naming the line (counted from `firstLine`) where `text` nests arrays and
 * objects deeper than MAX_JSON_DEPTH, escapes a lone surrogate (`\ud800` unpaired, which
 * SQLite would store as U+FFFD), or writes a number beyond a double's range (JSON.parse gives
 * Infinity, which canonical JSON and cache keys refuse). JSON.parse itself copes, but every recursive walk after it
 * (validation, canonical JSON, stringify) would end in "Maximum call stack size exceeded" with no
 * location. One linear pass; brackets inside strings do not count.
 */
export function checkJsonDepth(text: string, file: string | undefined, firstLine = 1): void {
  let depth = 0;
  let inString = false;
  let line = firstLine;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (inString) {
      if (c === 92) {
        // An escaped lone surrogate (\ud800 without its pair) would be stored as U+FFFD: refuse it.
        if (text.charCodeAt(i + 1) === 117) {
          const unit = parseInt(text.slice(i + 2, i + 6), 16);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const next = /^\\u([0-9a-fA-F]{4})/.exec(text.slice(i + 6, i + 12));
            const low = next ? parseInt(next[1]!, 16) : -1;
            if (low < 0xdc00 || low > 0xdfff) throw loneSurrogate(text.slice(i, i + 6), file, line);
            i += 11;
            continue;
          }
          if (unit >= 0xdc00 && unit <= 0xdfff) throw loneSurrogate(text.slice(i, i + 6), file, line);
        }
        i++; // skip the escaped character
      } else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 45 || (c >= 48 && c <= 57)) {
      // A number too large for a double (1e400) parses as Infinity, which no JSON can write back.
      let end = i + 1;
      while (end < text.length && /[0-9eE.+-]/.test(text[end]!)) end++;
      const literal = text.slice(i, end);
      if (!Number.isFinite(Number(literal))) throw new DataError(`the number ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} is out of range (larger than a double holds)`, { ...(file !== undefined ? { file } : {}), line });
      i = end - 1;
    } else if (c === 91 || c === 123) {
      if (++depth > MAX_JSON_DEPTH) throw new DataError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, { ...(file !== undefined ? { file } : {}), line });
    } else if (c === 93 || c === 125) depth--;
  }
}

function loneSurrogate(escape: string, file: string | undefined, line: number): DataError {
  return new DataError(`${escape} is half of a UTF-16 surrogate pair without its other half (not a character); fix the text`, { ...(file !== undefined ? { file } : {}), line });
}

export function parseJsonText(text: string, file: string): unknown {
  checkJsonDepth(text, file);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '')
      // V8 quotes the offending character raw: a newline or tab would break the one-line error.
      .replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1));
    if (!at) throw new DataError(`invalid JSON: ${reason}`, { file });
    const pos = Number(at[1]);
    const before = text.slice(0, pos);
    throw new DataError(`invalid JSON: ${reason} (column ${pos - before.lastIndexOf('\n')})`, { file, line: before.split('\n').length });
  }
}
