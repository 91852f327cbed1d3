/**
 * Long JSON lines read as bytes (issue 25 item 3): what the scanner gives back must be exactly what
 * JSON.parse gives for the whole line — the long strings read back from the store piece by piece,
 * every other value as parsed, every line numbered as the ordinary reader numbers it — whatever falls
 * on a piece's edge (escapes, surrogate-pair escapes, UTF-8 characters of 2–4 bytes). Planted texts
 * are drawn at random with a printed seed. Bad input names the file and the line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { DataError } from '../../../src-main/core/errors';
import { isLongLine, LONG_LINE_BYTES, LONG_VALUE_BYTES, LongText, PIECE_BYTES, readJsonlItems, resolveMarkers, type JsonlItem, type LongTextStore } from '../../../src-main/io/importers/longText';
import { streamLines } from '../../../src-main/io/lines';

/** A store in memory: pieces per text, each piece kept as given (bytes or string). */
class MemoryStore implements LongTextStore {
  texts: (string | Buffer)[][] = [];
  beginLongText(): number {
    this.texts.push([]);
    return this.texts.length;
  }
  appendLongText(id: number, piece: string | Buffer): void {
    if (Buffer.isBuffer(piece)) expect(piece.toString('utf8').includes('\ufffd')).toBe(false); // whole characters only
    this.texts[id - 1]!.push(Buffer.isBuffer(piece) ? Buffer.from(piece) : piece);
  }
  readLongText(id: number): string {
    return this.texts[id - 1]!.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : p)).join('');
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-longtext-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readAll(path: string, store: LongTextStore): Promise<JsonlItem[]> {
  const out: JsonlItem[] = [];
  for await (const item of readJsonlItems(path, store)) out.push(item);
  return out;
}

/** The value as the import sees it: markers resolved, long top-level values read back. */
function valueOf(item: JsonlItem, file: string): unknown {
  if (!isLongLine(item)) return JSON.parse(item.text);
  const row = resolveMarkers(JSON.parse(item.reduced) as Record<string, unknown>, item.markers, () => true, { file, line: item.line });
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof LongText ? v.read() : v]));
}

/** Text whose JSON is full of what a cut could break: escapes, surrogate pairs (as escapes and raw), 2–4-byte characters. */
function plantedText(seed: number, chars: number): string {
  const rng = createRng(seed);
  const parts = ['lorem ', 'ipsum ', 'é', 'ß', '日本', '😀', '\n', '"', '\\', '\t', '\u2028', 'x'.repeat(37), '\ud83d\ude00', '\u0001'];
  let s = '';
  while (s.length < chars) s += parts[rng.nextInt(parts.length)]!;
  return s;
}

describe('long JSON lines read as bytes', () => {
  it('give back exactly what JSON.parse gives, long strings through the store, around short lines', async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`planted long texts: seed ${seed}`);
    const long1 = plantedText(seed, 1_300_000); // escapes and multi-byte characters throughout
    const long2 = 'plain ascii words '.repeat(200_000); // no escapes: stored as bytes
    const rows = [
      { id: 'a', text: 'short one' },
      { id: 'b', title: 'big', text: long1, tags: ['x', long2.slice(0, 10)], n: 3.5 },
      {},
      { id: 'c', text: 'short two é' },
      { text: long2, id: 'd', nested: { deep: long2 } },
    ];
    const path = join(dir, 'mixed.jsonl');
    // A blank line and a CRLF line among them; the last line without its newline.
    const lines = rows.map((r) => JSON.stringify(r));
    writeFileSync(path, `\ufeff${lines[0]}\n\n${lines[1]}\r\n${lines[2]}\n${lines[3]}\n${lines[4]}`);
    const store = new MemoryStore();
    const items = await readAll(path, store);
    const plain: { line: number; text: string }[] = [];
    for await (const l of streamLines(path)) plain.push(l);
    expect(items.map((i) => i.line)).toEqual(plain.map((l) => l.line));
    expect(items.map((i) => isLongLine(i))).toEqual([false, false, true, false, false, true]);
    const values = items.filter((i) => isLongLine(i) || i.text.trim() !== '').map((i) => valueOf(i, path));
    expect(values).toEqual(rows);
    // The two long top-level texts and the long nested one went through the store in pieces.
    expect(store.texts.length).toBe(3);
    expect(store.texts[0]!.length).toBeGreaterThan(1);
    const bytes = Buffer.byteLength(JSON.stringify(long1));
    // A first piece of LONG_VALUE_BYTES raw bytes or a little more, then pieces of PIECE_BYTES to twice that (a cut waits for a safe chunk end).
    const after = bytes - LONG_VALUE_BYTES;
    expect(store.texts[0]!.length).toBeGreaterThanOrEqual(1 + Math.floor((after - 2 * PIECE_BYTES) / (2 * PIECE_BYTES)));
    expect(store.texts[0]!.length).toBeLessThanOrEqual(1 + Math.ceil(after / PIECE_BYTES));
    expect(store.texts[1]!.every((p) => Buffer.isBuffer(p))).toBe(true);
  });

  it('a piece never ends inside an escape, a surrogate pair or a UTF-8 character, wherever the chunk ends', async () => {
    // Pad so that the chunk edge (every 64 KiB) falls on each byte of the tricky sequences in turn.
    const tricky = ['\\ud83d\\ude00', '\\u00e9', '\\"', '😀', '日', 'é'];
    for (let shift = 0; shift < 14; shift++) {
      const unit = 'a'.repeat(65_536 - shift - 20);
      let raw = '';
      let expected = '';
      while (raw.length < LONG_LINE_BYTES + 200_000) {
        for (const t of tricky) {
          raw += unit.slice(0, 3000) + t;
          expected += unit.slice(0, 3000) + (JSON.parse(`"${t}"`) as string);
        }
        raw += unit;
        expected += unit;
      }
      const path = join(dir, `edge${shift}.jsonl`);
      writeFileSync(path, `{"id":"e","text":"${raw}"}\n`);
      const store = new MemoryStore();
      const [item] = await readAll(path, store);
      expect(valueOf(item!, path)).toEqual({ id: 'e', text: expected });
      expect(store.texts[0]!.length).toBeGreaterThan(1);
    }
  });

  it('stop inside a long line when the cancel check throws', async () => {
    const path = join(dir, 'cancel.jsonl');
    writeFileSync(path, `{"id":"c","text":"${'z'.repeat(3 * LONG_LINE_BYTES)}"}\n`);
    const store = new MemoryStore();
    let chunks = 0;
    const stop = new Error('cancelled');
    const read = async () => {
      for await (const item of readJsonlItems(path, store, { checkCancelled: () => { if (++chunks > 20) throw stop; } })) void item;
    };
    await expect(read()).rejects.toBe(stop);
    expect(chunks).toBe(21);
  });

  it('refuse bad input, naming the file and the line', async () => {
    const long = 'w'.repeat(LONG_LINE_BYTES + 10);
    const cases: [string, Buffer, RegExp][] = [
      ['control', Buffer.from(`{"id":"x","text":"${long}\u0001${long}"}\n`), /control character \(U\+0001\)/],
      ['utf8', Buffer.concat([Buffer.from(`{"id":"x","text":"${long}`), Buffer.from([0xc3, 0x28]), Buffer.from(`${long}"}\n`)]), /invalid UTF-8/],
      ['escape', Buffer.from(`{"id":"x","text":"${long}\\x${long}"}\n`), /invalid JSON in a string/],
      ["unterminated", Buffer.from(`{"id":"x","text":"${long}${long}\n`), /ends inside a string/],
    ];
    for (const [name, bytes, message] of cases) {
      const path = join(dir, `bad-${name}.jsonl`);
      writeFileSync(path, Buffer.concat([Buffer.from('{"id":"ok","text":"fine"}\n'), bytes]));
      const err = await readAll(path, new MemoryStore()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, name).toBeInstanceOf(DataError);
      expect((err as DataError).message, name).toMatch(message);
      expect({ file: (err as DataError).file, line: (err as DataError).line }, name).toEqual({ file: path, line: 2 });
    }
    // A key of more than a megabyte is refused when the line is resolved.
    const path = join(dir, 'bad-key.jsonl');
    writeFileSync(path, `{"${long}${long}":"v","id":"x"}\n`);
    const [item] = await readAll(path, new MemoryStore());
    expect(() => valueOf(item!, path)).toThrow(/object key longer than a megabyte/);
  });
});
