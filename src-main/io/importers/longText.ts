/**
 * JSON lines longer than a megabyte, read without ever holding the line as one string (issue 25
 * item 3: a 50 MB one-line corpus used to sit in memory as the line's bytes, the line's string and
 * the parsed text at once, and the store copied it several times more).
 *
 * A long line is scanned as bytes: every string value whose raw bytes pass LONG_VALUE_BYTES is cut
 * into pieces of about that size, each piece checked (strict UTF-8, JSON escapes and control
 * characters, by JSON.parse of the piece) and handed to a LongTextStore (the import staging, in
 * SQLite), and its place in the line is taken by a marker string. The rest of the line (keys,
 * short values, structure) is parsed by JSON.parse as usual, then the markers are turned into
 * LongText values (top level) or read back into strings (deeper, or where a caller does not take a
 * LongText). Memory: the pieces of one string (about a megabyte) and the rest of the line.
 *
 * A piece never ends inside an escape or between the two escapes of a surrogate pair (each piece
 * is parsed on its own: a pair cut in two would become two lone surrogates), nor inside a UTF-8
 * character (the streaming decoder keeps the bytes of a cut character for the next piece).
 */
import { randomBytes } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { DataError } from '../../core/errors';
import { groupThousands } from '../../core/format/thousands';
import { blockLines, byteSource, decodeUtf8, DEFAULT_MAX_LINE_BYTES, inputName, type NumberedLine } from '../lines';

/** A line with more bytes than this is read as a long line. */
export const LONG_LINE_BYTES = 1 << 20;
/** A string value with more raw bytes than this goes to the store… */
export const LONG_VALUE_BYTES = 1 << 20;
/**
 * …in pieces of about this many raw bytes after the first: small enough to stay out of V8's
 * large-object space (strings and buffers of a megabyte each pile up until a full collection).
 */
export const PIECE_BYTES = 1 << 16;

/** Where the pieces of long strings go (ImportStaging's temporary tables). */
export interface LongTextStore {
  /** A new text; returns its id. */
  beginLongText(): number;
  /** Appends the next piece to text `id`: unescaped text, or its UTF-8 bytes (checked: whole characters, valid UTF-8). */
  appendLongText(id: number, piece: string | Buffer): void;
  /** The whole text, for a long value in a place that needs a string (rare: a long id, title or attribute). */
  readLongText(id: number): string;
}

/** A string value kept in the store, by its id there. */
export class LongText {
  constructor(
    readonly longTextId: number,
    private readonly store: LongTextStore,
  ) {}

  read(): string {
    return this.store.readLongText(this.longTextId);
  }
}

/** A line of a JSON-lines file: its text, or, for a long line, its text with markers and what they stand for. */
export type JsonlItem = NumberedLine | LongLine;

export interface LongLine {
  line: number;
  /** The line with each long string replaced by a marker string (JSON text). */
  reduced: string;
  markers: ReadonlyMap<string, LongText>;
}

export function isLongLine(item: JsonlItem): item is LongLine {
  return (item as LongLine).reduced !== undefined;
}

/**
 * The lines of a JSON-lines file (a path; `.gz` is gunzipped), long lines scanned as above. Short
 * lines come as the line readers of ../lines give them (same numbering, strict UTF-8, BOM dropped,
 * the same maximum line length).
 */
export async function* readJsonlItems(
  file: string,
  store: LongTextStore,
  opts: { /** Called before each chunk; throws to stop (an import's cancel). */ checkCancelled?: (() => void) | undefined; maxLineBytes?: number } = {},
): AsyncGenerator<JsonlItem> {
  const max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const name = inputName(file);
  const nonce = randomBytes(9).toString('base64url');
  const source = file.endsWith('.gz') ? byteSource(file, {}) : fileChunks(file);
  let line = 1;
  let first = true;
  let pieces: Buffer[] = [];
  let pending = 0;
  let long: LongLineScanner | null = null;
  let longBytes = 0;
  const tooLong = (): never => {
    throw new DataError(`line longer than ${max} bytes (the maximum; is this a text file?)`, { file: name, line });
  };
  const block = (bytes: Buffer): NumberedLine[] => {
    let text = decodeUtf8(bytes, name, line);
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    const out = [...blockLines({ text, firstLine: line })];
    line += out.length;
    return out;
  };
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      opts.checkCancelled?.();
      let from = 0;
      while (from < chunk.length) {
        if (long) {
          const nl = chunk.indexOf(0x0a, from);
          const end = nl === -1 ? chunk.length : nl;
          longBytes += end - from;
          if (longBytes > max) tooLong();
          long.push(chunk.subarray(from, end));
          if (nl === -1) break;
          yield long.end();
          long = null;
          first = false;
          line++;
          from = nl + 1;
          continue;
        }
        const last = chunk.lastIndexOf(0x0a);
        if (last < from) {
          const rest = Buffer.from(chunk.subarray(from)); // a copy: the chunk's buffer is reused
          pieces.push(rest);
          pending += rest.length;
          if (pending > LONG_LINE_BYTES) {
            long = new LongLineScanner(name, line, first, store, nonce);
            for (const p of pieces) long.push(p);
            longBytes = pending;
            if (longBytes > max) tooLong();
            pieces = [];
            pending = 0;
          }
          break;
        }
        // Whole lines up to the chunk's last newline; the bytes after it wait for theirs.
        const head = chunk.subarray(from, last + 1);
        const bytes = pieces.length === 0 ? head : Buffer.concat([...pieces, head], pending + head.length);
        pieces = [];
        pending = 0;
        yield* block(bytes);
        from = last + 1;
      }
    }
  } catch (err) {
    // Only the file's own errors are 'cannot read file'; a cancel or the store's (SQLite's) errors pass as they are.
    const code = (err as { code?: unknown }).code;
    if (err instanceof DataError || typeof code !== 'string' || code.startsWith('SQLITE_')) throw err;
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: name });
  } finally {
    (source as { destroy?: () => void }).destroy?.();
  }
  if (long) yield long.end();
  else if (pending > 0) yield* block(Buffer.concat([...pieces, Buffer.from([0x0a])], pending + 1));
}

/**
 * A file's bytes in chunks of 64 KiB, all in one buffer that each read overwrites: reading a 50 MB
 * file leaves no 50 MB of dead chunks for the garbage collector (V8 lets up to 64 MB of external
 * memory pile up before it collects). A chunk is valid until the next one is asked for.
 */
export async function* fileChunks(file: string): AsyncGenerator<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 16);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/** Scans one long line's bytes (see the file's comment). */
class LongLineScanner {
  /** The line without its long strings (structure, keys, short values, markers). */
  private rest: Buffer[] = [];
  private inString = false;
  /** Raw bytes of the current string not yet given to the store: raw[0, rawBytes) (one buffer, reused). */
  private raw = Buffer.allocUnsafe(LONG_VALUE_BYTES + (1 << 16));
  private rawBytes = 0;
  /** A backslash among the raw bytes waiting (else the piece needs no unescaping). */
  private escaped = false;
  /** Raw bytes of the current string so far (given to the store or not). */
  private stringBytes = 0;
  /** Inside an escape: -1 just after the backslash, 1..4 hex digits of \uXXXX still to come. */
  private esc = 0;
  private hex = 0;
  /** stringBytes at the end of the last escape that was a high surrogate (\uD800–\uDBFF). */
  private highEnd = -1;
  /** The store's id of the current string once it is long. */
  private text: number | null = null;
  private readonly markers = new Map<string, LongText>();

  constructor(
    private readonly file: string,
    private readonly line: number,
    private readonly first: boolean,
    private readonly store: LongTextStore,
    private readonly nonce: string,
  ) {}

  push(chunk: Buffer): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (!this.inString) {
        const q = chunk.indexOf(0x22, i);
        if (q === -1) {
          this.rest.push(Buffer.from(chunk.subarray(i)));
          return;
        }
        this.rest.push(Buffer.from(chunk.subarray(i, q)));
        this.inString = true;
        this.escaped = false;
        this.stringBytes = 0;
        this.highEnd = -1;
        i = q + 1;
        continue;
      }
      const start = i;
      // Inside a string: jump from backslash to backslash until the closing quote.
      let closed = -1;
      while (i < n) {
        if (this.esc !== 0) {
          const b = chunk[i]!;
          if (this.esc === -1) {
            this.esc = b === 0x75 ? 4 : 0;
            this.hex = 0;
          } else {
            this.hex = this.hex * 16 + hexValue(b);
            if (--this.esc === 0 && this.hex >= 0xd800 && this.hex <= 0xdbff) this.highEnd = this.stringBytes + (i - start) + 1;
          }
          i++;
          continue;
        }
        const q = chunk.indexOf(0x22, i);
        const bs = chunk.indexOf(0x5c, i);
        if (bs !== -1 && (q === -1 || bs < q)) {
          this.esc = -1;
          this.escaped = true;
          i = bs + 1;
          continue;
        }
        if (q === -1) {
          i = n;
          break;
        }
        closed = q;
        i = q;
        break;
      }
      this.take(chunk, start, i);
      if (closed === -1) {
        // The chunk ends inside the string: a piece is due once enough has come and the cut is safe.
        if (this.rawBytes >= (this.text === null ? LONG_VALUE_BYTES : PIECE_BYTES) && this.esc === 0 && this.highEnd !== this.stringBytes) this.flush(false);
        return;
      }
      this.endString();
      i = closed + 1;
    }
  }

  end(): LongLine {
    if (this.inString) throw new DataError('invalid JSON: the line ends inside a string', { file: this.file, line: this.line });
    let text = decodeUtf8(Buffer.concat(this.rest), this.file, this.line);
    if (this.first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { line: this.line, reduced: text, markers: this.markers };
  }

  private endString(): void {
    this.inString = false;
    if (this.text === null) {
      // A short string: back into the line as it was.
      this.rest.push(Buffer.concat([QUOTE, this.raw.subarray(0, this.rawBytes), QUOTE]));
    } else {
      this.flush(true);
      const marker = `\u0000long-text:${this.nonce}:${this.text}`;
      this.markers.set(marker, new LongText(this.text, this.store));
      this.rest.push(Buffer.from(JSON.stringify(marker)));
      this.text = null;
    }
    this.rawBytes = 0;
  }

  /** Appends chunk[from, to) to the raw bytes waiting (copied: the reader reuses its chunk buffer). */
  private take(chunk: Buffer, from: number, to: number): void {
    const n = to - from;
    if (this.rawBytes + n > this.raw.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.raw.length, this.rawBytes + n));
      this.raw.copy(bigger, 0, 0, this.rawBytes);
      this.raw = bigger;
    }
    chunk.copy(this.raw, this.rawBytes, from, to);
    this.rawBytes += n;
    this.stringBytes += n;
  }

  /**
   * Stores the raw bytes waiting as the next piece (`last`: the string's end). Without a backslash
   * the piece is the bytes themselves, checked as UTF-8 and for control characters and stored as
   * bytes (no JS string); with one it is decoded and unescaped by JSON.parse. A UTF-8 character cut
   * by the chunk's end waits for the next piece.
   */
  private flush(last: boolean): void {
    this.text ??= this.store.beginLongText();
    let cut = this.rawBytes;
    if (!last) cut = utf8Boundary(this.raw, cut);
    const bytes = this.raw.subarray(0, cut);
    if (!isUtf8(bytes)) throw new DataError('invalid UTF-8', { file: this.file, line: this.line });
    if (!this.escaped) {
      // No escapes: the text is the bytes; JSON allows every character but the controls.
      for (let c = 0; c < 0x20; c++) {
        if (bytes.indexOf(c) !== -1) throw new DataError(`invalid JSON: a control character (U+${c.toString(16).toUpperCase().padStart(4, '0')}) in a string`, { file: this.file, line: this.line });
      }
      if (cut > 0) this.store.appendLongText(this.text, bytes);
    } else {
      let piece: string;
      try {
        piece = JSON.parse(`"${bytes.toString('utf8')}"`) as string;
      } catch (err) {
        const reason = (err as Error).message.replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, '').replace(/, (?:\.\.\.|").*is not valid JSON$/s, '');
        throw new DataError(`invalid JSON in a string of ${groupThousands(this.stringBytes)} bytes: ${reason}`, { file: this.file, line: this.line });
      }
      if (piece.length > 0) this.store.appendLongText(this.text, piece);
    }
    // The bytes of a cut character (at most 3) start the next piece.
    this.raw.copy(this.raw, 0, cut, this.rawBytes);
    this.rawBytes -= cut;
    this.escaped = false;
  }
}

/** The largest n' <= n such that raw[0, n') ends with a whole UTF-8 character (n itself when it does). */
function utf8Boundary(raw: Buffer, n: number): number {
  for (let k = n - 1, seen = 1; k >= 0 && k >= n - 4; k--, seen++) {
    const b = raw[k]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte
    const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return seen >= need ? n : k;
  }
  return n; // no lead byte in the last four: invalid, left to the UTF-8 check
}

const QUOTE = Buffer.from('"');

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return 0; // not a hex digit: the piece's JSON.parse refuses the escape
}

/**
 * The value of a long line's JSON with its markers resolved: a top-level value that is a marker
 * becomes its LongText when `keep(key)` says the caller takes one, else the text is read back; a
 * marker deeper down is read back. A key that is a marker (a key of more than a megabyte) is refused.
 */
export function resolveMarkers(value: Record<string, unknown>, markers: ReadonlyMap<string, LongText>, keep: (key: string) => boolean, where: { file: string; line: number }): Record<string, unknown> {
  if (markers.size === 0) return value;
  const deep = (v: unknown): unknown => {
    if (typeof v === 'string') return markers.get(v)?.read() ?? v;
    if (Array.isArray(v)) return v.map(deep);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (markers.has(k)) throw new DataError('an object key longer than a megabyte', where);
        out[k] = deep(x);
      }
      return out;
    }
    return v;
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (markers.has(k)) throw new DataError('an object key longer than a megabyte', where);
    const long = typeof v === 'string' ? markers.get(v) : undefined;
    out[k] = long ? (keep(k) ? long : long.read()) : deep(v);
  }
  return out;
}
