/**
 * The fast path of reading a `trec` qrels file for `eval ir` (issue 25 item 4): the file's bytes are
 * parsed in place, without a string per line or per docno (one string per query id), into one
 * look-up table per query (`DocLabelTable`) over the read buffer.
 *
 * It reads only what it reads exactly as `readQrels` (qrels.ts) reads it, and gives up (returns
 * undefined) on anything else: standard input, a `.gz` file, something not a regular file, a file it
 * cannot open, the relevance-mapping format (or its header, in `auto`), invalid UTF-8, a line that is
 * not four columns, a label that is not a plain integer of at most 15 digits, a document judged twice
 * for a query, a query whose lines are not all in one block, a line longer than the maximum. The
 * caller then reads the file with `readQrels`, which gives the same judgements or the error that
 * file deserves.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { DocLabelTable } from '../../core/ir/docBytes';
import { TREC_MAX_LINE_BYTES, mayHoldUnsafeIdChar } from './fields';
import { byteAt, plainInteger } from './plainNumber';
import type { QrelsFormat } from './qrels';

/** Judgements read from bytes: qid → its table, in the file's order; `rows` judgement lines in all. */
export interface QrelsTables {
  byQuery: Map<string, DocLabelTable>;
  rows: number;
}

/** trec_eval's separators (C isspace without \n): space, \t, \v, \f, \r. */
const SPACE = new Uint8Array(256);
for (const c of [32, 9, 11, 12, 13]) SPACE[c] = 1;

class GiveUp extends Error {}

export function readQrelsBytes(path: string, opts: { format?: QrelsFormat; maxLineBytes?: number } = {}): QrelsTables | undefined {
  if (path === '-' || path.endsWith('.gz') || opts.format === 'relevance-mapping') return undefined;
  let bytes: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      // Not a device or pipe (/dev/zero): the general reader bounds those by the line length.
      if (!fstatSync(fd).isFile()) return undefined;
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  // Invalid UTF-8, NUL or a bidirectional control (issue 36 item 3): the general reader says where.
  if (!isUtf8(bytes) || mayHoldUnsafeIdChar(bytes)) return undefined;
  // Every line ends with a newline (the last one is given one), so no scan runs past the end.
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) bytes = Buffer.concat([bytes, Buffer.from([10])]);
  try {
    return parse(bytes, opts.format ?? 'auto', opts.maxLineBytes ?? TREC_MAX_LINE_BYTES);
  } catch (err) {
    if (err instanceof GiveUp) return undefined;
    throw err;
  }
}

function parse(buf: Buffer, format: QrelsFormat, maxLineBytes: number): QrelsTables {
  const byQuery = new Map<string, DocLabelTable>();
  let cap = 1024;
  let docStart: Int32Array = new Int32Array(cap);
  let docEnd: Int32Array = new Int32Array(cap);
  let docHash: Int32Array = new Int32Array(cap);
  let labels: number[] = [];
  let n = 0;
  let qid: string | undefined;
  let qid0 = 0;
  let qid1 = 0;
  let first = format === 'auto';
  const close = (): void => {
    if (qid === undefined) return;
    const table = new DocLabelTable({ bytes: buf, start: docStart.slice(0, n), end: docEnd.slice(0, n), hash: docHash.slice(0, n), labels });
    if (table.repeated >= 0) throw new GiveUp();
    byQuery.set(qid, table);
  };
  let rows = 0;
  const len = buf.length;
  // A byte order mark is dropped (the general reader counts its 3 bytes in the first line's length).
  let i = len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  while (i < len) {
    const lineStart = i;
    while (SPACE[buf[i]!]) i++;
    const c = buf[i]!;
    if (c === 10 || c === 35) {
      // A blank or comment line.
      const nl = c === 10 ? i : buf.indexOf(10, i);
      if (nl - lineStart > maxLineBytes - 3) throw new GiveUp();
      i = nl + 1;
      continue;
    }
    if (first) {
      first = false;
      // The relevance-mapping header (as readQrels decides it): the general reader reads that file.
      const text = buf.toString('utf8', lineStart, buf.indexOf(10, lineStart));
      if (text.includes('\t') && text.split('\t')[0]!.trim() === 'qid') throw new GiveUp();
    }
    // Four fields: qid iter docno rel; a byte above 32 is never a separator, the newline ends the last.
    const a0 = i;
    i = fieldEnd(buf, i);
    const b0 = i;
    while (SPACE[buf[i]!]) i++;
    i = fieldEnd(buf, i);
    while (SPACE[buf[i]!]) i++;
    const a2 = i;
    let h = 0x811c9dc5 | 0;
    for (let b = buf[i]!; b > 32 || (b !== 10 && SPACE[b] === 0); b = buf[++i]!) h = Math.imul(h ^ b, 0x01000193);
    const b2 = i;
    while (SPACE[buf[i]!]) i++;
    const a3 = i;
    i = fieldEnd(buf, i);
    const b3 = i;
    while (SPACE[buf[i]!]) i++;
    // Fewer than four fields (an empty one) or more than four: the general reader errs.
    if (a3 === b3 || buf[i] !== 10 || i - lineStart > maxLineBytes - 3) throw new GiveUp();
    const rel = plainInteger(buf, byteAt, a3, b3);
    if (Number.isNaN(rel)) throw new GiveUp();
    if (qid === undefined || !sameBytes(buf, qid0, qid1, a0, b0)) {
      close();
      qid = buf.toString('utf8', a0, b0);
      // A query whose lines are not in one block.
      if (byQuery.has(qid)) throw new GiveUp();
      qid0 = a0;
      qid1 = b0;
      n = 0;
      labels = [];
    }
    if (n === cap) {
      cap *= 2;
      docStart = grown(docStart, cap);
      docEnd = grown(docEnd, cap);
      docHash = grown(docHash, cap);
    }
    docStart[n] = a2;
    docEnd[n] = b2;
    docHash[n] = h;
    labels.push(rel);
    n++;
    rows++;
    i++;
  }
  close();
  return { byQuery, rows };
}

function grown(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(a);
  return next;
}

/** The end of the field starting at i: the next separator or the line's newline. */
function fieldEnd(buf: Uint8Array, i: number): number {
  for (let c = buf[i]!; c > 32 || (c !== 10 && SPACE[c] === 0); c = buf[++i]!);
  return i;
}

function sameBytes(buf: Uint8Array, a0: number, a1: number, b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false;
  for (let j = 0; j < a1 - a0; j++) if (buf[a0 + j] !== buf[b0 + j]) return false;
  return true;
}
