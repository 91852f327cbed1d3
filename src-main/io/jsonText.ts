/**
 * JSON.parse for user files: a syntax error becomes a one-line DataError placed at its line and
 * column when the engine reports a position (V8's echo of the source text is dropped).
 */
import { DataError } from '../core/errors';

export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
    if (!at) throw new DataError(`invalid JSON: ${reason}`, { file });
    const pos = Number(at[1]);
    const before = text.slice(0, pos);
    throw new DataError(`invalid JSON: ${reason} (column ${pos - before.lastIndexOf('\n')})`, { file, line: before.split('\n').length });
  }
}
