/**
 * Field splitting and number parsing shared by the TREC run and qrels readers and writers.
 */
import { DataError } from '../../core/errors';

/**
 * What no id may contain (issue 36 item 3): NUL, and the bidirectional controls — U+061C, U+200E/F,
 * U+202A–202E, U+2066–2069 — that make an id show in another order than it is stored (a qid
 * `tag\u202Eu1` reads as `tag1u`), in a terminal, a table or a spreadsheet.
 */
export const UNSAFE_ID_CHAR = /[\u0000\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** How an error names the character `c` of UNSAFE_ID_CHAR. */
export function unsafeCharName(c: string): string {
  return c === '\u0000' ? 'NUL' : `the bidirectional control U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Refuses a data line of a run or qrels file holding NUL or a bidirectional control, naming the file,
 * the line and the column it is in (`columns` from the first; separators as `fieldsOf` splits).
 */
export function checkLineChars(text: string, where: Where, columns: readonly string[], fieldsOf: (text: string) => string[]): void {
  const m = UNSAFE_ID_CHAR.exec(text);
  if (!m) return;
  const f = fieldsOf(text).findIndex((v) => UNSAFE_ID_CHAR.test(v));
  const field = columns[f] ?? (f >= 0 ? `column ${f + 1}` : 'line');
  throw new DataError(`contains ${unsafeCharName(m[0])}; ids may not contain NUL or bidirectional controls (they would show in another order than they are stored)`, { ...where, field });
}

/**
 * Whether `buf` (UTF-8) may hold a character of UNSAFE_ID_CHAR: the byte readers leave such a file
 * to the general readers, which refuse it naming the line.
 */
export function mayHoldUnsafeIdChar(buf: Uint8Array): boolean {
  if (buf.indexOf(0) >= 0) return true;
  for (let i = buf.indexOf(0xd8); i >= 0; i = buf.indexOf(0xd8, i + 1)) if (buf[i + 1] === 0x9c) return true;
  for (let i = buf.indexOf(0xe2); i >= 0; i = buf.indexOf(0xe2, i + 1)) {
    const b1 = buf[i + 1];
    const b2 = buf[i + 2]!;
    if (b1 === 0x80 && (b2 === 0x8e || b2 === 0x8f || (b2 >= 0xaa && b2 <= 0xae))) return true;
    if (b1 === 0x81 && b2 >= 0xa6 && b2 <= 0xa9) return true;
  }
  return false;
}

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
