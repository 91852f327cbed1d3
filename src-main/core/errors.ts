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
