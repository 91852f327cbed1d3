import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { readLines, readLinesSync, streamLines } from '../../src-main/io/lines';

const dir = mkdtempSync(join(tmpdir(), 'fg-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('readLines', () => {
  it('numbers lines across chunk boundaries, drops \\r of \\r\\n and a leading BOM, keeps a last line without newline', async () => {
    const file = join(dir, 'a.txt');
    const long = 'x'.repeat(3 << 20); // spans several 1 MiB chunks
    writeFileSync(file, `\uFEFFone\r\n\n${long}\nlast`);
    const lines = await readLines(file);
    expect(lines.map((l) => [l.line, l.text.length])).toEqual([
      [1, 3],
      [2, 0],
      [3, long.length],
      [4, 4],
    ]);
    expect(readLinesSync(file).map((l) => l.text)).toEqual(lines.map((l) => l.text));
  });

  it('reads .gz files and "-" (standard input)', async () => {
    const gz = join(dir, 'b.txt.gz');
    writeFileSync(gz, gzipSync('q 1\nr 2\n'));
    expect((await readLines(gz)).map((l) => l.text)).toEqual(['q 1', 'r 2']);
    expect(readLinesSync(gz).map((l) => l.text)).toEqual(['q 1', 'r 2']);
    const stdin = new PassThrough();
    stdin.end('from\nstdin');
    expect((await readLines('-', { stdin })).map((l) => l.text)).toEqual(['from', 'stdin']);
  });

  it('refuses a line longer than the maximum with the file and the line', async () => {
    const file = join(dir, 'c.txt');
    writeFileSync(file, `ok\n${'y'.repeat(101)}\nok\n`);
    const err = await rejection(readLines(file, { maxLineBytes: 100 }));
    expect(err).toBeInstanceOf(DataError);
    expect(err.message).toBe(`${file}:2: line longer than 100 bytes (the maximum; is this a text file?)`);
    expect(() => readLinesSync(file, { maxLineBytes: 100 })).toThrow(`${file}:2: line longer than 100 bytes`);
    expect((await readLines(file, { maxLineBytes: 101 })).length).toBe(3);
    // The last line, without a newline.
    writeFileSync(file, `ok\n${'y'.repeat(101)}`);
    expect((await rejection(readLines(file, { maxLineBytes: 100 }))).message).toMatch(/:2: line longer than 100 bytes/);
  });

  it('ends /dev/zero (no newline, endless) with the line error in bounded memory', async () => {
    const before = process.memoryUsage().rss;
    const err = await rejection(readLines('/dev/zero', { maxLineBytes: 8 << 20 }));
    expect(err.message).toBe('/dev/zero:1: line longer than 8388608 bytes (the maximum; is this a text file?)');
    expect(() => readLinesSync('/dev/zero', { maxLineBytes: 8 << 20 })).toThrow('/dev/zero:1: line longer');
    expect(process.memoryUsage().rss - before).toBeLessThan(200 << 20);
  });

  it('joins a line that arrives in 4,096 small chunks in linear time (not re-concatenated per chunk)', async () => {
    const stdin = new PassThrough();
    const piece = Buffer.alloc(4096, 0x7a);
    const reading = readLines('-', { stdin });
    for (let i = 0; i < 4096; i++) stdin.write(piece);
    stdin.end('\n');
    const t0 = performance.now();
    const lines = await reading;
    expect(lines[0]!.text.length).toBe(16 << 20);
    // Re-joining the pending bytes per chunk copies 4096²/2 × 4 KiB = 32 GiB.
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('stops with the signal reason when aborted', async () => {
    const stdin = new PassThrough();
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const l of streamLines('-', { stdin, signal: controller.signal })) {
        seen.push(l.text);
        controller.abort(new Error('cancelled by the user'));
      }
    })();
    stdin.write('first\n');
    const err = await rejection(reading);
    expect(err.message).toBe('cancelled by the user');
    expect(seen).toEqual(['first']);
  });

  it('names the line of invalid UTF-8', async () => {
    const file = join(dir, 'e.txt');
    writeFileSync(file, Buffer.from([0x61, 0x0a, 0x62, 0xff, 0x0a]));
    expect((await rejection(readLines(file))).message).toBe(`${file}:2: invalid UTF-8`);
  });

  it('names the file it cannot read', async () => {
    expect((await rejection(readLines(join(dir, 'missing')))).message).toMatch(/missing: cannot read file \(ENOENT\)/);
  });
});
