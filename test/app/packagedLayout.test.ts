/**
 * Issue 26 item 5: the packaged layout, read from electron-builder.yml with minimatch (what
 * electron-builder uses for these globs) — where each native module and extension lands, and that
 * the app loads each from there: better-sqlite3's Electron build (extraResources →
 * app.asar.unpacked/native, found by chooseNativeBinding), sqlite-vec (asarUnpack, loaded through
 * its app.asar.unpacked path, since SQLite's loader cannot read inside the archive), node-llama-cpp
 * and its prebuilt backends (asarUnpack), the shell's own scripts inside app.asar (files). And
 * `npm run dist` refuses to package without the Electron build of better-sqlite3.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { internalScripts } from '../../src-main/app/shellSetup';
import { chooseNativeBinding } from '../../src-main/store/nativeBinding';
import { asarUnpackedPath, sqliteVecPath } from '../../src-main/store/sqliteVecPath';

const require = createRequire(import.meta.url);
const { minimatch } = require('minimatch') as { minimatch: (path: string, pattern: string, options?: { dot?: boolean }) => boolean };
const root = join(__dirname, '..', '..');
const config = YAML.parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as {
  files: string[];
  asarUnpack: string[];
  extraResources: { from: string; to: string; filter: string[] }[];
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; dependencies: Record<string, string> };

const RESOURCES = '/opt/Fairground/resources';
const ASAR = `${RESOURCES}/app.asar`;
const unpacked = (rel: string) => config.asarUnpack.some((g) => minimatch(rel, g, { dot: true }));
/** electron-builder's `files`: included by some positive pattern and by no negative one after it (last match wins). */
function included(rel: string): boolean {
  let inc = false;
  for (const p of config.files) {
    if (p.startsWith('!')) {
      if (minimatch(rel, p.slice(1), { dot: true })) inc = false;
    } else if (minimatch(rel, p, { dot: true })) inc = true;
  }
  return inc;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('sqlite-vec in the packaged app', () => {
  it('is loaded from app.asar.unpacked, where asarUnpack puts the extension of every platform sqlite-vec supports', () => {
    for (const [pkgName, file] of [
      ['sqlite-vec-linux-x64', 'vec0.so'],
      ['sqlite-vec-linux-arm64', 'vec0.so'],
      ['sqlite-vec-darwin-x64', 'vec0.dylib'],
      ['sqlite-vec-darwin-arm64', 'vec0.dylib'],
      ['sqlite-vec-windows-x64', 'vec0.dll'],
    ]) {
      const inAsar = `${ASAR}/node_modules/${pkgName}/${file}`;
      const loaded = sqliteVecPath(inAsar);
      expect(loaded).toBe(`${RESOURCES}/app.asar.unpacked/node_modules/${pkgName}/${file}`);
      expect(unpacked(`node_modules/${pkgName}/${file}`), pkgName).toBe(true);
    }
    expect(asarUnpackedPath('C:\\Program Files\\Fairground\\resources\\app.asar\\node_modules\\sqlite-vec-windows-x64\\vec0.dll')).toBe(
      'C:\\Program Files\\Fairground\\resources\\app.asar.unpacked\\node_modules\\sqlite-vec-windows-x64\\vec0.dll',
    );
    // Already unpacked, or a checkout: unchanged.
    expect(asarUnpackedPath(`${RESOURCES}/app.asar.unpacked/node_modules/sqlite-vec-linux-x64/vec0.so`)).toBe(`${RESOURCES}/app.asar.unpacked/node_modules/sqlite-vec-linux-x64/vec0.so`);
    expect(sqliteVecPath()).toBe(require('sqlite-vec').getLoadablePath());
  });

  it('workspace open and dense retrieval both load it through sqliteVecPath (not sqlite-vec’s own load, which points into app.asar)', () => {
    for (const f of ['src-main/store/workspace.ts', 'src-main/retrieval/dense/sqliteVec.ts']) {
      const text = readFileSync(join(root, f), 'utf8');
      expect(text, f).toContain('db.loadExtension(sqliteVecPath())');
      expect(text, f).not.toMatch(/sqliteVec\.load\(|from 'sqlite-vec'/);
    }
  });
});

describe('native modules', () => {
  it('better-sqlite3’s Electron build ships as app.asar.unpacked/native and is found there', () => {
    const native = config.extraResources.find((r) => r.from === 'native');
    expect(native).toEqual({ from: 'native', to: 'app.asar.unpacked/native', filter: ['**/*.node'] });
    // The packaged tree as extraResources writes it; the app folder (inside app.asar) has no native/.
    const resources = mkdtempSync(join(tmpdir(), 'fg-resources-'));
    dirs.push(resources);
    const built = join(resources, native!.to, 'electron-abi150-linux-x64', 'better_sqlite3.node');
    mkdirSync(join(built, '..'), { recursive: true });
    writeFileSync(built, '');
    expect(minimatch('electron-abi150-linux-x64/better_sqlite3.node', native!.filter[0]!)).toBe(true);
    const versions = { ...process.versions, electron: '45.4.1', modules: '150' } as NodeJS.ProcessVersions;
    expect(chooseNativeBinding(versions, join(resources, 'app.asar'), resources)).toBe(built);
    expect(() => chooseNativeBinding({ ...versions, modules: '151' }, join(resources, 'app.asar'), resources)).toThrow(/npm run rebuild:electron/);
  });

  it('every runtime dependency with native code is asar-unpacked', () => {
    const nativeDeps = Object.keys(pkg.dependencies).filter((d) => ['better-sqlite3', 'node-llama-cpp', 'sqlite-vec'].includes(d));
    expect(nativeDeps.sort()).toEqual(['better-sqlite3', 'node-llama-cpp', 'sqlite-vec']);
    expect(unpacked('node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
    expect(unpacked('node_modules/node-llama-cpp/llama/localBuilds/linux-x64/Release/llama-addon.node')).toBe(true);
    // node-llama-cpp's prebuilt backends, whichever are installed here and on other platforms.
    const installed = readdirSync(join(root, 'node_modules', '@node-llama-cpp'));
    expect(installed.length).toBeGreaterThan(0);
    for (const b of [...installed, 'mac-arm64-metal', 'win-x64-cuda']) expect(unpacked(`node_modules/@node-llama-cpp/${b}/bins/${b}/llama-addon.node`), b).toBe(true);
    // Nested copies (a dependency's own node_modules) too.
    expect(unpacked('node_modules/node-llama-cpp/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/llama-addon.node')).toBe(true);
    // and nothing else of the app is unpacked (the code stays under the asar integrity check).
    expect(unpacked('dist/main/app/main.js')).toBe(false);
    expect(unpacked('dist/main/worker/workerMain.js')).toBe(false);
  });
});

describe('the shell’s own scripts', () => {
  it('the engine worker, service host, preload and renderer the packaged shell runs are inside app.asar', () => {
    const here = `${ASAR}/dist/main/app`;
    const scripts = internalScripts({}, here, true);
    for (const abs of [scripts.engineWorker, scripts.serviceHost, `${here}/main.js`, `${here}/preload.cjs`, `${ASAR}/dist/renderer/index.html`]) {
      const rel = relative(ASAR, abs);
      expect(rel.startsWith('..'), abs).toBe(false);
      expect(included(rel), rel).toBe(true);
      expect(unpacked(rel), rel).toBe(false);
    }
    expect(included('dist/main/app/main.js.map')).toBe(false);
    expect(included('src-main/app/main.ts')).toBe(false);
  });
});

describe('npm run dist', () => {
  it('runs the native preflight after the build and before electron-builder', () => {
    expect(pkg.scripts.dist).toBe('node scripts/build.mjs && node scripts/dist-preflight.mjs && electron-builder --config electron-builder.yml');
  });

  it('the preflight names the Electron build it needs, and refuses (exit 1, no packaging) when it is missing and cannot be built', async () => {
    const { electronNativeBinding } = (await import(pathToFileURL(join(root, 'scripts', 'dist-preflight.mjs')).href)) as {
      electronNativeBinding: (root: string, platform?: string, arch?: string) => { abi: string | null; path: string | null; present: boolean; reason: string | null };
    };
    const fake = mkdtempSync(join(tmpdir(), 'fg-dist-'));
    dirs.push(fake);
    expect(electronNativeBinding(fake, 'linux', 'x64')).toMatchObject({ abi: null, present: false, reason: expect.stringContaining('abi_version is missing') });
    mkdirSync(join(fake, 'node_modules', 'electron'), { recursive: true });
    writeFileSync(join(fake, 'node_modules', 'electron', 'abi_version'), '150\n');
    const missing = electronNativeBinding(fake, 'linux', 'x64');
    expect(missing).toEqual({ abi: '150', path: join(fake, 'native', 'electron-abi150-linux-x64', 'better_sqlite3.node'), present: false, reason: `${missing.path} is missing` });
    mkdirSync(join(fake, 'native', 'electron-abi150-linux-x64'), { recursive: true });
    writeFileSync(join(fake, 'native', 'electron-abi150-linux-x64', 'better_sqlite3.node'), '');
    expect(electronNativeBinding(fake, 'linux', 'x64')).toMatchObject({ abi: '150', present: true, reason: null });
    // The path it checks is the one the shell loads (chooseNativeBinding's checkout candidate).
    expect(chooseNativeBinding({ ...process.versions, electron: '45.4.1', modules: '150' } as NodeJS.ProcessVersions, fake)).toBe(electronNativeBinding(fake, 'linux', 'x64').path);

    // The script itself in a copy of the checkout without native/ and with Electron's headers out of reach: refuses.
    const copy = mkdtempSync(join(tmpdir(), 'fg-dist-run-'));
    dirs.push(copy);
    mkdirSync(join(copy, 'scripts'));
    writeFileSync(join(copy, 'scripts', 'dist-preflight.mjs'), readFileSync(join(root, 'scripts', 'dist-preflight.mjs')));
    writeFileSync(join(copy, 'scripts', 'rebuild-electron-sqlite.mjs'), "console.error('could not build better-sqlite3 for Electron (stand-in: no headers)'); process.exit(1);\n");
    mkdirSync(join(copy, 'node_modules', 'electron'), { recursive: true });
    writeFileSync(join(copy, 'node_modules', 'electron', 'abi_version'), '150\n');
    const r = spawnSync(process.execPath, [join(copy, 'scripts', 'dist-preflight.mjs')], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("dist: refusing to package: the app would not start without better-sqlite3's Electron build");
    expect(r.stdout).toContain('running npm run rebuild:electron');
  });
});
