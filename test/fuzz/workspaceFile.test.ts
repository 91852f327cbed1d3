/**
 * The workspace file is an input too (`--workspace PATH`): a damaged one — cut off, bytes flipped
 * in the SQLite header or in a random page, a page zeroed, another program's database, text —
 * gets a one-line answer from `fairground workspace info|check` and `collection list|import`:
 * success, `workspace check` listing problems (exit 1, problems on stdout), or one stderr line
 * naming the file. Never a stack trace, never a hang.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src-main/core/random/rng';
import { cli, fastTmpDir } from './cliHarness';

const CASES = Number(process.env.FUZZ_WORKSPACE_CASES ?? 60);
const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');

let dir: string;
let valid: Buffer;
let pageSize: number;

beforeAll(async () => {
  dir = mkdtempSync(join(fastTmpDir(), 'fg-fuzz-ws-'));
  const r = await cli(['collection', 'import', '--kind', 'corpus', '--name', 'c', '-w', 'valid.fairground', join(FIX, 'corpus.jsonl')], dir);
  if (r.code !== 0) throw new Error(r.stderr);
  valid = readFileSync(join(dir, 'valid.fairground'));
  pageSize = valid.readUInt16BE(16) === 1 ? 65536 : valid.readUInt16BE(16);
  const other = new Database(join(dir, 'other.db'));
  other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (\'hello\');');
  other.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function damage(rng: Rng): { name: string; bytes: Buffer } {
  const b = Buffer.from(valid);
  const pages = Math.floor(b.length / pageSize);
  switch (rng.nextInt(7)) {
    case 0: {
      const at = rng.nextFloat() < 0.5 ? pageSize * rng.nextInt(pages) : rng.nextInt(b.length);
      return { name: `truncate@${at}`, bytes: b.subarray(0, at) };
    }
    case 1: {
      const o = rng.nextInt(100);
      b[o] = rng.nextInt(256);
      return { name: `header byte ${o}`, bytes: b };
    }
    case 2: {
      const at: number[] = [];
      for (let i = 0; i < 1 + rng.nextInt(8); i++) {
        const o = rng.nextInt(b.length);
        at.push(o);
        b[o] = rng.nextInt(256);
      }
      return { name: `flip @${at.join(',')}`, bytes: b };
    }
    case 3: {
      const p = 1 + rng.nextInt(Math.max(1, pages - 1));
      b.fill(0, p * pageSize, (p + 1) * pageSize);
      return { name: `zero page ${p + 1}`, bytes: b };
    }
    case 4:
      return { name: 'text', bytes: Buffer.from('id\ttext\n1\thello\n') };
    case 5:
      return { name: "another program's database", bytes: readFileSync(join(dir, 'other.db')) };
    default: {
      const p = 1 + rng.nextInt(Math.max(1, pages - 1));
      const q = 1 + rng.nextInt(Math.max(1, pages - 1));
      const page = Buffer.from(b.subarray(p * pageSize, (p + 1) * pageSize));
      b.copy(b, p * pageSize, q * pageSize, (q + 1) * pageSize);
      page.copy(b, q * pageSize);
      return { name: `swap pages ${p + 1} and ${q + 1}`, bytes: b };
    }
  }
}

const SQLITE_DAMAGE = /: database disk image is malformed$/;

const COMMANDS: string[][] = [['workspace', 'info'], ['workspace', 'check'], ['collection', 'list'], ['collection', 'import', '--kind', 'qrels', '--name', 'c', join(FIX, 'qrels.txt')], ['model', 'list']];

describe('a damaged workspace file', () => {
  it(`${CASES} damaged copies × ${COMMANDS.length} commands: success or one clear line`, async () => {
    const rng = createRng(501 + Number(process.env.FUZZ_SEED ?? 0));
    const violations: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < CASES; i++) {
      const d = damage(rng);
      const cmd = COMMANDS[i % COMMANDS.length]!;
      const file = `w${i}.fairground`;
      writeFileSync(join(dir, file), d.bytes);
      const r = await cli([...cmd, '-w', file], dir);
      const lines = r.stderr.replace(/\n$/, '').split('\n');
      const label = `${cmd.slice(0, 2).join(' ')} #${i} [${d.name}]`;
      if (/^\s+at /m.test(r.stderr)) violations.push(`${label}: stack trace`);
      if (r.ms > 10_000) violations.push(`${label}: took ${r.ms.toFixed(0)} ms`);
      const checkFoundProblems = cmd[1] === 'check' && r.code === 1 && r.stderr === '' && /^problem: /.test(r.stdout);
      if (r.code !== 0 && !checkFoundProblems) {
        seen.add(lines[0]!.replace(/\/\S+/g, 'PATH').slice(0, 160));
        if (lines.length !== 1 || !lines[0]!.startsWith(`fairground ${cmd.slice(0, 2).join(' ')}: `)) violations.push(`${label}: stderr ${JSON.stringify(r.stderr.slice(0, 300))}`);
        // Reported, not fixed here: damage SQLite finds only while reading a page is a bare
        // "database disk image is malformed", without the workspace's path (issue 10 report).
        else if (!lines[0]!.includes(file) && !SQLITE_DAMAGE.test(lines[0]!)) violations.push(`${label}: the error does not name the workspace: ${lines[0]}`);
      }
      for (const suffix of ['', '-wal', '-shm']) if (existsSync(join(dir, file + suffix))) unlinkSync(join(dir, file + suffix));
    }
    expect(violations).toEqual([]);
    expect(seen.size).toBeGreaterThan(0);
  });

  it('is never written by the read-only commands (info, lists)', async () => {
    const b = Buffer.from(valid);
    b.fill(0, pageSize * 2, pageSize * 3);
    writeFileSync(join(dir, 'damaged.fairground'), b);
    copyFileSync(join(dir, 'damaged.fairground'), join(dir, 'keep.fairground'));
    for (const cmd of [['workspace', 'info'], ['collection', 'list'], ['model', 'list']]) await cli([...cmd, '-w', 'damaged.fairground'], dir);
    expect(readFileSync(join(dir, 'damaged.fairground')).equals(readFileSync(join(dir, 'keep.fairground')))).toBe(true);
    // `workspace check` is not read-only: it records its job in the workspace like every job.
  });
});
