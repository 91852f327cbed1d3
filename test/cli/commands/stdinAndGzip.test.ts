/**
 * Issue 16 item 4 for the JSON-input commands: `--input -` reads standard input and a `.gz` file is
 * decompressed, with exactly the output of the plain file; errors name `<stdin>` or the file given.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const FIX = join(process.cwd(), 'test', 'fixtures');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stdin-gz-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['eval gfrc2', ['eval', 'gfrc2'], join(FIX, 'gfrc', 'r112-org-conversation.json')],
  ['moi solve', ['moi', 'solve'], join(FIX, 'moi', 'planted-n5-random3n.json')],
  ['richrag coverage', ['richrag', 'coverage'], join(FIX, 'richrag', 'pool.json')],
])('%s', (_name, command, fixture) => {
  it('gives the same output from a file, from standard input and from a .gz file', async () => {
    const text = readFileSync(fixture, 'utf8');
    const gz = join(dir, `${command.join('-')}.json.gz`);
    writeFileSync(gz, gzipSync(Buffer.from(text)));
    const plain = await runCliCaptured([...command, '--input', fixture], { cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    const piped = await runCliCaptured([...command, '--input', '-'], { cwd: dir, stdin: text });
    const zipped = await runCliCaptured([...command, '--input', gz], { cwd: dir });
    expect(piped.stdout).toBe(plain.stdout);
    expect(zipped.stdout).toBe(plain.stdout);
  });

  it('names <stdin> in an error about piped input', async () => {
    const r = await runCliCaptured([...command, '--input', '-'], { cwd: dir, stdin: '{\n  "oops": tru\n}' });
    expect(r.code).toBe(2);
    // One line naming <stdin> (V8 gives no position for this error, so no line number either).
    expect(r.stderr).toMatch(/^fairground [a-z0-9 ]+: <stdin>: invalid JSON: Unexpected token '\\n'\n$/);
  });
});

describe.each([
  ['eval gfrc2', ['eval', 'gfrc2'], join(FIX, 'gfrc', 'r112-org-conversation.json')],
  ['moi solve', ['moi', 'solve'], join(FIX, 'moi', 'planted-n5-random3n.json')],
  ['richrag coverage', ['richrag', 'coverage'], join(FIX, 'richrag', 'pool.json')],
])('%s -p', (_name, command, fixture) => {
  it('rounds every non-integer value to N decimals, ties to even, and leaves the rest of the output alone', async () => {
    const full = await runCliCaptured([...command, '--input', fixture], { cwd: dir });
    const two = await runCliCaptured([...command, '--input', fixture, '-p', '2'], { cwd: dir });
    expect(two.code, two.stderr).toBe(0);
    const round2 = (v: unknown): unknown =>
      typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(20).replace(/^(-?\d+\.\d\d)(\d*)$/, (_m, head: string, tail: string) => {
        // printf: exact decimal expansion, ties to even (toFixed(20) is exact enough for these values).
        const next = tail.replace(/0+$/, '');
        const up = next > '5' || (next === '5' && Number(head.at(-1)) % 2 === 1);
        return up ? (Number(head) + Math.sign(v) * 0.01).toFixed(2) : head;
      })) : Array.isArray(v) ? v.map(round2) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, round2(x)])) : v;
    expect(JSON.parse(two.stdout)).toEqual(round2(JSON.parse(full.stdout)));
    expect(two.stdout).not.toMatch(/\d\.\d{3,}/);
  });
});
