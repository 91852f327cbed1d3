/**
 * Line-oriented reading of text inputs with exact line numbers for error messages. Rejects
 * invalid UTF-8 with the line it occurs on instead of silently decoding U+FFFD.
 *
 * Every reader here
 * - takes `-` for standard input and decompresses a name ending in `.gz` (gzip);
 * - reads in linear time: a line that spans many chunks is joined once, not re-concatenated per
 *   chunk;
 * - refuses a line longer than `maxLineBytes` (default {@link DEFAULT_MAX_LINE_BYTES}) with the
 *   file and the line number, so an endless input without newlines (`/dev/zero`) ends with an
 *   error after reading at most that many bytes plus one chunk;
 * - (the asynchronous ones) stops with the signal's reason when an AbortSignal fires.
 */
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { DataError } from '../core/errors';

export interface NumberedLine {
  /** 1-based line number. */
  line: number;
  text: string;
}

/** The longest line any reader accepts unless told otherwise: 64 MiB (a whole document of a corpus fits). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface LineReadOptions {
  /** Refuse a line with more bytes than this (default DEFAULT_MAX_LINE_BYTES). */
  maxLineBytes?: number;
  /** Stop reading (throwing the signal's reason) when this fires. */
  signal?: AbortSignal;
  /** What `-` reads (default process.stdin). */
  stdin?: Readable;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const CHUNK = 1 << 16;

/** Split text into numbered lines (\n or \r\n). A final empty line after the last newline is dropped. */
export function splitLines(text: string): NumberedLine[] {
  const parts = text.split(/\r?\n/);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((t, i) => ({ line: i + 1, text: t }));
}

/** Decode bytes as strict UTF-8; the error names the file and the line of the first bad byte. */
export function decodeUtf8(bytes: Uint8Array, file?: string, firstLine = 1): string {
  try {
    return decoder.decode(bytes);
  } catch {
    // Find the offending line by decoding line by line.
    let start = 0;
    let line = firstLine;
    for (let i = 0; i <= bytes.length; i++) {
      if (i === bytes.length || bytes[i] === 0x0a) {
        try {
          decoder.decode(bytes.subarray(start, i));
        } catch {
          throw new DataError('invalid UTF-8', { file, line });
        }
        start = i + 1;
        line++;
      }
    }
    throw new DataError('invalid UTF-8', { file });
  }
}

/**
 * The head of a file cut at a byte count (a preview's first 256 KB) may end inside a UTF-8 character: drop that
 * incomplete last character (at most 3 bytes), nothing else. Invalid bytes elsewhere stay for decodeUtf8 to refuse.
 */
export function dropCutUtf8Tail(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? bytes.subarray(0, n - back) : bytes;
  }
  return bytes;
}

/** The name a reader shows for `-`. */
export function inputName(file: string): string {
  return file === '-' ? '<stdin>' : file;
}

function readError(err: unknown, file: string): DataError {
  if (err instanceof DataError) return err;
  return new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: inputName(file) });
}

/** A block of complete lines: decoded text, every line ended by `\n`, and the number of its first line. */
export interface TextBlock {
  text: string;
  firstLine: number;
}

/**
 * Turns byte chunks into blocks of whole lines. Bytes after the last newline wait in a list of
 * pieces (joined once, when their newline arrives), so a long line costs linear time; a line longer
 * than the maximum is refused as soon as the pieces exceed it.
 */
class BlockSplitter {
  private pieces: Buffer[] = [];
  private pending = 0;
  private line = 1;
  private first = true;

  constructor(
    private readonly file: string,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer): TextBlock | undefined {
    const last = chunk.lastIndexOf(0x0a);
    if (last === -1) {
      this.pieces.push(chunk);
      this.pending += chunk.length;
      if (this.pending > this.maxLineBytes) this.tooLong(this.line);
      return undefined;
    }
    this.checkLengths(chunk, last);
    const head = chunk.subarray(0, last + 1);
    const bytes = this.pieces.length === 0 ? head : Buffer.concat([...this.pieces, head], this.pending + head.length);
    const rest = chunk.subarray(last + 1);
    this.pieces = rest.length > 0 ? [rest] : [];
    this.pending = rest.length;
    return this.block(bytes);
  }

  /** The last line when the input does not end with a newline (given a `\n`). */
  end(): TextBlock | undefined {
    if (this.pending === 0) return undefined;
    if (this.pending > this.maxLineBytes) this.tooLong(this.line);
    const bytes = Buffer.concat([...this.pieces, Buffer.from([0x0a])], this.pending + 1);
    this.pieces = [];
    this.pending = 0;
    return this.block(bytes);
  }

  private checkLengths(chunk: Buffer, last: number): void {
    let start = -this.pending;
    let line = this.line;
    for (let nl = chunk.indexOf(0x0a); ; nl = chunk.indexOf(0x0a, nl + 1)) {
      if (nl - start > this.maxLineBytes) this.tooLong(line);
      if (nl === last) return;
      // Lines inside a chunk are shorter than the chunk: only a small maximum needs each checked.
      if (chunk.length - nl <= this.maxLineBytes) return;
      start = nl + 1;
      line++;
    }
  }

  private tooLong(line: number): never {
    throw new DataError(`line longer than ${this.maxLineBytes} bytes (the maximum; is this a text file?)`, { file: inputName(this.file), line });
  }

  private block(bytes: Buffer): TextBlock {
    let text = decodeUtf8(bytes, inputName(this.file), this.line);
    if (this.first) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const firstLine = this.line;
    let n = 0;
    for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++;
    this.line += n;
    return { text, firstLine };
  }
}

/** The bytes of a file (`-`: stdin; `.gz`: gunzipped), in chunks of 64 KiB. */
export function byteSource(file: string, opts: Pick<LineReadOptions, 'stdin'>): AsyncIterable<Buffer> {
  const raw: Readable = file === '-' ? (opts.stdin ?? process.stdin) : createReadStream(file, { highWaterMark: CHUNK });
  return (file.endsWith('.gz') ? raw.pipe(createGunzip({ chunkSize: CHUNK })) : raw) as AsyncIterable<Buffer>;
}

/** Blocks of whole lines of a file (`-`: stdin; `.gz`: gunzipped), in bounded memory. */
export async function* readTextBlocks(file: string, opts: LineReadOptions = {}): AsyncGenerator<TextBlock> {
  const splitter = new BlockSplitter(file, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const signal = opts.signal;
  signal?.throwIfAborted();
  const source = byteSource(file, opts);
  const chunks = source[Symbol.asyncIterator]();
  // A read waiting for bytes that never come (a pipe, a terminal) still ends when the signal fires.
  let onAbort: (() => void) | undefined;
  const aborted = signal
    ? new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      })
    : undefined;
  aborted?.catch(() => undefined);
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await (aborted ? Promise.race([chunks.next(), aborted]) : chunks.next());
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        throw readError(err, file);
      }
      if (next.done) break;
      const block = splitter.push(next.value);
      if (block) yield block;
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    if (file !== '-') (source as unknown as Readable).destroy?.();
    else void chunks.return?.().catch(() => undefined);
  }
  const last = splitter.end();
  if (last) yield last;
}

/** The lines of one block, numbered (a trailing `\r` is dropped, as `\r\n` ends a line). */
export function* blockLines(block: TextBlock): Generator<NumberedLine> {
  const { text } = block;
  let line = block.firstLine;
  for (let start = 0, nl = text.indexOf('\n'); nl !== -1; start = nl + 1, nl = text.indexOf('\n', start)) {
    const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    yield { line: line++, text: text.slice(start, end) };
  }
}

/** Stream a large text file line by line (bounded memory), with numbered lines. */
export async function* streamLines(file: string, opts: LineReadOptions = {}): AsyncGenerator<NumberedLine> {
  for await (const block of readTextBlocks(file, opts)) yield* blockLines(block);
}

/** Every line of a file (`-`, `.gz` and the line limit as in streamLines). */
export async function readLines(file: string, opts: LineReadOptions = {}): Promise<NumberedLine[]> {
  const out: NumberedLine[] = [];
  for await (const block of readTextBlocks(file, opts)) for (const l of blockLines(block)) out.push(l);
  return out;
}

/** The whole text of a file (`-`, `.gz`, the line limit and the signal as in streamLines; a leading BOM dropped). */
export async function readText(file: string, opts: LineReadOptions = {}): Promise<string> {
  const parts: string[] = [];
  for await (const block of readTextBlocks(file, opts)) parts.push(block.text);
  return parts.join('');
}

/**
 * Blocks of whole lines read synchronously (a file or `.gz`; not `-`, whose stream is
 * asynchronous). Reads chunk by chunk, so `/dev/zero` ends with the line-length error.
 */
export function readTextBlocksSync(file: string, opts: Pick<LineReadOptions, 'maxLineBytes'> = {}): TextBlock[] {
  if (file === '-') throw new DataError('standard input can only be read asynchronously', { file: inputName(file) });
  const splitter = new BlockSplitter(file, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const blocks: TextBlock[] = [];
  const add = (b: TextBlock | undefined) => b && blocks.push(b);
  try {
    if (file.endsWith('.gz')) {
      add(splitter.push(gunzipSync(readFileSync(file))));
    } else {
      const fd = openSync(file, 'r');
      try {
        const buf = Buffer.allocUnsafe(CHUNK);
        for (let n; (n = readSync(fd, buf, 0, CHUNK, null)) > 0; ) add(splitter.push(Buffer.from(buf.subarray(0, n))));
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    throw readError(err, file);
  }
  add(splitter.end());
  return blocks;
}

/** Read a whole text file as numbered lines (synchronously; see readTextBlocksSync). */
export function readLinesSync(file: string, opts: Pick<LineReadOptions, 'maxLineBytes'> = {}): NumberedLine[] {
  const out: NumberedLine[] = [];
  for (const block of readTextBlocksSync(file, opts)) for (const l of blockLines(block)) out.push(l);
  return out;
}
