#!/usr/bin/env node
/**
 * `npm start`: the desktop app when Electron can run here, otherwise browser mode, saying why.
 * Electron needs (1) its binary, which `npm ci` does not download (package.json allowScripts
 * denies electron's install script so installs work offline) and which we try to fetch now,
 * (2) a display, (3) a better-sqlite3 build for Electron's ABI (`npm run rebuild:electron`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const passThrough = process.argv.slice(2);

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
}

function electronBinary() {
  const pathFile = join(root, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(root, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

function whyNoElectron() {
  if (!existsSync(join(root, 'node_modules', 'electron'))) return 'the electron package is not installed';
  let bin = electronBinary();
  if (!bin) {
    console.log('Fetching the Electron binary (not downloaded by npm ci)...');
    const res = run(process.execPath, [join(root, 'node_modules', 'electron', 'install.js')], { stdio: 'pipe', timeout: 120_000 });
    bin = electronBinary();
    if (!bin) {
      const reason = (res.stderr?.toString() ?? '').split('\n').find((l) => /Error|ENOTFOUND|EAI_AGAIN/.test(l)) ?? 'download failed';
      return `the Electron binary could not be downloaded (${reason.trim()})`;
    }
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'there is no display (DISPLAY/WAYLAND_DISPLAY unset)';
  const abi = spawnSync(bin, ['-e', 'process.stdout.write(process.versions.modules)'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8' });
  if (abi.status !== 0) return `Electron does not run here (${(abi.stderr || '').trim().split('\n')[0]})`;
  const binding = join(root, 'native', `electron-abi${abi.stdout.trim()}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
  if (!existsSync(binding)) {
    console.log('Building better-sqlite3 for Electron...');
    const rb = run(process.execPath, [join(root, 'scripts', 'rebuild-electron-sqlite.mjs')]);
    if (rb.status !== 0 || !existsSync(binding)) return 'better-sqlite3 could not be built for Electron (see above)';
  }
  return null;
}

const built = run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale']);
if (built.status !== 0) process.exit(built.status ?? 1);

const reason = whyNoElectron();
if (reason === null) {
  const child = spawn(electronBinary(), [join(root, 'dist', 'main', 'app', 'main.js'), ...passThrough], { cwd: root, stdio: 'inherit', env: { ...process.env, FAIRGROUND_ROOT: root } });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(`Electron cannot start: ${reason}.`);
  console.log('Starting browser mode instead (the same app, in your browser).');
  const child = spawn(process.execPath, [join(root, 'bin', 'fairground.js'), 'serve', ...passThrough], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}
