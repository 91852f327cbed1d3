#!/usr/bin/env node
/**
 * Builds Fairground:
 *   dist/main/     the main side, bundled by esbuild with native and heavy packages kept external
 *                  (better-sqlite3, node-llama-cpp, sqlite-vec, electron, ...): cli.js, app/main.js,
 *                  app/preload.cjs, engine-worker.js
 *   dist/renderer/ the Svelte UI, built by Vite
 * Flags: --if-stale (skip parts whose outputs are newer than their sources), --renderer-only.
 */
import { build } from 'esbuild';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const ifStale = args.has('--if-stale');
const rendererOnly = args.has('--renderer-only');

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function stale(outputs, sources) {
  if (!ifStale) return true;
  const outTimes = outputs.map((o) => (existsSync(o) ? statSync(o).mtimeMs : 0));
  if (outTimes.some((t) => t === 0)) return true;
  const srcNewest = Math.max(...sources.map((s) => (existsSync(s) && statSync(s).isDirectory() ? newestMtime(s) : existsSync(s) ? statSync(s).mtimeMs : 0)));
  return srcNewest > Math.min(...outTimes);
}

const rendererSources = [join(root, 'src-renderer'), join(root, 'src-main', 'api', 'contract')];
if (stale([join(root, 'dist', 'renderer', 'index.html')], rendererSources)) {
  const vite = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'src-renderer/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (vite.status !== 0) process.exit(vite.status ?? 1);
  console.log('built dist/renderer');
}

if (!rendererOnly) {
  const mainOut = join(root, 'dist', 'main');
  const entries = {
    cli: 'src-main/cli/main.ts',
    'app/main': 'src-main/app/main.ts',
    // The local engine's worker process; workerLaunch.ts looks for it at worker/workerMain.js.
    'worker/workerMain': 'src-main/engine/local/worker/workerMain.ts',
  };
  const present = Object.fromEntries(Object.entries(entries).filter(([, src]) => existsSync(join(root, src))));
  if (stale(Object.keys(present).map((k) => join(mainOut, `${k}.js`)), [join(root, 'src-main'), join(root, 'package.json')])) {
    const common = {
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      packages: 'external',
      logLevel: 'warning',
    };
    await build({
      ...common,
      entryPoints: present,
      outdir: mainOut,
      format: 'esm',
      banner: { js: "import { createRequire as __fgCreateRequire } from 'node:module'; const require = __fgCreateRequire(import.meta.url);" },
    });
    if (existsSync(join(root, 'src-main/app/preload.ts'))) {
      // Sandboxed preloads must be CommonJS.
      await build({ ...common, entryPoints: { 'app/preload': 'src-main/app/preload.ts' }, outdir: mainOut, format: 'cjs', outExtension: { '.js': '.cjs' } });
    }
    console.log('built dist/main');
  }
}
