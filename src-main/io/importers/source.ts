/**
 * An input of an import: a file on disk (streamed line by line, strict UTF-8) or text already in
 * memory (an upload from the browser). Both give numbered lines; errors name `name`.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DataError } from '../../core/errors';
import { DEFAULT_MAX_LINE_BYTES, splitLines, streamLines, type NumberedLine } from '../lines';
import { fileChunks, readJsonlItems, type JsonlItem, type LongTextStore } from './longText';

export interface TextSource {
  /** How errors name the input: the path as given, or the uploaded file's name. */
  readonly name: string;
  /** The base name, used to guess a file's format and role (`collection.tsv`, `x.jsonl`). */
  readonly baseName: string;
  lines(signal?: AbortSignal): AsyncIterable<NumberedLine>;
  /**
   * One cheap pass over the bytes: the number of lines (for progress totals) and their SHA-256
   * (recorded as the collection's source). Stops on `signal`, and at a line longer than the line
   * reader's maximum (an endless or binary file ends with that error, not never).
   */
  scan(signal?: AbortSignal): Promise<SourceScan>;
  /**
   * JSON lines with long lines scanned as bytes, their long strings put in `store` (longText.ts);
   * only sources that read a file have it (text already in memory gains nothing).
   */
  jsonItems?(store: LongTextStore, checkCancelled?: () => void): AsyncIterable<JsonlItem>;
}

export interface SourceScan {
  lines: number;
  sha256: string;
}

export function fileSource(path: string): TextSource {
  return {
    name: path,
    baseName: basename(path),
    lines: (signal) => streamLines(path, signal ? { signal } : {}),
    ...(path === '-' ? {} : { jsonItems: (store: LongTextStore, checkCancelled?: () => void) => readJsonlItems(path, store, { checkCancelled }) }),
    async scan(signal) {
      try {
        const info = await stat(path);
        if (info.isDirectory()) throw new DataError('is a folder, not a file', { file: path });
      } catch (err) {
        if (err instanceof DataError) throw err;
        throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: path });
      }
      let lines = 0;
      let last = 0x0a;
      /** Bytes since the last newline: a line longer than the maximum ends the scan (issue 15 item 4). */
      let run = 0;
      const hash = createHash('sha256');
      try {
        // One reused buffer (fileChunks): hashing a 50 MB file leaves no dead chunks behind.
        for await (const chunk of fileChunks(path)) {
          signal?.throwIfAborted();
          hash.update(chunk);
          let from = 0;
          for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) {
            if (run + (i - from) > DEFAULT_MAX_LINE_BYTES) break;
            lines++;
            run = 0;
            from = i + 1;
          }
          run += chunk.length - from;
          if (run > DEFAULT_MAX_LINE_BYTES) {
            throw new DataError(`line longer than ${DEFAULT_MAX_LINE_BYTES} bytes (the maximum; is this a text file?)`, { file: path, line: lines + 1 });
          }
          if (chunk.length > 0) last = chunk[chunk.length - 1]!;
        }
      } catch (err) {
        if (err instanceof DataError || signal?.aborted) throw err;
        throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: path });
      }
      return { lines: last === 0x0a ? lines : lines + 1, sha256: hash.digest('hex') };
    },
  };
}

/**
 * Text in memory (already decoded; see `decodeUtf8` in ../lines for strict decoding of bytes).
 * Its SHA-256 is that of its UTF-8 bytes, i.e. of the uploaded file when that was valid UTF-8.
 */
export function textSource(name: string, text: string): TextSource {
  const lines = splitLines(text.replace(/^\uFEFF/, ''));
  return {
    name,
    baseName: basename(name.replace(/\\/g, '/')),
    async *lines() {
      yield* lines;
    },
    scan: async () => ({ lines: lines.length, sha256: createHash('sha256').update(text, 'utf8').digest('hex') }),
  };
}

export class ImportCancelledError extends Error {
  constructor() {
    super('import cancelled');
    this.name = 'ImportCancelledError';
  }
}

export interface ReadOptions {
  signal?: AbortSignal | undefined;
  /** Called with the lines read so far over all inputs of the import (throttled to every 500 lines). */
  onProgress?: ((linesRead: number) => void) | undefined;
}

/**
 * Counts lines across all inputs of one import, checks for cancellation, and lets the event loop
 * breathe every few hundred lines (an in-memory source would otherwise never yield).
 */
export class LineCounter {
  private read = 0;
  constructor(private readonly opts: ReadOptions = {}) {}

  get linesRead(): number {
    return this.read;
  }

  get signal(): AbortSignal | undefined {
    return this.opts.signal;
  }

  lines(source: TextSource): AsyncGenerator<NumberedLine> {
    return this.count(source.lines());
  }

  /** Numbered items of any kind (one per line), counted, cancellable, with the event loop let in. */
  async *count<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
    this.throwIfCancelled();
    for await (const l of items) {
      yield l;
      if (++this.read % 500 === 0) {
        this.opts.onProgress?.(this.read);
        await new Promise<void>((resolve) => setImmediate(resolve));
        this.throwIfCancelled();
      }
    }
    this.opts.onProgress?.(this.read);
  }

  throwIfCancelled(): void {
    if (this.opts.signal?.aborted) throw new ImportCancelledError();
  }
}
