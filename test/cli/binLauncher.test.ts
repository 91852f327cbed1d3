/**
 * Issue 18 item 4: bin/fairground.js runs the built dist/main/cli.js whenever the build is current
 * (every file in dist/main/build-inputs.json unchanged) and the TypeScript sources through tsx
 * otherwise. Checked on a copy of the launcher in a scratch checkout whose two entry points say
 * which one ran; `run` goes to runMain.cjs through the code cache where the build has it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(__dirname, '..', '..');
let root: string;

function stamp(files: string[]): void {
  const recorded = Object.fromEntries(files.map((f) => [f, { size: statSync(path.join(root, f)).size, mtimeMs: statSync(path.join(root, f)).mtimeMs }]));
  writeFileSync(path.join(root, 'dist', 'main', 'build-inputs.json'), JSON.stringify({ version: 1, files: recorded }));
}

function launch(env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'fairground.js')], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'fairground-bin-'));
  for (const dir of ['bin', 'src-main/cli', 'dist/main', 'node_modules']) mkdirSync(path.join(root, dir), { recursive: true });
  copyFileSync(path.join(repo, 'bin', 'fairground.js'), path.join(root, 'bin', 'fairground.js'));
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  symlinkSync(path.join(repo, 'node_modules', 'tsx'), path.join(root, 'node_modules', 'tsx'));
  writeFileSync(path.join(root, 'src-main', 'cli', 'main.ts'), "export async function main(): Promise<void> { console.log('source'); }\n");
  writeFileSync(path.join(root, 'src-main', 'cli', 'other.ts'), 'export const x = 1;\n');
  writeFileSync(path.join(root, 'dist', 'main', 'cli.js'), "export async function main() { console.log('dist'); }\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('bin/fairground.js', () => {
  it('runs the build while it is current, the sources as soon as an input changes or the record is missing', () => {
    stamp(['src-main/cli/main.ts', 'src-main/cli/other.ts', 'package.json']);
    expect(launch()).toBe('dist');
    expect(launch({ FAIRGROUND_USE_SOURCE: '1' })).toBe('source');

    const other = path.join(root, 'src-main', 'cli', 'other.ts');
    const later = new Date(statSync(other).mtimeMs + 5000);
    utimesSync(other, later, later); // same size, newer mtime: an edit
    expect(launch()).toBe('source');
    expect(launch({ FAIRGROUND_USE_DIST: '1' })).toBe('dist');

    stamp(['src-main/cli/main.ts', 'src-main/cli/other.ts']);
    expect(launch()).toBe('dist');
    writeFileSync(other, 'export const x = 22;\n'); // size changes
    expect(launch()).toBe('source');

    stamp(['src-main/cli/main.ts', 'src-main/cli/other.ts']);
    rmSync(other);
    expect(launch()).toBe('source'); // a recorded input was deleted
    writeFileSync(other, 'export const x = 1;\n');

    rmSync(path.join(root, 'dist', 'main', 'build-inputs.json'));
    expect(launch()).toBe('source');
    writeFileSync(path.join(root, 'dist', 'main', 'build-inputs.json'), '{ not json');
    expect(launch()).toBe('source');
  });

  it('runs the build when there are no sources (an installed copy)', () => {
    rmSync(path.join(root, 'src-main'), { recursive: true, force: true });
    expect(launch()).toBe('dist');
  });

  it("runs `run` from runMain.cjs through the code cache (bin/codeCache.js) when the build has it, else runMain.js", () => {
    copyFileSync(path.join(repo, 'bin', 'codeCache.js'), path.join(root, 'bin', 'codeCache.js'));
    const runLaunch = (env: Record<string, string>): string => {
      const r = spawnSync(process.execPath, [path.join(root, 'bin', 'fairground.js'), 'run', '--x'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });
      expect(r.stderr).toBe('');
      return r.stdout.trim();
    };
    const cache = path.join(root, 'cache');
    const log = path.join(root, 'cache.log');
    const env = { FAIRGROUND_CODE_CACHE: cache, FAIRGROUND_CODE_CACHE_LOG: log };
    const statuses = (): string[] => readFileSync(log, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { status: string }).status);
    writeFileSync(path.join(root, 'dist', 'main', 'runMain.js'), "export async function main() { console.log('esm', process.argv.slice(2).join(' ')); }\n");
    expect(runLaunch(env)).toBe('esm run --x');
    writeFileSync(path.join(root, 'dist', 'main', 'runMain.cjs'), "exports.main = async () => console.log('twin', process.argv.slice(2).join(' '), typeof __fgImportMetaUrl);\n");
    expect(runLaunch(env)).toBe('twin run --x string');
    expect(runLaunch(env)).toBe('twin run --x string');
    expect(statuses()).toEqual(['none', 'accepted']);
    expect(runLaunch({ ...env, FAIRGROUND_CODE_CACHE: 'off' })).toBe('esm run --x');
    expect(statuses()).toEqual(['none', 'accepted', 'off']);
    // Without the cache folder's variables: the per-user folder, under XDG_CACHE_HOME.
    expect(runLaunch({ XDG_CACHE_HOME: path.join(root, 'xdg'), HOME: root })).toBe('twin run --x string');
    expect(readdirSync(path.join(root, 'xdg', 'fairground', 'code-cache')).filter((n) => /^runMain-[0-9a-f]{40}\.v8cache$/.test(n))).toHaveLength(1);
  });
});
