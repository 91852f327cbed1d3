/**
 * Issue 25: `fairground run` runs from its own one-file bundle (src-main/cli/runMain.ts,
 * dist/main/runMain.js), as `eval ir` does (evalIrEntry.test.ts). Bundled here as scripts/build.mjs
 * bundles it (zod included, with its English messages only: scripts/bundleZod.mjs), it must load
 * no chunk of ours and print, exit and err exactly as the whole CLI does. Its CommonJS twin
 * (runMain.cjs, scripts/bundleZod.mjs mainCjsBundleOptions), which bin/fairground.js runs through
 * V8's code cache (bin/codeCache.js), must too, whatever state the cache is in: none, partial (made
 * by --help or --dry-run), complete, corrupt, rejected by V8, or in a folder that cannot be written.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheFileBytes, parseCacheFile } from '../../bin/codeCache.js';
import { mainBundleOptions, mainCjsBundleOptions } from '../../scripts/bundleZod.mjs';
import { runCliCaptured } from '../support/cli';

const repo = path.resolve(__dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'fairground-run-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bundle = path.join(dir, 'out', 'runMain.js');
const twinFile = path.join(dir, 'out', 'runMain.cjs');
const cacheLog = path.join(dir, 'code-cache.log');

beforeAll(async () => {
  // The options of scripts/build.mjs for the unsplit entries (scripts/bundleZod.mjs mainBundleOptions).
  // The engine's worker beside it, where dist/main has it (worker/workerMain.js).
  await build({ ...mainBundleOptions(repo, path.join(dir, 'out')), entryPoints: { runMain: 'src-main/cli/runMain.ts', 'worker/workerMain': 'src-main/engine/local/worker/workerMain.ts' } });
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  // The packages the bundle keeps external (better-sqlite3, sqlite-vec, ...), as beside dist/main.
  symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'launch.mjs'), `const { main } = await import(${JSON.stringify(bundle)}); await main();\n`);
  // The twin, run as bin/fairground.js runs it (bin/codeCache.js runEntry).
  await build({ ...mainCjsBundleOptions(repo, path.join(dir, 'out')), entryPoints: { runMain: 'src-main/cli/runMain.ts' } });
  const codeCache = path.join(repo, 'bin', 'codeCache.js');
  writeFileSync(path.join(dir, 'twin.mjs'), `const { runEntry } = await import(${JSON.stringify(codeCache)}); await runEntry(${JSON.stringify(twinFile)}, ${JSON.stringify(bundle)});\n`);
}, 180_000);

function bundled(args: string[]): { code: number | null; stdout: string; stderr: string } {
  // FAIRGROUND_ROOT: the bundle lives in a temporary folder, not under the checkout (the demo's files).
  const env = { ...process.env, FAIRGROUND_ROOT: repo };
  const r = spawnSync(process.execPath, [path.join(dir, 'launch.mjs'), 'run', ...args], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface CacheLine {
  cacheFile: string;
  status: 'none' | 'accepted' | 'rejected' | 'corrupt' | 'unsafe' | 'off';
  complete: boolean;
  wrote: boolean;
}

/** The twin through the code cache in `cacheDir`, and what bin/codeCache.js says it did (FAIRGROUND_CODE_CACHE_LOG). */
function twin(args: string[], cacheDir: string): { code: number | null; stdout: string; stderr: string; cache: CacheLine } {
  rmSync(cacheLog, { force: true });
  const env = { ...process.env, FAIRGROUND_ROOT: repo, FAIRGROUND_CODE_CACHE: cacheDir, FAIRGROUND_CODE_CACHE_LOG: cacheLog };
  const r = spawnSync(process.execPath, [path.join(dir, 'twin.mjs'), 'run', ...args], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  const lines = existsSync(cacheLog) ? readFileSync(cacheLog, 'utf8').trim().split('\n') : [];
  expect(lines, r.stderr).toHaveLength(1);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, cache: JSON.parse(lines[0]!) as CacheLine };
}

describe('the run entry (one file)', () => {
  it('imports no chunk or other module of ours, and bundles zod with English messages only', () => {
    const text = readFileSync(bundle, 'utf8');
    expect(text).not.toMatch(/import\(["']\.\.?\//);
    expect(text).not.toMatch(/from ["']\.\.?\//);
    expect(text).toContain('locales/en.js');
    expect(text).not.toContain('locales/fr.js');
    expect(text).not.toContain('locales/zh-CN.js');
  });

  it('prints, exits and errs as the whole CLI', async () => {
    const demo = JSON.parse(readFileSync(path.join(repo, 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;
    const spec = { ...demo, name: 'run entry', generator: { model: 'fairground-tiny' }, alphas: [8], samples: 20, oracle: false, deterministic: false };
    writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec));
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ ...spec, k: 'two' }));
    // The demo set up once (by the whole CLI); each side then plans on its own copy.
    mkdirSync(path.join(dir, 'a'));
    mkdirSync(path.join(dir, 'b'));
    const setUp = await runCliCaptured(['run', 'spec.json', '--dry-run', '--threads', '1', '--workspace', path.join(dir, 'a', 'ws.fairground')], { cwd: dir });
    expect(setUp.code, setUp.stderr).toBe(0);
    copyFileSync(path.join(dir, 'a', 'ws.fairground'), path.join(dir, 'b', 'ws.fairground'));
    const cases = [
      ['--help'],
      ['missing.json', '--workspace', 'WS'],
      ['bad.json', '--workspace', 'WS'],
      ['spec.json', '--dry-run', '--cache-only', '--workspace', 'WS'],
      ['spec.json', '--dry-run', '--workspace', 'WS'],
      ['spec.json', '--dry-run', '--json', '--workspace', 'WS'],
    ];
    // The twin's cache: none before --help, which writes a partial one; the later cases find it.
    const cacheDir = path.join(dir, 'cc');
    const statuses: string[] = [];
    copyFileSync(path.join(dir, 'a', 'ws.fairground'), path.join(dir, 'c.fairground'));
    for (const args of cases) {
      const whole = await runCliCaptured(['run', ...args.map((a) => (a === 'WS' ? path.join(dir, 'a', 'ws.fairground') : a))], { cwd: dir });
      const one = bundled(args.map((a) => (a === 'WS' ? path.join(dir, 'b', 'ws.fairground') : a)));
      const same = (s: string) => s.replaceAll(path.join(dir, 'b'), path.join(dir, 'a')).replaceAll(path.join(dir, 'c.fairground'), path.join(dir, 'a', 'ws.fairground'));
      expect({ ...one, stdout: same(one.stdout), stderr: same(one.stderr) }, args.join(' ')).toEqual(whole);
      const { cache, ...cjs } = twin(
        args.map((a) => (a === 'WS' ? path.join(dir, 'c.fairground') : a)),
        cacheDir,
      );
      expect({ ...cjs, stdout: same(cjs.stdout), stderr: same(cjs.stderr) }, `twin: ${args.join(' ')}`).toEqual(whole);
      statuses.push(`${cache.status}${cache.wrote ? ' wrote' : ''}`);
    }
    expect(statuses).toEqual(['none wrote', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
    const cacheFile = readdirSync(cacheDir).filter((n) => n.endsWith('.v8cache'));
    expect(cacheFile).toHaveLength(1);
    expect(cacheFile[0]).toMatch(/^runMain-[0-9a-f]{40}\.v8cache$/);
    expect(parseCacheFile(readFileSync(path.join(cacheDir, cacheFile[0]!)))?.complete).toBe(false);
    const plan = bundled(['spec.json', '--dry-run', '--workspace', path.join(dir, 'b', 'ws.fairground')]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^plan of 'run entry': \d+ call\(s\) to compute, 0 answered by the cache$/m);
    // A real run from the bundle: the engine's worker is found beside it and every call is computed.
    const ran = bundled(['spec.json', '--threads', '1', '--workspace', path.join(dir, 'b', 'ws.fairground')]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^run 1 of experiment 'run entry' \(spec version 1\): succeeded$/m);
    expect(ran.stdout).toMatch(/^generations: 18 distinct prompts for 320 sampled rankings \(302 calls saved by de-duplication\); 18 computed, 0 from the call cache$/m);
    const bad = bundled(['bad.json', '--workspace', path.join(dir, 'b', 'ws.fairground')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^fairground run: .*bad\.json.*\bk\b/);

    // The same real run from the twin: its partial cache is replaced by a complete one, which the next process uses.
    const ranTwin = twin(['spec.json', '--threads', '1', '--workspace', path.join(dir, 'c.fairground')], cacheDir);
    expect(ranTwin.code, ranTwin.stderr).toBe(0);
    expect(ranTwin.stdout).toMatch(/^run 1 of experiment 'run entry' \(spec version 1\): succeeded$/m);
    expect(ranTwin.stdout).toMatch(/^generations: 18 distinct prompts for 320 sampled rankings \(302 calls saved by de-duplication\); 18 computed, 0 from the call cache$/m);
    expect(ranTwin.cache).toMatchObject({ status: 'accepted', complete: true, wrote: true });
    expect(parseCacheFile(readFileSync(ranTwin.cache.cacheFile))?.complete).toBe(true);
    const badTwin = twin(['bad.json', '--workspace', path.join(dir, 'c.fairground')], cacheDir);
    expect({ code: badTwin.code, stderr: badTwin.stderr.replaceAll(path.join(dir, 'c.fairground'), path.join(dir, 'b', 'ws.fairground')) }).toEqual({ code: bad.code, stderr: bad.stderr });
    expect(badTwin.cache).toMatchObject({ status: 'accepted', wrote: false });
  }, 240_000);

  it('runs the same with a corrupt, foreign or unwritable cache, and replaces what it could not use', () => {
    const cacheDir = path.join(dir, 'cc2');
    const help = bundled(['--help']);
    expect(help.code).toBe(0);
    const first = twin(['--help'], cacheDir);
    expect({ code: first.code, stdout: first.stdout, stderr: first.stderr }).toEqual(help);
    expect(first.cache).toMatchObject({ status: 'none', wrote: true, complete: false });
    const good = readFileSync(first.cache.cacheFile);
    expect(twin(['--help'], cacheDir).cache).toMatchObject({ status: 'accepted', wrote: false });

    // One byte of V8's data flipped (V8 would not notice: its release builds check lengths and versions, not contents).
    const flipped = Buffer.from(good);
    const at = flipped.length - 1 - Math.floor(flipped.length / 3);
    flipped[at] = flipped[at]! ^ 0x5a;
    writeFileSync(first.cache.cacheFile, flipped);
    const corrupt = twin(['--help'], cacheDir);
    expect({ code: corrupt.code, stdout: corrupt.stdout, stderr: corrupt.stderr }).toEqual(help);
    expect(corrupt.cache).toMatchObject({ status: 'corrupt', wrote: true });
    expect(parseCacheFile(readFileSync(first.cache.cacheFile))).not.toBeNull();
    // Cut short.
    writeFileSync(first.cache.cacheFile, good.subarray(0, 20));
    expect(twin(['--help'], cacheDir).cache).toMatchObject({ status: 'corrupt', wrote: true });

    // A well-formed file whose data V8 refuses (made for other code): rejected, compiled plainly, replaced.
    writeFileSync(first.cache.cacheFile, cacheFileBytes(Buffer.from('not V8 code cache data, but checksummed as if it were'.repeat(8)), true));
    const rejected = twin(['--help'], cacheDir);
    expect({ code: rejected.code, stdout: rejected.stdout, stderr: rejected.stderr }).toEqual(help);
    expect(rejected.cache).toMatchObject({ status: 'rejected', wrote: true });
    expect(parseCacheFile(readFileSync(first.cache.cacheFile))).toMatchObject({ afterRejection: true });
    expect(twin(['--help'], cacheDir).cache).toMatchObject({ status: 'accepted', wrote: false });
    // Rejected although it replaced a rejected one: V8's flags change during such a process; not rewritten again.
    writeFileSync(first.cache.cacheFile, cacheFileBytes(Buffer.alloc(4096, 7), true, true));
    expect(twin(['--help'], cacheDir).cache).toMatchObject({ status: 'rejected', wrote: false });

    // A cache folder that cannot be made (under a regular file): the same output, nothing written.
    writeFileSync(path.join(dir, 'a-file'), 'x');
    const unwritable = twin(['--help'], path.join(dir, 'a-file', 'cache'));
    expect({ code: unwritable.code, stdout: unwritable.stdout, stderr: unwritable.stderr }).toEqual(help);
    expect(unwritable.cache).toMatchObject({ status: 'none', wrote: false });
    // A folder others may write (V8 runs what a cache holds): not read, not written.
    const shared = path.join(dir, 'shared-cache');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const unsafe = twin(['--help'], shared);
    expect({ code: unsafe.code, stdout: unsafe.stdout, stderr: unsafe.stderr }).toEqual(help);
    expect(unsafe.cache).toMatchObject({ status: 'unsafe', wrote: false });
    expect(readdirSync(shared)).toEqual([]);
    // Off: the ES module, no cache.
    const off = twin(['--help'], 'off');
    expect({ code: off.code, stdout: off.stdout, stderr: off.stderr }).toEqual(help);
    expect(off.cache).toMatchObject({ status: 'off', wrote: false });
  }, 120_000);
});
