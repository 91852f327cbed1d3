/**
 * Issue 25: `fairground run` runs from its own one-file bundle (src-main/cli/runMain.ts,
 * dist/main/runMain.js), as `eval ir` does (evalIrEntry.test.ts). Bundled here as scripts/build.mjs
 * bundles it (zod included, with its English messages only: scripts/bundleZod.mjs), it must load
 * no chunk of ours and print, exit and err exactly as the whole CLI does.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainBundleOptions } from '../../scripts/bundleZod.mjs';
import { runCliCaptured } from '../support/cli';

const repo = path.resolve(__dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'fairground-run-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bundle = path.join(dir, 'out', 'runMain.js');

beforeAll(async () => {
  // The options of scripts/build.mjs for the unsplit entries (scripts/bundleZod.mjs mainBundleOptions).
  // The engine's worker beside it, where dist/main has it (worker/workerMain.js).
  await build({ ...mainBundleOptions(repo, path.join(dir, 'out')), entryPoints: { runMain: 'src-main/cli/runMain.ts', 'worker/workerMain': 'src-main/engine/local/worker/workerMain.ts' } });
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  // The packages the bundle keeps external (better-sqlite3, sqlite-vec, ...), as beside dist/main.
  symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'launch.mjs'), `const { main } = await import(${JSON.stringify(bundle)}); await main();\n`);
}, 120_000);

function bundled(args: string[]): { code: number | null; stdout: string; stderr: string } {
  // FAIRGROUND_ROOT: the bundle lives in a temporary folder, not under the checkout (the demo's files).
  const env = { ...process.env, FAIRGROUND_ROOT: repo };
  const r = spawnSync(process.execPath, [path.join(dir, 'launch.mjs'), 'run', ...args], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
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
    for (const args of cases) {
      const whole = await runCliCaptured(['run', ...args.map((a) => (a === 'WS' ? path.join(dir, 'a', 'ws.fairground') : a))], { cwd: dir });
      const one = bundled(args.map((a) => (a === 'WS' ? path.join(dir, 'b', 'ws.fairground') : a)));
      const same = (s: string) => s.replaceAll(path.join(dir, 'b'), path.join(dir, 'a'));
      expect({ ...one, stdout: same(one.stdout), stderr: same(one.stderr) }, args.join(' ')).toEqual(whole);
    }
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
  }, 180_000);
});
