/**
 * An error in user-supplied data. It names where the problem is (file, line, field) so that the
 * CLI, the API and the UI can show one precise sentence, e.g. `runs/bm25.trec:12: score: not a number`.
 */
export interface DataErrorLocation {
  file?: string;
  line?: number;
  field?: string;
}

export class DataError extends Error {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;
  readonly reason: string;

  constructor(reason: string, where: DataErrorLocation = {}) {
    super(formatLocation(where) + reason);
    this.name = 'DataError';
    this.reason = reason;
    this.file = where.file;
    this.line = where.line;
    this.field = where.field;
  }

  /** The same error placed in a file (keeps line and field). */
  inFile(file: string): DataError {
    return new DataError(this.reason, { file, line: this.line, field: this.field });
  }
}

function formatLocation({ file, line, field }: DataErrorLocation): string {
  let out = '';
  if (file !== undefined) out += file;
  if (line !== undefined) out += `${out ? ':' : 'line '}${line}`;
  if (out) out += ': ';
  if (field !== undefined) out += `${field}: `;
  return out;
}

/** The longest user value an error message quotes whole; a longer one is cut and its length said. */
export const QUOTE_MAX_CHARS = 120;

/**
 * A user-supplied value for a one-line error message: strings JSON-quoted (control characters and NUL escaped), other
 * values as JSON; longer than `max` characters, it is cut and its full length given (`"abc…" (10485760 characters)`),
 * so an error about a 10 MB field writes a line, not 10 MB.
 */
export function quoteValue(value: unknown, max: number = QUOTE_MAX_CHARS): string {
  if (typeof value === 'string') {
    if (value.length <= max) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, max)).slice(0, -1)}…" (${value.length} characters)`;
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** An id quoted for a one-line message in single quotes: control characters escaped, cut past `max` characters. */
export function quoteIdText(id: string, max: number = QUOTE_MAX_CHARS): string {
  const escape = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
  if (id.length <= max) return `'${escape(id)}'`;
  return `'${escape(id.slice(0, max))}…' (${id.length} characters)`;
}
