/**
 * Issue 26, "Output files replace whatever is at the path": an atomic write (temporary sibling, rename) over a FIFO, a
 * device node or a socket replaced it with a regular file and reported success. Now refused, naming the path; a
 * symbolic link is written through (the linked file is replaced, the link stays). The device case uses /dev/null only
 * through the check (no write is attempted there, so a broken check cannot replace it even as root); the CLI cases use
 * a FIFO, a socket and links made in a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputTargetPath } from '../../src-main/io/outputTarget';
import { writeFileAtomic } from '../../src-main/io/manifest/writeManifest';
import { runCliCaptured } from '../support/cli';

let dir: string;
let fifo: string;
let sock: string;
let server: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-output-target-'));
  fifo = join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  sock = join(dir, 's.sock');
  server = createServer();
  await new Promise<void>((res) => server.listen(sock, res));
  writeFileSync(join(dir, 'real.trec'), 'old\n');
  symlinkSync(join(dir, 'real.trec'), join(dir, 'link.trec'));
  symlinkSync(fifo, join(dir, 'link-to-pipe'));
  symlinkSync(join(dir, 'nothing-here'), join(dir, 'dangling'));
  mkdirSync(join(dir, 'folder'));
});

afterAll(async () => {
  await new Promise<void>((res) => server.close(() => res()));
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });
const RUN_LINES = ['q1 Q0 d1 1 3.0 bm25', 'q1 Q0 d2 2 2.0 bm25', 'q1 Q0 d3 3 1.0 bm25'].join('\n') + '\n';
const sampleArgs = (out: string) => ['sample', '--run', 'run.trec', '--alpha', '2', '--samples', '2', '-k', '2', '--seed', '7', '--output', out];

describe('outputTargetPath', () => {
  it('returns the path itself for nothing there and for a regular file; the linked file for a link to one', () => {
    expect(outputTargetPath(join(dir, 'new.txt'))).toBe(join(dir, 'new.txt'));
    expect(outputTargetPath(join(dir, 'real.trec'))).toBe(join(dir, 'real.trec'));
    expect(outputTargetPath(join(dir, 'link.trec'), 'link.trec', { followSymlinks: true })).toBe(join(dir, 'real.trec'));
    // Without the explicit flag a link is refused (issue 36 item 5).
    expect(() => outputTargetPath(join(dir, 'link.trec'), 'link.trec')).toThrow(/^link\.trec is a symbolic link; refusing to write through it/);
  });

  it('refuses a FIFO, a device, a socket, a folder and links to them or to nothing, naming the path as given', () => {
    expect(() => outputTargetPath(fifo, 'pipe')).toThrow(/^pipe is a FIFO \(named pipe\), not a regular file; refusing to replace it/);
    expect(() => outputTargetPath('/dev/null')).toThrow(/^\/dev\/null is a character device, not a regular file/);
    expect(() => outputTargetPath(sock, 's.sock')).toThrow(/^s\.sock is a socket/);
    expect(() => outputTargetPath(join(dir, 'folder'), 'folder')).toThrow(/^folder is a folder/);
    expect(() => outputTargetPath(join(dir, 'link-to-pipe'), 'link-to-pipe', { followSymlinks: true })).toThrow(/^link-to-pipe is a symbolic link to a FIFO/);
    expect(() => outputTargetPath(join(dir, 'dangling'), 'dangling', { followSymlinks: true })).toThrow(/^dangling is a symbolic link to a missing file/);
    expect(() => outputTargetPath(join(dir, 'dangling'), 'dangling')).toThrow(/^dangling is a symbolic link; refusing/);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});

describe('writers that rename into place', () => {
  it('writeFileAtomic (manifests) refuses a FIFO and a socket, leaves them and no temporary file; writes through a link', async () => {
    await expect(writeFileAtomic(fifo, 'x')).rejects.toThrow(/is a FIFO/);
    await expect(writeFileAtomic(sock, 'x')).rejects.toThrow(/is a socket/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(sock).isSocket()).toBe(true);
    await expect(writeFileAtomic(join(dir, 'link.trec'), 'new\n')).rejects.toThrow(/is a symbolic link; refusing/);
    await writeFileAtomic(join(dir, 'link.trec'), 'new\n', { followSymlinks: true });
    expect(lstatSync(join(dir, 'link.trec')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.trec'), 'utf8')).toBe('new\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('sample --output refuses a FIFO and a socket (exit 2, path named), writes through a link, leaves no partial file', async () => {
    writeFileSync(join(dir, 'run.trec'), RUN_LINES);
    for (const [target, kind] of [['pipe', 'a FIFO'], ['s.sock', 'a socket'], ['link-to-pipe', 'a symbolic link; refusing']] as const) {
      const r = await cli(...sampleArgs(target));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${target} is ${kind}`);
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(sock).isSocket()).toBe(true);
    const ok = await cli(...sampleArgs('link.trec'), '--follow-symlinks');
    expect(ok.code, ok.stderr).toBe(0);
    expect(lstatSync(join(dir, 'link.trec')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.trec'), 'utf8')).toMatch(/^q1 Q0 d\d /);
    expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
  });

  it('plan export -o refuses a FIFO, a socket and a folder before opening any workspace, and leaves them', async () => {
    const spec = join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json');
    for (const [target, kind] of [['pipe', 'a FIFO (named pipe)'], ['s.sock', 'a socket'], ['folder', 'a folder']] as const) {
      const r = await cli('plan', 'export', spec, '-o', target, '-w', join(dir, 'never.fairground'));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${target} is ${kind}, not a regular file`);
    }
    expect(existsSync(join(dir, 'never.fairground'))).toBe(false);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(statSync(join(dir, 'folder')).isDirectory()).toBe(true);
  });
});
