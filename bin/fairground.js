#!/usr/bin/env node
// The `fairground` command. It runs the compiled dist/main/cli.js whenever that build is current,
// i.e. every source file it was bundled from is unchanged (dist/main/build-inputs.json, written by
// scripts/build.mjs: size and mtime of each input); the engine worker then starts from
// dist/main/worker/workerMain.js as well. In a checkout whose build is missing or stale it runs
// the TypeScript sources through tsx, so it never runs stale code. An installed or packaged copy
// (no sources) runs dist/. FAIRGROUND_USE_SOURCE=1 forces the sources, FAIRGROUND_USE_DIST=1 the build.
// From the build, `fairground eval ir …` runs dist/main/evalIrMain.js and `fairground run …`
// dist/main/runMain.js: that command alone in one file (the same dispatch, help and errors), which
// starts faster than the whole CLI's chunks. Where the build has an entry's CommonJS twin (runMain.cjs)
// it runs that instead, with V8's code cache (bin/codeCache.js).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src-main', 'cli', 'main.ts');
const built = join(root, 'dist', 'main', 'cli.js');

/** True when dist/main was built from exactly the files now on disk. */
function buildIsCurrent() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', 'main', 'build-inputs.json'), 'utf8'));
  } catch {
    return false;
  }
  if (stamp?.version !== 1 || typeof stamp.files !== 'object' || stamp.files === null) return false;
  for (const [rel, recorded] of Object.entries(stamp.files)) {
    try {
      const st = statSync(join(root, rel));
      if (st.size !== recorded.size || st.mtimeMs !== recorded.mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return existsSync(built);
}

const hasSource = existsSync(source) && existsSync(join(root, 'node_modules', 'tsx'));
const useSource = hasSource && !process.env.FAIRGROUND_USE_DIST && (process.env.FAIRGROUND_USE_SOURCE === '1' || !buildIsCurrent());

if (useSource) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(pathToFileURL(source).href);
  await main();
} else if (existsSync(built)) {
  const single = process.argv[2] === 'eval' && process.argv[3] === 'ir' ? 'evalIrMain' : process.argv[2] === 'run' ? 'runMain' : undefined;
  const esm = single === undefined ? undefined : join(root, 'dist', 'main', `${single}.js`);
  const twin = single === undefined ? undefined : join(root, 'dist', 'main', `${single}.cjs`);
  if (twin !== undefined && existsSync(twin) && existsSync(esm)) {
    const { runEntry } = await import('./codeCache.js');
    await runEntry(twin, esm);
  } else {
    const { main } = await import(pathToFileURL(esm !== undefined && existsSync(esm) ? esm : built).href);
    await main();
  }
} else {
  console.error("fairground: not built; run 'npm run build'");
  process.exitCode = 1;
}
