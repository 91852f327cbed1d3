#!/usr/bin/env node
/**
 * Builds Fairground:
 *   dist/main/     the main side, bundled by esbuild with native and heavy packages kept external
 *                  (better-sqlite3, node-llama-cpp, sqlite-vec, electron, ...): cli.js (with its
 *                  lazily imported chunks/), app/main.js, app/preload.cjs, worker/workerMain.js,
 *                  evalIrMain.js (`fairground eval ir` alone, one file: bin/fairground.js runs it),
 *                  runMain.js (`fairground run` alone, one file: bin/fairground.js runs it),
 *                  and runMain.cjs, its CommonJS twin, which bin/fairground.js runs instead, with
 *                  V8's code cache (bin/codeCache.js)
 *   dist/renderer/ the Svelte UI, built by Vite
 * Flags: --if-stale (skip parts whose outputs are newer than their sources), --renderer-only,
 * --main-only.
 *
 * dist/main/build-inputs.json records every source file esbuild bundled (from its metafile) with
 * its size and mtime, plus package.json and tsconfig.json. bin/fairground.js runs dist/main/cli.js
 * only while every recorded file is unchanged, and the TypeScript sources through tsx otherwise.
 * The record is removed before a build and written after it, and only when no input changed while
 * esbuild read it.
 */
import { build } from 'esbuild';
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { mainBundleOptions, mainCjsBundleOptions } from './bundleZod.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const ifStale = args.has('--if-stale');
const rendererOnly = args.has('--renderer-only');
const mainOnly = args.has('--main-only');

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

const rendererSources = [join(root, 'src-renderer'), join(root, 'src-main', 'api', 'contract'), join(root, 'src-main', 'core')];
if (!mainOnly && stale([join(root, 'dist', 'renderer', 'index.html')], rendererSources)) {
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
    // The services host's worker thread (issue 17 item 6); src-main/host/hostEntry.ts looks for it at host/hostMain.js.
    'host/hostMain': 'src-main/host/hostMain.ts',
    // `fairground eval ir` as one unsplit file (issue 25 item 4): bin/fairground.js runs it for that
    // command, which then loads one module instead of cli.js and a dozen chunks.
    evalIrMain: 'src-main/cli/evalIrMain.ts',
    // `fairground run` as one unsplit file (issue 25): bin/fairground.js runs it for that command,
    // which then resolves, links and compiles one module instead of cli.js and about seventy chunks.
    runMain: 'src-main/cli/runMain.ts',
  };
  const present = Object.fromEntries(Object.entries(entries).filter(([, src]) => existsSync(join(root, src))));
  // `fairground run`'s entry built a second time as CommonJS (runMain.cjs): what bin/fairground.js
  // runs, through vm.Script with V8's code cache (bin/codeCache.js, issue 25). Not `eval ir`'s: its
  // 75 kB compile in a few ms, less than the loader and the cache's checks cost, and the flag it sets
  // while it runs (dispatch.ts, streaming) makes V8 reject a cache written at its end.
  const twins = Object.fromEntries(['runMain'].filter((k) => k in present).map((k) => [k, present[k]]));
  const stampFile = join(mainOut, 'build-inputs.json');
  // A missing record (removed before a build that failed or raced an edit) counts as stale.
  if (stale([...Object.keys(present).map((k) => join(mainOut, `${k}.js`)), ...Object.keys(twins).map((k) => join(mainOut, `${k}.cjs`)), stampFile], [join(root, 'src-main'), join(root, 'package.json')])) {
    rmSync(stampFile, { force: true });
    const buildStarted = Date.now();
    // zod is bundled into dist/main, with its English messages only (scripts/bundleZod.mjs).
    const esm = { ...mainBundleOptions(root, mainOut), sourcemap: true, metafile: true };
    // The preload's options: the same without the ES module parts and zod (it imports Electron only).
    const { format: _format, plugins: _plugins, banner: _banner, outdir: _outdir, metafile: _metafile, ...common } = esm;
    // The CLI is split into chunks (dist/main/chunks/): cli.js holds only the argument dispatch and
    // the command list, and each command's module is a chunk imported when that command runs, so
    // `fairground --help` or a light command does not load every command's dependencies (issue 18).
    // Chunks sit one folder below dist/main, as the worker launcher and the package-root search expect.
    // The desktop shell is split the same way (issue 25 item 2): it opens its window before it
    // imports the services (SQLite, zod, the handlers), which an unsplit bundle would load at once.
    const { cli: cliEntry, 'app/main': appEntry, ...others } = present;
    const split = { ...(cliEntry ? { cli: cliEntry } : {}), ...(appEntry ? { 'app/main': appEntry } : {}) };
    rmSync(join(mainOut, 'chunks'), { recursive: true, force: true });
    const results = [];
    if (Object.keys(split).length > 0) results.push(await build({ ...esm, entryPoints: split, splitting: true, chunkNames: 'chunks/[name]-[hash]' }));
    if (Object.keys(others).length > 0) results.push(await build({ ...esm, entryPoints: others }));
    if (Object.keys(twins).length > 0) results.push(await build({ ...mainCjsBundleOptions(root, mainOut), sourcemap: true, metafile: true, entryPoints: twins }));
    const inputs = [...new Set(results.flatMap((r) => Object.keys(r.metafile.inputs)))];
    if (existsSync(join(root, 'src-main/app/preload.ts'))) {
      // Sandboxed preloads must be CommonJS.
      await build({ ...common, entryPoints: { 'app/preload': 'src-main/app/preload.ts' }, outdir: mainOut, format: 'cjs', outExtension: { '.js': '.cjs' } });
    }
    writeStamp(stampFile, [...inputs.filter((f) => !f.split('/').includes('node_modules')), 'package.json', 'tsconfig.json'], buildStarted);
    console.log('built dist/main');
  }
}

/** Writes dist/main/build-inputs.json (see the header), unless an input changed during the build. */
function writeStamp(stampFile, inputs, buildStarted) {
  const files = {};
  for (const rel of inputs.sort()) {
    const path = join(root, rel);
    if (!existsSync(path)) continue;
    const st = statSync(path);
    // Edited while esbuild ran: the bundle may hold the old text, so leave dist/main marked stale.
    if (st.mtimeMs >= buildStarted) {
      console.log(`dist/main: ${rel} changed during the build; bin/fairground.js keeps using the sources until the next build`);
      return;
    }
    files[rel] = { size: st.size, mtimeMs: st.mtimeMs };
  }
  const tmp = `${stampFile}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify({ version: 1, builtAt: new Date().toISOString(), node: process.version, files }, null, 1)}\n`);
  renameSync(tmp, stampFile);
}
