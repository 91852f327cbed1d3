/**
 * Field splitting and number parsing shared by the TREC run and qrels readers and writers.
 */
import { DataError } from '../../core/errors';

/**
 * trec_eval splits on C `isspace` (space, \t, \v, \f, \r); JS `\s` would also split on Unicode
 * spaces such as U+00A0 that trec_eval keeps inside a docno.
 */
const TREC_SPACE = /[ \t\v\f\r]+/;

export function splitWhitespace(text: string): string[] {
  const trimmed = text.replace(/^[ \t\v\f\r]+|[ \t\v\f\r]+$/g, '');
  return trimmed === '' ? [] : trimmed.split(TREC_SPACE);
}

/** Blank lines and `#` comment lines (ir_metadata headers) are skipped, as trec_eval does. */
export function isSkippable(text: string): boolean {
  const t = text.replace(/^[ \t\v\f\r]+/, '');
  return t === '' || t.startsWith('#');
}

/** The longest run or qrels line read (1 MiB): far beyond any real line, small enough to fail fast on a binary file. */
export const TREC_MAX_LINE_BYTES = 1 << 20;

export interface Where {
  file: string | undefined;
  line: number;
}

/** A finite decimal number (also exponent form); rejects what `Number()` would silently accept as 0. */
export function parseScore(raw: string, field: string, where: Where): number {
  const n = Number(raw);
  if (raw.trim() === '' || Number.isNaN(n)) throw new DataError(`not a number: '${raw}'`, { ...where, field });
  if (!Number.isFinite(n)) throw new DataError(`not a finite number: '${raw}'`, { ...where, field });
  return n;
}

export function parseInteger(raw: string, field: string, where: Where): number {
  if (!/^[+-]?\d+$/.test(raw)) throw new DataError(`not an integer: '${raw}'`, { ...where, field });
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new DataError(`integer out of range: '${raw}'`, { ...where, field });
  return n;
}

/**
 * A field a writer puts between separators: must be non-empty and free of whitespace, or the file
 * would not read back. `field` names the row, e.g. `row 3 docno`.
 */
export function checkToken(value: string, field: string): void {
  if (value === '' || /\s/.test(value)) {
    throw new DataError(`must be non-empty and contain no whitespace, got '${value}'`, { field });
  }
}
