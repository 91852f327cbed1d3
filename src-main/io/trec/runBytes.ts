/**
 * The fast path of reading a `trec` run one query at a time (issue 25 item 4): the file's bytes
 * are parsed in place, without a string per line or per docno. Each query's rows are handed over
 * as byte ranges of the read buffer with their scores (`RankingBytes`), once the query's last row
 * has been read; memory is bounded by the largest query.
 *
 * It reads only what it can read exactly as `readRunByQuery` reads it, and gives up ('general')
 * on anything else, before or after handing queries over: a file it cannot open, standard input,
 * a `.gz` file, a `tsv` run (or one with a Fair-RAG header, in `auto`), invalid
 * UTF-8, a line that is not six columns, a rank that is not a plain integer, a score that is not a
 * finite number, a docno repeated within a query, a query with several column-2 values, a query
 * that comes back after others, a line longer than the maximum. The caller then reads the file
 * with the general reader, which gives the same result or the error and warning that file deserves.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { compareByteRanges, type RankingBytes } from '../../core/ir/docBytes';
import { TREC_MAX_LINE_BYTES, mayHoldUnsafeIdChar } from './fields';
import { byteAt, plainDecimal, plainInteger } from './plainNumber';
import type { RunFormat } from './run';

/** What `readRunBytesByQuery` did: read the whole file, or gave up (after handing over `queries` queries). */
export type RunBytesResult = { done: true; queries: number } | { done: false; queries: number };

/** trec_eval's separators (C isspace without \n): space, \t, \v, \f, \r. */
const SPACE = new Uint8Array(256);
for (const c of [32, 9, 11, 12, 13]) SPACE[c] = 1;

class GiveUp extends Error {}

export function readRunBytesByQuery(
  path: string,
  onQuery: (qid: string, rows: RankingBytes) => void,
  opts: { format?: RunFormat; maxLineBytes?: number; chunkBytes?: number } = {},
): RunBytesResult {
  if (path === '-' || path.endsWith('.gz') || opts.format === 'tsv') return { done: false, queries: 0 };
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { done: false, queries: 0 };
  }
  const reader = new ByteRunReader(onQuery, opts.maxLineBytes ?? TREC_MAX_LINE_BYTES, opts.chunkBytes ?? 1 << 18);
  try {
    reader.read(fd);
    return { done: true, queries: reader.queries };
  } catch (err) {
    if (err instanceof GiveUp) return { done: false, queries: reader.queries };
    throw err;
  } finally {
    closeSync(fd);
  }
}

class ByteRunReader {
  private buf: Buffer;
  private filled = 0;
  /** Start of the current query's first line in `buf` (kept when the buffer is compacted). */
  private qStart = 0;
  private headerSeen = false;
  queries = 0;
  // The current query.
  private qid: string | undefined;
  private qid0 = 0;
  private qid1 = 0;
  private iter0 = 0;
  private iter1 = 0;
  private n = 0;
  private cap = 1024;
  private docStart = new Int32Array(this.cap);
  private docEnd = new Int32Array(this.cap);
  private docHash = new Int32Array(this.cap);
  private score = new Float64Array(this.cap);
  /** Duplicate check: open addressing, slot → row + 1 (0: empty). */
  private slots = new Int32Array(2048);
  private readonly closed = new Set<string>();

  constructor(
    private readonly onQuery: (qid: string, rows: RankingBytes) => void,
    private readonly maxLineBytes: number,
    chunkBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
  }

  read(fd: number): void {
    let pos = 0;
    let bomChecked = false;
    let eof = false;
    while (!eof) {
      this.makeRoom(pos);
      pos -= this.shift;
      const got = readSync(fd, this.buf, this.filled, this.buf.length - this.filled, null);
      this.filled += got;
      if (got === 0) {
        eof = true;
        // A last line without a newline.
        if (this.filled > pos) {
          if (this.filled === this.buf.length) this.grow();
          this.buf[this.filled++] = 10;
        }
      }
      if (!bomChecked) {
        if (this.filled < 3 && !eof) continue;
        bomChecked = true;
        if (this.buf[0] === 0xef && this.buf[1] === 0xbb && this.buf[2] === 0xbf && this.filled >= 3) pos = 3;
      }
      const last = this.filled > pos ? this.buf.lastIndexOf(10, this.filled - 1) : -1;
      if (last < pos) {
        if (this.filled - pos > this.maxLineBytes) throw new GiveUp();
        continue;
      }
      // The newly read complete lines must be UTF-8 (a newline never falls inside a character).
      if (!isUtf8(this.buf.subarray(pos, last + 1))) throw new GiveUp();
      // NUL or a bidirectional control: the general reader refuses the line (issue 36 item 3).
      if (mayHoldUnsafeIdChar(this.buf.subarray(pos, last + 1))) throw new GiveUp();
      pos = this.lines(pos, last + 1);
    }
    this.endQuery();
  }

  /** How far the last `makeRoom` moved the buffer's contents back. */
  private shift = 0;

  /** Drop what precedes the current query (or the unread rest) and make room to read. */
  private makeRoom(pos: number): void {
    const keep = this.qid === undefined ? pos : this.qStart;
    this.shift = keep;
    if (keep > 0) {
      this.buf.copyWithin(0, keep, this.filled);
      this.filled -= keep;
      this.qStart -= keep;
      this.qid0 -= keep;
      this.qid1 -= keep;
      this.iter0 -= keep;
      this.iter1 -= keep;
      const { docStart, docEnd, n } = this;
      for (let i = 0; i < n; i++) {
        docStart[i] -= keep;
        docEnd[i] -= keep;
      }
    }
    if (this.filled > this.buf.length / 2) this.grow();
  }

  private grow(): void {
    const next = Buffer.allocUnsafe(this.buf.length * 2);
    this.buf.copy(next, 0, 0, this.filled);
    this.buf = next;
  }

  /**
   * Parse the complete lines in [from, to) (the byte before `to` is a newline); returns `to`. Each
   * row finds its own line's end while reading its fields: no search for the newline per line.
   */
  private lines(from: number, to: number): number {
    let p = from;
    while (p < to) {
      let end = this.row(p);
      // A new query: started here, out of the hot `row`, whose optimized code never sees it
      // (the first query's start runs before V8 collects feedback, and a later one would deoptimize it).
      if (end < 0) {
        this.startQuery(p);
        end = this.row(p);
      }
      p = end + 1;
    }
    return to;
  }

  /** Ends the current query and starts the one of the line at lineStart (its qid differs). */
  private startQuery(lineStart: number): void {
    const buf = this.buf;
    let i = lineStart;
    while (SPACE[buf[i]!]) i++;
    const a0 = i;
    i = fieldEnd(buf, i);
    const b0 = i;
    while (SPACE[buf[i]!]) i++;
    const a1 = i;
    const b1 = fieldEnd(buf, i);
    this.endQuery();
    const qid = buf.toString('utf8', a0, b0);
    if (this.closed.has(qid)) throw new GiveUp();
    this.qid = qid;
    this.qStart = lineStart;
    this.qid0 = a0;
    this.qid1 = b0;
    this.iter0 = a1;
    this.iter1 = b1;
  }

  /**
   * Reads the line starting at lineStart; returns the index of its newline, or -1 (nothing stored)
   * when the line's qid is not the current query's.
   */
  private row(lineStart: number): number {
    const buf = this.buf;
    let i = lineStart;
    while (SPACE[buf[i]!]) i++;
    if (buf[i] === 10) {
      if (i - lineStart > this.maxLineBytes - 3) throw new GiveUp();
      return i;
    }
    if (buf[i] === 35) return this.lineEnd(lineStart);
    if (!this.headerSeen) {
      this.headerSeen = true;
      // A Fair-RAG header (as `looksLikeTsvHeader` of run.ts): the general reader reads that run.
      const text = buf.toString('utf8', lineStart, this.lineEnd(lineStart));
      if (text.includes('\t') && text.split('\t')[0]!.trim().toLowerCase() === 'qid') throw new GiveUp();
    }
    // Six fields: qid iter docno rank score tag. A byte above 32 is never a separator, and the
    // line's newline (not a separator) ends the last field.
    const a0 = i;
    i = fieldEnd(buf, i);
    const b0 = i;
    while (SPACE[buf[i]!]) i++;
    const a1 = i;
    i = fieldEnd(buf, i);
    const b1 = i;
    while (SPACE[buf[i]!]) i++;
    const a2 = i;
    let h = 0x811c9dc5 | 0;
    for (let c = buf[i]!; c > 32 || (c !== 10 && SPACE[c] === 0); c = buf[++i]!) h = Math.imul(h ^ c, 0x01000193);
    const b2 = i;
    while (SPACE[buf[i]!]) i++;
    const a3 = i;
    i = fieldEnd(buf, i);
    const b3 = i;
    while (SPACE[buf[i]!]) i++;
    const a4 = i;
    i = fieldEnd(buf, i);
    const b4 = i;
    while (SPACE[buf[i]!]) i++;
    const a5 = i;
    i = fieldEnd(buf, i);
    const b5 = i;
    while (SPACE[buf[i]!]) i++;
    // Fewer than six fields (an empty one) or more than six: the general reader errs or warns.
    if (a5 === b5 || buf[i] !== 10) throw new GiveUp();
    const end = i;
    // (3 bytes of slack: the general reader counts a first line's byte order mark.)
    if (end - lineStart > this.maxLineBytes - 3) throw new GiveUp();

    if (this.qid === undefined || !this.sameBytes(this.qid0, this.qid1, a0, b0)) return -1;
    if (!this.sameBytes(this.iter0, this.iter1, a1, b1)) throw new GiveUp();

    if (Number.isNaN(plainInteger(buf, byteAt, a3, b3))) throw new GiveUp();
    let score = plainDecimal(buf, byteAt, a4, b4);
    if (Number.isNaN(score)) {
      score = Number(buf.toString('utf8', a4, b4));
      if (!Number.isFinite(score)) throw new GiveUp();
    }

    const row = this.n;
    if (row === this.cap) this.growRows();
    if (2 * (row + 1) > this.slots.length) this.rehash(this.slots.length * 2);
    // Duplicate check on the docno's bytes.
    const { slots, docStart, docEnd, docHash } = this;
    const mask = slots.length - 1;
    let s = h & mask;
    for (let r = slots[s]! - 1; r >= 0; s = (s + 1) & mask, r = slots[s]! - 1) {
      if (docHash[r] === h && compareByteRanges(buf, docStart[r]!, docEnd[r]!, a2, b2) === 0) throw new GiveUp();
    }
    slots[s] = row + 1;
    docStart[row] = a2;
    docEnd[row] = b2;
    docHash[row] = h;
    this.score[row] = score;
    this.n = row + 1;
    return end;
  }

  /** The newline ending the line that starts at `from` (a comment; the first line). */
  private lineEnd(from: number): number {
    const nl = this.buf.indexOf(10, from);
    if (nl - from > this.maxLineBytes - 3) throw new GiveUp();
    return nl;
  }

  private sameBytes(a0: number, a1: number, b0: number, b1: number): boolean {
    if (a1 - a0 !== b1 - b0) return false;
    const buf = this.buf;
    for (let j = 0; j < a1 - a0; j++) if (buf[a0 + j] !== buf[b0 + j]) return false;
    return true;
  }

  private endQuery(): void {
    if (this.qid === undefined) return;
    const { n } = this;
    this.onQuery(this.qid, { length: n, bytes: this.buf, docStart: this.docStart, docEnd: this.docEnd, docHash: this.docHash, score: this.score });
    this.closed.add(this.qid);
    this.queries++;
    this.qid = undefined;
    this.n = 0;
    if (n > 0) this.slots.fill(0, 0, this.slots.length);
  }

  private growRows(): void {
    this.cap *= 2;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const next = make(this.cap);
      next.set(a);
      return next;
    };
    this.docStart = grow(this.docStart, (k) => new Int32Array(k));
    this.docEnd = grow(this.docEnd, (k) => new Int32Array(k));
    this.docHash = grow(this.docHash, (k) => new Int32Array(k));
    this.score = grow(this.score, (k) => new Float64Array(k));
  }

  private rehash(size: number): void {
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let r = 0; r < this.n; r++) {
      let s = this.docHash[r]! & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = r + 1;
    }
    this.slots = slots;
  }
}

/** The end of the field starting at i: the next separator or the line's newline. */
function fieldEnd(buf: Uint8Array, i: number): number {
  for (let c = buf[i]!; c > 32 || (c !== 10 && SPACE[c] === 0); c = buf[++i]!);
  return i;
}

