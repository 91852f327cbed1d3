/**
 * Line-oriented reading of text inputs with exact line numbers for error messages. Rejects
 * invalid UTF-8 with the line it occurs on instead of silently decoding U+FFFD.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { DataError } from '../core/errors';

export interface NumberedLine {
  /** 1-based line number. */
  line: number;
  text: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Split text into numbered lines (\n or \r\n). A final empty line after the last newline is dropped. */
export function splitLines(text: string): NumberedLine[] {
  const parts = text.split(/\r?\n/);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((t, i) => ({ line: i + 1, text: t }));
}

/** Decode bytes as strict UTF-8; the error names the file and the line of the first bad byte. */
export function decodeUtf8(bytes: Uint8Array, file?: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    // Find the offending line by decoding line by line.
    let start = 0;
    let line = 1;
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

/** Read a whole text file as numbered lines. */
export function readLinesSync(file: string): NumberedLine[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file });
  }
  return splitLines(decodeUtf8(bytes, file).replace(/^\uFEFF/, ''));
}

/** Stream a large text file line by line (constant memory), with numbered lines. */
export async function* streamLines(file: string): AsyncGenerator<NumberedLine> {
  const stream = createReadStream(file);
  let carry: Buffer = Buffer.alloc(0);
  let line = 1;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      let nl: number;
      while ((nl = buf.indexOf(0x0a)) !== -1) {
        let text = decodeLine(buf.subarray(0, nl), file, line);
        if (text.endsWith('\r')) text = text.slice(0, -1);
        if (line === 1) text = text.replace(/^\uFEFF/, '');
        yield { line, text };
        line++;
        buf = buf.subarray(nl + 1);
      }
      carry = Buffer.from(buf);
    }
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file });
  }
  if (carry.length > 0) {
    let text = decodeLine(carry, file, line);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (line === 1) text = text.replace(/^\uFEFF/, '');
    yield { line, text };
  }
}

function decodeLine(bytes: Uint8Array, file: string, line: number): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new DataError('invalid UTF-8', { file, line });
  }
}
