/**
 * Issue 36 item 5, "every writer treats output paths alike": `model make-tiny OUT` replaced a FIFO, a symlink and a
 * dangling symlink; `retrieve` and `experiment export` wrote the main file (and `retrieve` stored a run) before failing
 * on a FIFO sidecar, and wrote a sidecar through a symlink; every writer turned an overwritten 0600 file into 0644.
 * Now one helper (io/outputTarget.ts) checks the main file and every sidecar before anything is computed, stored or
 * written, refuses links unless --follow-symlinks is given, and keeps the mode of a replaced file.
 * Real FIFOs (mkfifo), links and folders in a temporary folder; real workspaces.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutputTargets, openPartialOutput, writeOutputFile, checkOutputTarget } from '../../src-main/io/outputTarget';
import { runCliCaptured } from '../support/cli';

let dir: string;
const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });
const W = ['--workspace', 'w.fairground'];
const mode = (p: string) => statSync(p).mode & 0o777;

/** A fresh folder of hostile targets under `dir`: a FIFO, a link to a file, a dangling link, a folder. */
function hostile(name: string): { fifo: string; link: string; real: string; dangling: string; folder: string } {
  const base = join(dir, name);
  mkdirSync(base);
  const t = { fifo: join(base, 'pipe'), link: join(base, 'link'), real: join(base, 'real'), dangling: join(base, 'dangling'), folder: join(base, 'folder') };
  execFileSync('mkfifo', [t.fifo]);
  writeFileSync(t.real, 'old\n');
  symlinkSync(t.real, t.link);
  symlinkSync(join(base, 'nothing-here'), t.dangling);
  mkdirSync(t.folder);
  return t;
}

/** A regular file of mode 0600 (chmod, so the umask cannot change it). */
function private0600(path: string): void {
  writeFileSync(path, 'old\n');
  chmodSync(path, 0o600);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-output-writers-'));
  writeFileSync(join(dir, 'docs.jsonl'), '{"id":"d1","text":"red apples"}\n{"id":"d2","text":"green pears"}\n');
  writeFileSync(join(dir, 'queries.jsonl'), '{"id":"q1","text":"apples"}\n');
  expect((await cli('workspace', 'init', ...W)).code).toBe(0);
  expect((await cli('collection', 'import', '--kind', 'corpus', '--name', 'c', 'docs.jsonl', ...W)).code).toBe(0);
  expect((await cli('collection', 'import', '--kind', 'queries', '--name', 'c', 'queries.jsonl', ...W)).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('io/outputTarget', () => {
  it('checks every target before anything is written: a FIFO sidecar refuses the pair, the main file stays absent', () => {
    const t = hostile('unit-pair');
    const main = join(dir, 'unit-pair', 'main.txt');
    expect(() => checkOutputTargets([{ path: main, shown: 'main.txt' }, { path: t.fifo, shown: 'pipe' }])).toThrow(/^pipe is a FIFO \(named pipe\)/);
    expect(existsSync(main)).toBe(false);
    expect(() => checkOutputTargets([{ path: t.real, shown: 'real' }, { path: t.link, shown: 'link' }], { followSymlinks: true })).toThrow(/^link and real are the same file/);
  });

  it('an overwritten 0600 file stays 0600 (and 0640 stays 0640); a new file gets the usual mode', () => {
    const p = join(dir, 'unit-mode.txt');
    private0600(p);
    writeOutputFile(p, 'new\n');
    expect(readFileSync(p, 'utf8')).toBe('new\n');
    expect(mode(p)).toBe(0o600);
    chmodSync(p, 0o640);
    writeOutputFile(p, 'newer\n');
    expect(mode(p)).toBe(0o640);
    const fresh = join(dir, 'unit-fresh.txt');
    writeOutputFile(fresh, 'x');
    const umask = process.umask();
    expect(mode(fresh)).toBe(0o666 & ~umask);
  });

  it('a FIFO that appears at the target while the file is written is refused at the rename, and the temporary file removed', () => {
    const base = join(dir, 'unit-race');
    mkdirSync(base);
    const p = join(base, 'out');
    const partial = openPartialOutput(checkOutputTarget(p, 'out'));
    partial.write('data');
    execFileSync('mkfifo', [p]);
    expect(() => partial.commit()).toThrow(/^out is a FIFO/);
    expect(lstatSync(p).isFIFO()).toBe(true);
    expect(readdirSync(base)).toEqual(['out']);
  });
});

describe('model make-tiny OUT', () => {
  it('refuses a FIFO, a symlink, a dangling symlink and a folder (exit 2, path named) and leaves each as it was', async () => {
    const t = hostile('tiny');
    const cases: [string, RegExp][] = [
      [t.fifo, /pipe is a FIFO \(named pipe\), not a regular file/],
      [t.link, /link is a symbolic link; refusing to write through it/],
      [t.dangling, /dangling is a symbolic link; refusing/],
      [t.folder, /folder is a folder, not a regular file/],
    ];
    for (const [target, message] of cases) {
      const r = await cli('model', 'make-tiny', target);
      expect(r.code, target).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(lstatSync(t.fifo).isFIFO()).toBe(true);
    expect(lstatSync(t.link).isSymbolicLink()).toBe(true);
    expect(readFileSync(t.real, 'utf8')).toBe('old\n');
    expect(lstatSync(t.dangling).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'tiny', 'nothing-here'))).toBe(false);
    expect(readdirSync(t.folder)).toEqual([]);
    // A dangling link stays refused with the flag (nothing to follow to).
    expect((await cli('model', 'make-tiny', t.dangling, '--follow-symlinks')).stderr).toMatch(/dangling is a symbolic link to a missing file/);
    expect(readdirSync(join(dir, 'tiny')).sort()).toEqual(['dangling', 'folder', 'link', 'pipe', 'real']);
  });

  it('with --follow-symlinks writes the linked file (the link stays); an overwritten 0600 model stays 0600', async () => {
    const t = hostile('tiny-ok');
    const ok = await cli('model', 'make-tiny', t.link, '--follow-symlinks');
    expect(ok.code, ok.stderr).toBe(0);
    expect(lstatSync(t.link).isSymbolicLink()).toBe(true);
    expect(readFileSync(t.real).subarray(0, 4).toString('latin1')).toBe('GGUF');
    const p = join(dir, 'tiny-ok', 'model.gguf');
    private0600(p);
    expect((await cli('model', 'make-tiny', p)).code).toBe(0);
    expect(readFileSync(p).subarray(0, 4).toString('latin1')).toBe('GGUF');
    expect(mode(p)).toBe(0o600);
  });
});

describe('retrieve --output FILE (and its FILE.ir_metadata.yaml sidecar)', () => {
  it('a FIFO, a symlink or a folder at the sidecar refuses the command before a run is stored or the run file written', async () => {
    const t = hostile('retrieve');
    symlinkSync(t.fifo, join(dir, 'retrieve', 'a.run.ir_metadata.yaml'));
    symlinkSync(t.real, join(dir, 'retrieve', 'b.run.ir_metadata.yaml'));
    mkdirSync(join(dir, 'retrieve', 'c.run.ir_metadata.yaml'));
    execFileSync('mkfifo', [join(dir, 'retrieve', 'd.run.ir_metadata.yaml')]);
    const cases: [string, RegExp][] = [
      ['retrieve/a.run', /a\.run\.ir_metadata\.yaml is a symbolic link; refusing/],
      ['retrieve/b.run', /b\.run\.ir_metadata\.yaml is a symbolic link; refusing/],
      ['retrieve/c.run', /c\.run\.ir_metadata\.yaml is a folder/],
      ['retrieve/d.run', /d\.run\.ir_metadata\.yaml is a FIFO/],
    ];
    for (const [out, message] of cases) {
      const r = await cli('retrieve', '--collection', 'c', '--method', 'bm25', '--name', 'refused', '--output', out, ...W);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(join(dir, out)), out).toBe(false);
    }
    expect(readFileSync(t.real, 'utf8')).toBe('old\n');
    // No run named 'refused' was stored: the name is still free.
    const ok = await cli('retrieve', '--collection', 'c', '--method', 'bm25', '--name', 'refused', '--output', 'retrieve/ok.run', ...W);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/stored run 'refused' \(id \d+\)/);
    expect(readFileSync(join(dir, 'retrieve', 'ok.run'), 'utf8')).toMatch(/^q1 Q0 d1 1 \S+ refused\n$/);
    expect(existsSync(join(dir, 'retrieve', 'ok.run.ir_metadata.yaml'))).toBe(true);
  });

  it('overwritten 0600 run and sidecar files stay 0600', async () => {
    mkdirSync(join(dir, 'retrieve-mode'));
    private0600(join(dir, 'retrieve-mode', 'r.run'));
    private0600(join(dir, 'retrieve-mode', 'r.run.ir_metadata.yaml'));
    const r = await cli('retrieve', '--collection', 'c', '--method', 'bm25', '--name', 'm', '--output', 'retrieve-mode/r.run', ...W);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'retrieve-mode', 'r.run'), 'utf8')).toMatch(/^q1 Q0 d1 1 /);
    expect(mode(join(dir, 'retrieve-mode', 'r.run'))).toBe(0o600);
    expect(mode(join(dir, 'retrieve-mode', 'r.run.ir_metadata.yaml'))).toBe(0o600);
  });
});

describe('label export -o and sample --output', () => {
  it('label export refuses a symlink and a dangling symlink and keeps a 0600 file 0600', async () => {
    const t = hostile('label');
    for (const target of [t.link, t.dangling]) {
      const r = await cli('label', 'export', '--collection', 'c', '--format', 'qrels', '--min-useful', '0', '-o', target, ...W);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is a symbolic link; refusing');
    }
    expect(readFileSync(t.real, 'utf8')).toBe('old\n');
    const p = join(dir, 'label', 'labels.qrels');
    private0600(p);
    expect((await cli('label', 'export', '--collection', 'c', '--format', 'qrels', '--min-useful', '0', '-o', p, ...W)).code).toBe(0);
    expect(readFileSync(p, 'utf8')).not.toBe('old\n');
    expect(mode(p)).toBe(0o600);
  });

  it('sample keeps a 0600 file 0600 and refuses a folder', async () => {
    writeFileSync(join(dir, 'run.trec'), 'q1 Q0 d1 1 3.0 bm25\nq1 Q0 d2 2 2.0 bm25\n');
    const t = hostile('sample');
    const args = (out: string) => ['sample', '--run', 'run.trec', '--alpha', '2', '--samples', '2', '-k', '2', '--seed', '7', '--output', out];
    expect((await cli(...args(t.folder))).stderr).toContain('folder is a folder');
    const p = join(dir, 'sample', 's.trec');
    private0600(p);
    expect((await cli(...args(p))).code).toBe(0);
    expect(readFileSync(p, 'utf8')).toMatch(/^q1 Q0 d\d 1 2 pl_alpha2\n/);
    expect(mode(p)).toBe(0o600);
  });
});

describe('experiment export RUN -o FILE (and its FILE.manifest.json sidecar)', () => {
  const E = ['--workspace', 'exp.fairground'];
  let run: string;
  beforeAll(async () => {
    // The demo's MoI spec on the simulated reader: a finished run to export (no model download, no GPU).
    const spec = join(process.cwd(), 'resources', 'demo', 'experiments', 'moi.json');
    const r = await cli('run', spec, ...E);
    expect(r.code, r.stderr).toBe(0);
    run = /run (\d+)/.exec(r.stdout + r.stderr)![1]!;
  }, 120_000);

  it('a FIFO or a symlink at the manifest refuses the export before the file is written; 0600 files stay 0600', async () => {
    const t = hostile('export');
    execFileSync('mkfifo', [join(dir, 'export', 'a.csv.manifest.json')]);
    symlinkSync(t.real, join(dir, 'export', 'b.csv.manifest.json'));
    for (const [out, message] of [['export/a.csv', /a\.csv\.manifest\.json is a FIFO/], ['export/b.csv', /b\.csv\.manifest\.json is a symbolic link; refusing/]] as const) {
      const r = await cli('experiment', 'export', run, '--format', 'per-query-csv', '-o', out, ...E);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(join(dir, out)), out).toBe(false);
    }
    expect(readFileSync(t.real, 'utf8')).toBe('old\n');
    const link = await cli('experiment', 'export', run, '--format', 'per-query-csv', '-o', t.link, ...E);
    expect(link.stderr).toContain('link is a symbolic link; refusing');
    const p = join(dir, 'export', 'c.csv');
    private0600(p);
    private0600(`${p}.manifest.json`);
    const ok = await cli('experiment', 'export', run, '--format', 'per-query-csv', '-o', p, ...E);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(p, 'utf8')).not.toBe('old\n');
    expect(JSON.parse(readFileSync(`${p}.manifest.json`, 'utf8'))).toMatchObject({ export: { file: 'c.csv' } });
    expect(mode(p)).toBe(0o600);
    expect(mode(`${p}.manifest.json`)).toBe(0o600);
  });
});
