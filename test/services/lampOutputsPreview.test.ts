/**
 * Issue 36 item 2 (leftover): a LaMP outputs file larger than a preview's 256 KB head previews. The golds array is read
 * incrementally (io/importers/lampOutputsHead.ts): the task and the first golds, each parsed, and nothing else of the file.
 * A generated outputs file of about 5 MB, pretty-printed (one gold a line) and on a single line as Python's json.dump
 * writes it, through the router by path and by upload: the whole file, and the head the Import dialog sends (its first
 * 256 KB cut after the last newline, or anywhere on a single line, even inside a UTF-8 character). A JSON file that is
 * not LaMP outputs, as large, is refused naming the place and quoting none of it; heads of the wrong shape name the
 * line, the column and the field.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from '../../src-main/api/router';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';

const SEED = 36_2;
const HEAD = 256 * 1024;
const tmp = mkdtempSync(join(tmpdir(), 'fg-lamp-outputs-'));
let services: AppServices;
let router: Router;
let golds: { id: string; output: string }[] = [];

/** Seeded outputs (LCG, seed printed): ids u0…, tag-like outputs with accented and CJK letters (multi-byte UTF-8). */
function generateGolds(seed: number, bytes: number): { id: string; output: string }[] {
  let state = seed >>> 0;
  const next = (n: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  const words = ['comedy', 'drame', 'romance', 'sci-fi', 'thriller', 'animé', '喜劇', 'fantasy', 'crime'];
  const out: { id: string; output: string }[] = [];
  let size = 0;
  while (size < bytes) {
    const output = Array.from({ length: 3 + next(40) }, () => words[next(words.length)]!).join(' ');
    out.push({ id: `u${out.length}`, output });
    size += Buffer.byteLength(output) + 30;
  }
  return out;
}

/** The Import dialog's head (src-renderer/.../format.ts headBytes): at most 256 KB, cut after the last newline if any. */
function headBytes(bytes: Buffer, max = HEAD): Buffer {
  if (bytes.length <= max) return bytes;
  const head = bytes.subarray(0, max);
  const nl = head.lastIndexOf(0x0a);
  return nl > 0 ? head.subarray(0, nl + 1) : head;
}

beforeAll(() => {
  console.log(`lampOutputsPreview: seed ${SEED}`);
  golds = generateGolds(SEED, 6 * 1024 * 1024);
  services = createAppServices(':memory:', { transport: 'http' });
  services.paths.setAllowedFolders([tmp]);
  router = createApiRouter(services, (err) => {
    throw err;
  });
  const pretty = `{\n  "task": "LaMP_2",\n  "golds": [\n${golds.map((g) => `    ${JSON.stringify(g)}`).join(',\n')}\n  ]\n}\n`;
  writeFileSync(join(tmp, 'pretty_outputs.json'), pretty);
  writeFileSync(join(tmp, 'oneline_outputs.json'), JSON.stringify({ task: 'LaMP_2', golds }));
  // Not LaMP outputs, as large: a package-lock-like JSON whose values are secrets.
  const deps = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`pkg-${i}`, { version: '1.0.0', integrity: `sha512-hunter2-${i}`, token: 'npm_hunter2' }]));
  writeFileSync(join(tmp, 'package-lock.json'), JSON.stringify({ name: 'x', lockfileVersion: 3, packages: deps }, null, 2));
});
afterAll(async () => {
  await services?.close();
  rmSync(tmp, { recursive: true, force: true });
});

type Env = Awaited<ReturnType<Router['call']>>;

function linesOf(env: Env): string[] {
  if (!env.ok) throw new Error(`refused: ${env.error.message}`);
  return (env.data as { lines: string[] }).lines;
}

const byPath = (file: string): Promise<Env> => router.call('collections.previewFile', { kind: 'lamp', path: join(tmp, file) });
const byUpload = (name: string, bytes: Buffer): Promise<Env> =>
  router.call('collections.previewFile', { kind: 'lamp', file: { name, content: bytes.toString('base64'), encoding: 'base64' } });

/** What a preview of these outputs shows: the task and the first 7 golds (8 lines), outputs cut at 300 characters. */
function expected(): string[] {
  const cut = (t: string): string => (t.length > 300 ? `${t.slice(0, 300)}…` : t);
  return ['{"task":"LaMP-2"}', ...golds.slice(0, 7).map((g) => JSON.stringify({ id: g.id, output: cut(g.output) }))];
}

describe('a large LaMP outputs file previews from its head (golds read incrementally)', () => {
  it('the generated file is what the test says: over 5 MB, its 256 KB head cut inside golds', () => {
    const pretty = readFileSync(join(tmp, 'pretty_outputs.json'));
    const oneline = readFileSync(join(tmp, 'oneline_outputs.json'));
    expect(pretty.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(oneline.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(() => JSON.parse(headBytes(pretty).toString('utf8'))).toThrow();
    expect(expected()[1]).toBe(JSON.stringify(golds[0]));
  });

  it('by path: the whole 5 MB file, pretty-printed and on one line', async () => {
    expect(linesOf(await byPath('pretty_outputs.json'))).toEqual(expected());
    expect(linesOf(await byPath('oneline_outputs.json'))).toEqual(expected());
  });

  it('by upload: the head the Import dialog sends (pretty: cut after a newline inside golds; one line: cut mid-line)', async () => {
    const pretty = readFileSync(join(tmp, 'pretty_outputs.json'));
    expect(linesOf(await byUpload('pretty_outputs.json', headBytes(pretty)))).toEqual(expected());
    const oneline = readFileSync(join(tmp, 'oneline_outputs.json'));
    const head = headBytes(oneline);
    expect(head.length).toBe(HEAD);
    expect(linesOf(await byUpload('oneline_outputs.json', head))).toEqual(expected());
  });

  it('by upload: a head cut inside a multi-byte UTF-8 character still previews (the cut character is dropped)', async () => {
    const oneline = readFileSync(join(tmp, 'oneline_outputs.json'));
    const lead = oneline.indexOf(Buffer.from('喜', 'utf8'), HEAD - 4096);
    expect(lead).toBeGreaterThan(0);
    for (const extra of [1, 2]) {
      const head = oneline.subarray(0, lead + extra); // 1 or 2 of the character's 3 bytes
      expect(linesOf(await byUpload('oneline_outputs.json', head))).toEqual(expected());
    }
  });

  it('by upload: the whole 5 MB file', async () => {
    expect(linesOf(await byUpload('oneline_outputs.json', readFileSync(join(tmp, 'oneline_outputs.json'))))).toEqual(expected());
  });

  it('the golds before the task: the task is read after them when the text has it', async () => {
    const text = JSON.stringify({ golds: golds.slice(0, 50), task: 'LaMP-2' });
    expect(linesOf(await byUpload('late_task.json', Buffer.from(text)))).toEqual(expected());
    // Cut before the task: the golds only.
    const cut = Buffer.from(text.slice(0, text.indexOf('"u20"')));
    expect(linesOf(await byUpload('late_task.json', cut))).toEqual(expected().slice(1).concat(JSON.stringify(golds[7])));
  });
});

describe('a head that is not LaMP outputs is refused, naming the place, quoting nothing', () => {
  async function refused(env: Env): Promise<{ message: string; field?: string | undefined }> {
    if (env.ok) throw new Error(`previewed: ${JSON.stringify(env.data).slice(0, 200)}`);
    expect(JSON.stringify(env.error)).not.toContain('hunter2');
    return env.error;
  }

  it('a large JSON object that is not LaMP (a package-lock with secrets), by path and as an upload head', async () => {
    const all = await refused(await byPath('package-lock.json'));
    expect(all.message).toBe(`${join(tmp, 'package-lock.json')}: golds: missing`);
    const head = headBytes(readFileSync(join(tmp, 'package-lock.json')));
    const cut = await refused(await byUpload('package-lock.json', head));
    const lines = head.toString('utf8').split('\n');
    const last = lines[lines.length - 2]!; // the head ends with a newline
    expect(cut.message).toBe(`package-lock.json:${lines.length - 1}: golds: the text read ends (column ${last.length + 1}) before the first complete gold: a LaMP outputs preview needs at least one {id, output}`);
  });

  it('golds that are not a list, a gold that is not {id, output}, a bad member: line, column and field named', async () => {
    const up = (text: string): Promise<Env> => byUpload('o.json', Buffer.from(text));
    expect((await refused(await up('{"task": "LaMP_2",\n "golds": {"hunter2": 1}}'))).message).toBe('o.json:2: golds: expected a list of {id, output}, found an object (column 11)');
    expect((await refused(await up('{"golds": [{"id": "u1", "output": "a"},\n  "hunter2"]}'))).message).toBe('o.json:2: golds[1]: expected {id, output}, got a text');
    expect((await refused(await up('{"golds": [{"id": "u1", "output": ["hunter2"]}]}'))).message).toBe('o.json:1: golds[0].output: expected a string, got a list');
    expect((await refused(await up('{"task": "hunter2", "golds": []}'))).message).toBe('o.json:1: task: not a LaMP task (LaMP_1 … LaMP_7)');
    expect((await refused(await up('{"task": "LaMP_2" "golds": []}'))).message).toBe('o.json:1: expected "," or "}" after a member of the outputs object, found a text (column 19)');
    expect((await refused(await up('{"golds": [{"id": "u1", "output": "a"} {"id": "u2"}]}'))).message).toBe('o.json:1: golds: expected "," or "]" after a gold, found an object (column 40)');
    expect((await refused(await up('{"task": , "golds": []}'))).message).toBe('o.json:1: a member of the outputs object has no value, found "," (column 10)');
    expect((await refused(await up('{\n\n  hunter2: 1}'))).message).toBe('o.json:3: expected a member name of the outputs object, found something that is not JSON (column 3)');
    expect((await refused(await up('{"golds": [{"id": "u1", "output": "a"}, {"id": "u1", "output": "b"}]}'))).message).toBe('o.json:1: golds[1].id: duplicate gold output for golds[1].id (first on line 1)');
    // Cut inside the first gold: nothing complete to show.
    expect((await refused(await up('{"task": "LaMP_2", "golds": [\n  {"id": "u1", "output": "hunt'))).message).toBe('o.json:2: golds: the text read ends (column 31) before the first complete gold: a LaMP outputs preview needs at least one {id, output}');
  });
});
