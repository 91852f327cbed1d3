#!/usr/bin/env node
/**
 * Run by `npm run dist` before electron-builder (issue 26 item 5): the packaged app loads
 * better-sqlite3's Electron build from native/electron-abi<ABI>-<platform>-<arch>/ (shipped as
 * app.asar.unpacked/native by electron-builder.yml's extraResources); without it the app throws at
 * start. When it is missing this builds it (scripts/rebuild-electron-sqlite.mjs, which needs
 * Electron's headers), and refuses to package if it is still missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Electron ABI of the installed electron package, and the path its better-sqlite3 build must have. */
export function electronNativeBinding(root, platform = process.platform, arch = process.arch) {
  const abiFile = join(root, 'node_modules', 'electron', 'abi_version');
  if (!existsSync(abiFile)) return { abi: null, path: null, present: false, reason: `${abiFile} is missing (is electron installed?)` };
  const abi = readFileSync(abiFile, 'utf8').trim();
  if (!/^\d+$/.test(abi)) return { abi: null, path: null, present: false, reason: `${abiFile} holds no ABI number` };
  const path = join(root, 'native', `electron-abi${abi}-${platform}-${arch}`, 'better_sqlite3.node');
  return { abi, path, present: existsSync(path), reason: existsSync(path) ? null : `${path} is missing` };
}

function main() {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  let status = electronNativeBinding(root);
  if (!status.present && status.abi !== null) {
    console.log(`dist: better-sqlite3 has no Electron build yet (${status.reason}); running npm run rebuild:electron`);
    spawnSync(process.execPath, [join(root, 'scripts', 'rebuild-electron-sqlite.mjs')], { stdio: 'inherit' });
    status = electronNativeBinding(root);
  }
  if (!status.present) {
    console.error(`dist: refusing to package: the app would not start without better-sqlite3's Electron build (${status.reason}). Run 'npm run rebuild:electron' (it needs Electron's headers: network access or ELECTRON_HEADERS_DIR), then 'npm run dist' again.`);
    process.exit(1);
  }
  console.log(`dist: better-sqlite3 for Electron ABI ${status.abi}: ${status.path}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
