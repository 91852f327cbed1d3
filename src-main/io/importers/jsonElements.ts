/**
 * Streams the elements of a JSON document's top-level container without holding the whole file:
 * the items of a top-level array (`[{...}, {...}]`, LaMP questions, a JSON corpus), or the members
 * of a top-level object (`{"task": ..., "golds": [...]}`, LaMP outputs) as `"key": value` text.
 * Each element comes with the line it starts on; `parseElement` turns a JSON syntax error into a
 * DataError on the exact line inside the element.
 *
 * The splitter only tracks strings, escapes and bracket depth; the JSON itself is checked by
 * `JSON.parse` on each element.
 */
import { DataError } from '../../core/errors';
import type { NumberedLine } from '../lines';
import { checkJsonDepth } from '../jsonText';

export interface JsonElement {
  line: number;
  /** The element's JSON text (for object members: `"key": value`). */
  text: string;
}

export type JsonContainer = '[' | '{';

export interface JsonElementStream {
  /** The top-level container, known after the first element (or the end). */
  container(): JsonContainer | undefined;
  elements: AsyncGenerator<JsonElement>;
}

export function streamJsonElements(lines: AsyncIterable<NumberedLine>, file: string): JsonElementStream {
  let top: JsonContainer | undefined;
  async function* run(): AsyncGenerator<JsonElement> {
    let depth = 0; // 1 = inside the top-level container
    let inString = false;
    let escaped = false;
    let closed = false;
    let buf = '';
    let bufLine = 0;
    let lastLine = 0;
    let pendingComma = false; // a ',' at depth 1 needs an element after it

    for await (const { line, text } of lines) {
      lastLine = line;
      let segStart = 0;
      const flushSegment = (end: number) => {
        if (depth >= 1 && end > segStart) buf += text.slice(segStart, end);
      };
      for (let i = 0; i < text.length; i++) {
        const c = text[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
          continue;
        }
        if (closed) {
          if (!isSpace(c)) throw new DataError(`unexpected ${JSON.stringify(c)} after the end of the JSON ${top === '[' ? 'array' : 'object'}`, { file, line });
          continue;
        }
        if (depth === 0) {
          if (isSpace(c)) continue;
          if (c !== '[' && c !== '{') throw new DataError(`expected a JSON array or object, found ${JSON.stringify(c)}`, { file, line });
          top = c;
          depth = 1;
          segStart = i + 1;
          continue;
        }
        if (depth === 1) {
          if (c === ',' || c === ']' || c === '}') {
            const closes = c !== ',';
            if (closes && c !== (top === '[' ? ']' : '}')) throw new DataError(`mismatched ${JSON.stringify(c)}`, { file, line });
            flushSegment(i);
            const trimmed = buf.trim();
            if (trimmed !== '') {
              yield { line: bufLine, text: trimmed };
            } else if (c === ',' || pendingComma) {
              throw new DataError(c === ',' ? 'unexpected ",": an element is missing' : `unexpected ${JSON.stringify(c)} after a comma`, { file, line });
            }
            pendingComma = c === ',';
            buf = '';
            bufLine = 0;
            segStart = i + 1;
            if (closes) {
              depth = 0;
              closed = true;
            }
            continue;
          }
          if (!isSpace(c) && bufLine === 0) bufLine = line;
        }
        if (c === '"') inString = true;
        else if (c === '[' || c === '{') depth++;
        else if (c === ']' || c === '}') depth--;
      }
      flushSegment(text.length);
      if (depth >= 1 && !closed) buf += '\n';
    }
    if (top === undefined) throw new DataError('the file is empty (expected a JSON array or object)', { file, line: lastLine || undefined });
    if (!closed) throw new DataError(`the JSON ${top === '[' ? 'array' : 'object'} is not closed (the file ends early)`, { file, line: lastLine });
  }
  return { container: () => top, elements: run() };
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

/** JSON.parse one element; a syntax error names the line inside the element where it is. */
export function parseElement(el: JsonElement, file: string, asMember = false): unknown {
  const text = asMember ? `{${el.text}}` : el.text;
  checkJsonDepth(text, file, el.line);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw jsonSyntaxError(err, text, file, el.line, asMember ? 1 : 0);
  }
}

/** A DataError for a JSON.parse failure on `text` that starts at `firstLine` of `file`. */
export function jsonSyntaxError(err: unknown, text: string, file: string, firstLine: number, offset = 0): DataError {
  const message = (err as Error).message;
  const m = /position (\d+)/.exec(message);
  let line = firstLine;
  if (m) {
    const pos = Math.max(0, Number(m[1]) - offset);
    const inner = offset ? text.slice(offset) : text;
    for (let i = 0; i < Math.min(pos, inner.length); i++) if (inner.charCodeAt(i) === 10) line++;
  }
  const reason = message.replace(/^JSON\.parse: /, '').replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, '').replace(/, (?:\.\.\.|").*is not valid JSON$/s, '');
  return new DataError(`invalid JSON: ${reason}`, { file, line });
}
