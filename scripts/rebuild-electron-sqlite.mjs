#!/usr/bin/env node
/**
 * Builds better-sqlite3 for Electron's ABI in a scratch copy and writes only the .node file to
 * native/electron-abi<ABI>-<platform>-<arch>/, so the Node build in node_modules (used by
 * `npm test` and the CLI) stays intact. Measured when this was written: @electron/rebuild
 * in place either builds for the wrong ABI (with npm's nodedir set) or deletes the Node build.
 * Needs Electron's headers (network access to electronjs.org or a local headers folder via
 * ELECTRON_HEADERS_DIR).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, copyFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
const abi = JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'abi_version'), 'utf8').trim() || '0');
const scratch = mkdtempSync(join(tmpdir(), 'fg-sqlite-electron-'));
try {
  cpSync(join(root, 'node_modules', 'better-sqlite3'), join(scratch, 'better-sqlite3'), { recursive: true });
  const args = ['rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', `--arch=${process.arch}`];
  if (process.env.ELECTRON_HEADERS_DIR) args.push(`--nodedir=${process.env.ELECTRON_HEADERS_DIR}`);
  else args.push('--dist-url=https://electronjs.org/headers');
  const gyp = join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const res = spawnSync(process.execPath, [gyp, ...args], {
    cwd: join(scratch, 'better-sqlite3'),
    stdio: 'inherit',
    // npm's global nodedir (Node's headers) would silently build for the wrong ABI.
    env: { ...process.env, npm_config_nodedir: process.env.ELECTRON_HEADERS_DIR ?? '' },
  });
  if (res.status !== 0) {
    console.error(`could not build better-sqlite3 for Electron ${electronVersion}`);
    process.exit(1);
  }
  const outDir = join(root, 'native', `electron-abi${abi}-${process.platform}-${process.arch}`);
  mkdirSync(outDir, { recursive: true });
  copyFileSync(join(scratch, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(outDir, 'better_sqlite3.node'));
  console.log(`wrote ${join(outDir, 'better_sqlite3.node')}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
