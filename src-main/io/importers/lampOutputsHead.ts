/**
 * The head of a LaMP outputs file (`{"task": "LaMP_2", "golds": [{"id", "output"}, ...]}`) read incrementally, for a
 * preview (collections.previewFile, issue 36 item 2): the task and the first `max` golds, each parsed and checked as
 * the import checks it, without parsing the `golds` array whole. A preview of an upload gets only the file's first
 * 256 KB, cut anywhere (inside `golds`, inside a gold, inside a string); a path preview stops reading once it has what
 * it shows. The import (lampImporter.ts) still reads and checks the whole file.
 *
 * A small scanner over the lines: it follows the top-level object's members, skips the value of a member other than
 * `task` and `golds` (tracking strings, escapes and nesting only), and hands each element of `golds` to JSON.parse as
 * soon as it ends. At the end of what was read:
 *  - the object closed: the task (if any) and the golds read; no `golds` member is an error, as in the import;
 *  - the object not closed (a cut head, or a file that ends early): the golds read before the cut; a cut before the
 *    first complete gold is an error naming where the text ends.
 * A text that is not of this shape is refused naming the line, the column and the field. No error quotes the file:
 * values are described by their JSON type only (a credentials file read as LaMP must not come back in a message).
 */
import { DataError } from '../../core/errors';
import { readId } from './columnMapping';
import { jsonSyntaxError, parseElement } from './jsonElements';
import { lampTaskByName, type LampTask } from './lampTasks';
import type { JsonObject } from './records';
import type { TextSource } from './source';

export interface LampOutputsHead {
  task?: LampTask;
  golds: { id: string; output: string; line: number }[];
  /** The top-level object was closed within what was read (false: a head cut short). */
  complete: boolean;
}

type State =
  | 'start' // before '{'
  | 'key' // expecting a member name (or '}' right after '{')
  | 'keyString' // inside a member name
  | 'colon'
  | 'value' // expecting a member's value
  | 'skip' // inside a value other than golds (task captured)
  | 'golds' // inside the golds array, between elements
  | 'gold' // inside one element of golds
  | 'after' // after a member's value: ',' or '}'
  | 'closed';

/** Reads the task and at most `max` golds from the head of `source` (see the header). */
export async function readLampOutputsHead(source: TextSource, max: number): Promise<LampOutputsHead> {
  const file = source.name;
  const golds: LampOutputsHead['golds'] = [];
  const ids = new Map<string, number>();
  let task: LampTask | undefined;
  let sawGolds = false;

  let state: State = 'start';
  let key = '';
  let keyRaw = '';
  let memberAfterComma = false; // a ',' between members needs a member after it
  let elementAfterComma = false; // a ',' in golds needs an element after it
  // Inside a value (skip) or a gold element: string and nesting tracking.
  let inString = false;
  let escaped = false;
  let depth = 0;
  let buf = '';
  let bufLine = 0;
  let elementText = false; // the current value or gold element has a non-space character
  let valueEnded = false; // the current value or gold element is complete (only ',' and the closing bracket may follow)
  /** A value (or a gold element) starts on `atLine`: nothing read of it yet. */
  const beginValue = (atLine: number): void => {
    buf = '';
    elementText = false;
    valueEnded = false;
    bufLine = atLine;
    inString = false;
    escaped = false;
    depth = 0;
  };
  let capture = false;
  let lastLine = 0;
  let lastCol = 0;

  const at = (line: number, col: number, reason: string, field?: string): DataError =>
    new DataError(`${reason} (column ${col})`, { file, line, ...(field !== undefined ? { field } : {}) });

  const finishTask = (): void => {
    let value: unknown;
    try {
      value = JSON.parse(buf);
    } catch (err) {
      const e = jsonSyntaxError(err, buf, file, bufLine);
      throw new DataError(e.reason, { file, line: e.line, field: 'task' });
    }
    task = typeof value === 'string' ? lampTaskByName(value) : undefined;
    if (!task) throw new DataError(`not a LaMP task (LaMP_1 … LaMP_7)${typeof value === 'string' ? '' : `: got ${jsonType(value)}`}`, { file, line: bufLine, field: 'task' });
  };

  const finishGold = (): void => {
    const i = golds.length;
    const value = parseElement({ line: bufLine, text: buf }, file);
    const where = { file, line: bufLine };
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError(`expected {id, output}, got ${jsonType(value)}`, { ...where, field: `golds[${i}]` });
    const o = value as JsonObject;
    if (o.id !== undefined && o.id !== null && typeof o.id !== 'string' && typeof o.id !== 'number') {
      throw new DataError(`expected a string or a number, got ${jsonType(o.id)}`, { ...where, field: `golds[${i}].id` });
    }
    const id = readId(o.id, `golds[${i}].id`, where);
    if (typeof o.output !== 'string') throw new DataError(o.output === undefined ? 'missing' : `expected a string, got ${jsonType(o.output)}`, { ...where, field: `golds[${i}].output` });
    const first = ids.get(id);
    if (first !== undefined) throw new DataError(`duplicate gold output for golds[${i}].id (first on line ${first})`, { ...where, field: `golds[${i}].id` });
    ids.set(id, bufLine);
    golds.push({ id, output: o.output, line: bufLine });
  };

  /** Enough read: the golds shown, and the task (which may come after golds) or the end. */
  const enough = (): boolean => golds.length >= max && task !== undefined;

  outer: for await (const { line, text } of source.lines()) {
    lastLine = line;
    const chars = `${text}\n`;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      const col = i + 1;
      lastCol = col;
      switch (state) {
        case 'start':
          if (isSpace(c)) continue;
          if (c !== '{') throw at(line, col, `expected LaMP outputs: a JSON object {task, golds}, found ${charType(c)}`);
          state = 'key';
          continue;
        case 'key':
          if (isSpace(c)) continue;
          if (c === '"') {
            state = 'keyString';
            keyRaw = '';
            memberAfterComma = false;
            continue;
          }
          if (c === '}' && !memberAfterComma) {
            state = 'closed';
            break outer;
          }
          throw at(line, col, `expected a member name of the outputs object, found ${charType(c)}`);
        case 'keyString':
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') {
            try {
              key = JSON.parse(`"${keyRaw}"`) as string;
            } catch {
              throw at(line, col, 'invalid JSON in a member name');
            }
            state = 'colon';
            continue;
          } else if (c === '\n') throw at(line, col, 'a member name runs past the end of the line');
          keyRaw += c;
          continue;
        case 'colon':
          if (isSpace(c)) continue;
          if (c !== ':') throw at(line, col, `expected ":" after a member name, found ${charType(c)}`);
          state = 'value';
          continue;
        case 'value':
          if (isSpace(c)) continue;
          if (key === 'golds') {
            if (c !== '[') throw at(line, col, `expected a list of {id, output}, found ${charType(c)}`, 'golds');
            sawGolds = true;
            state = 'golds';
            elementAfterComma = false;
            continue;
          }
          state = 'skip';
          capture = key === 'task';
          beginValue(line);
          i--; // the value's first character is read in 'skip'
          continue;
        case 'skip':
        case 'gold': {
          const ends = depth === 0 && (c === ',' || c === '}' || c === ']');
          if (!inString && valueEnded && !isSpace(c) && !ends) {
            throw state === 'skip'
              ? at(line, col, `expected "," or "}" after a member of the outputs object, found ${charType(c)}`)
              : at(line, col, `expected "," or "]" after a gold, found ${charType(c)}`, 'golds');
          }
          if (inString) {
            if (escaped) escaped = false;
            else if (c === '\\') escaped = true;
            else if (c === '"') {
              inString = false;
              if (depth === 0) valueEnded = true;
            }
          } else if (c === '"') inString = true;
          else if (c === '[' || c === '{') depth++;
          else if ((c === ']' || c === '}') && depth > 0) {
            if (--depth === 0) valueEnded = true;
          } else if (depth === 0 && isSpace(c) && elementText) valueEnded = true;
          else if (depth === 0 && (c === ',' || c === '}' || c === ']')) {
            // The end of the value (skip) or of the element (gold).
            if (state === 'skip') {
              if (c === ']') throw at(line, col, 'unexpected "]" in the outputs object');
              if (!elementText) throw at(line, col, `a member of the outputs object has no value, found ${charType(c)}`);
              if (capture) finishTask();
              buf = '';
              state = 'after';
              i--;
              if (enough()) break outer;
              continue;
            }
            if (c === '}') throw at(line, col, 'unexpected "}" in the golds list', 'golds');
            if (!elementText) throw at(line, col, 'unexpected "," in the golds list: an element is missing', 'golds');
            if (golds.length < max) finishGold();
            buf = '';
            state = 'golds';
            elementAfterComma = c === ',';
            if (c === ']') state = 'after';
            if (enough()) break outer;
            continue;
          }
          if (!isSpace(c)) elementText = true;
          if ((state === 'gold' && golds.length < max) || capture) buf += c;
          continue;
        }
        case 'golds':
          if (isSpace(c)) continue;
          if (c === ']') {
            if (elementAfterComma) throw at(line, col, 'unexpected "]" after a comma', 'golds');
            state = 'after';
            if (enough()) break outer;
            continue;
          }
          if (c === ',') throw at(line, col, 'unexpected "," in the golds list: an element is missing', 'golds');
          state = 'gold';
          beginValue(line);
          i--;
          continue;
        case 'after':
          if (isSpace(c)) continue;
          if (c === ',') {
            state = 'key';
            memberAfterComma = true;
            continue;
          }
          if (c === '}') {
            state = 'closed';
            break outer;
          }
          throw at(line, col, `expected "," or "}" after a member of the outputs object, found ${charType(c)}`);
      }
    }
  }

  if (state === 'start') throw new DataError('the file is empty (expected LaMP outputs: a JSON object {task, golds})', { file });
  const complete = state === 'closed';
  if (complete && !sawGolds) throw new DataError('missing', { file, field: 'golds' });
  if (!complete && golds.length === 0 && !enough()) {
    throw new DataError(
      `the text read ends (column ${lastCol}) before the first complete gold: a LaMP outputs preview needs at least one {id, output}`,
      { file, line: lastLine, field: 'golds' },
    );
  }
  return { ...(task ? { task } : {}), golds, complete };
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

/** What a character starts, without quoting it. */
function charType(c: string): string {
  if (c === '[') return 'a list';
  if (c === '{') return 'an object';
  if (c === '"') return 'a text';
  if (c === '-' || (c >= '0' && c <= '9')) return 'a number';
  if (c === ',' || c === ':' || c === ']' || c === '}') return `"${c}"`;
  return 'something that is not JSON';
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a text';
  return `a ${typeof value}`;
}
