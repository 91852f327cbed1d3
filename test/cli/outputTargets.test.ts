/**
 * Issue 26 item 5: the remaining CLI output files go through io/outputTarget.ts — `retrieve
 * --output` and `label export -o` refuse a FIFO or a folder (naming it, leaving it as it was) and
 * write through a symlink to a regular file only with --follow-symlinks (issue 36 item 5), atomically.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli';

let dir: string;
const cli = (argv: string[]) => runCliCaptured(argv, { cwd: dir });
const W = ['--workspace', 'w.fairground'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-outputs-'));
  writeFileSync(join(dir, 'docs.jsonl'), '{"id":"d1","text":"red apples"}\n{"id":"d2","text":"green pears"}\n');
  writeFileSync(join(dir, 'queries.jsonl'), '{"id":"q1","text":"apples"}\n');
  expect((await cli(['workspace', 'init', ...W])).code).toBe(0);
  expect((await cli(['collection', 'import', '--kind', 'corpus', '--name', 'c', 'docs.jsonl', ...W])).code).toBe(0);
  expect((await cli(['collection', 'import', '--kind', 'queries', '--name', 'c', 'queries.jsonl', ...W])).code).toBe(0);
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  mkdirSync(join(dir, 'folder'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('output targets', () => {
  it('retrieve --output refuses a FIFO and a folder, and writes through a link to a regular file', async () => {
    const fifo = await cli(['retrieve', '--collection', 'c', '--method', 'bm25', '--output', 'pipe', '--plain', ...W]);
    expect(fifo.code).not.toBe(0);
    expect(fifo.stderr).toContain('pipe is a FIFO (named pipe), not a regular file; refusing to replace it');
    expect(lstatSync(join(dir, 'pipe')).isFIFO()).toBe(true);
    // Refused before anything is computed: no run was stored.
    expect((await cli(['retrieve', '--collection', 'c', '--method', 'bm25', '--output', 'fresh.run', '--plain', ...W])).stderr).toContain("stored run 'bm25' (id 1)");
    const folder = await cli(['retrieve', '--collection', 'c', '--method', 'bm25', '--name', 'b2', '--output', 'folder', '--plain', ...W]);
    expect(folder.stderr).toContain('folder is a folder, not a regular file');
    writeFileSync(join(dir, 'real.run'), 'old\n');
    symlinkSync(join(dir, 'real.run'), join(dir, 'link.run'));
    const refused = await cli(['retrieve', '--collection', 'c', '--method', 'bm25', '--name', 'b3', '--output', 'link.run', '--plain', ...W]);
    expect(refused.stderr).toContain('link.run is a symbolic link; refusing to write through it');
    const ok = await cli(['retrieve', '--collection', 'c', '--method', 'bm25', '--name', 'b3', '--output', 'link.run', '--plain', '--follow-symlinks', ...W]);
    expect(ok.code).toBe(0);
    expect(lstatSync(join(dir, 'link.run')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.run'), 'utf8')).toMatch(/^q1 Q0 d1 1 \S+ b3\n$/);
  });

  it('label export -o refuses a FIFO', async () => {
    const r = await cli(['label', 'export', '--collection', 'c', '--format', 'qrels', '--min-useful', '0', '-o', 'pipe', ...W]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('pipe is a FIFO (named pipe)');
    expect(lstatSync(join(dir, 'pipe')).isFIFO()).toBe(true);
  });
});
