#!/usr/bin/env node
// The `fairground` command. In a checkout (sources and tsx present) it runs the TypeScript sources
// through tsx, so it never runs a stale build; an installed/packaged copy runs the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src-main', 'cli', 'main.ts');
const built = join(root, 'dist', 'main', 'cli.js');
const useSource = existsSync(source) && existsSync(join(root, 'node_modules', 'tsx')) && !process.env.FAIRGROUND_USE_DIST;

if (useSource) {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(pathToFileURL(source).href);
  await main();
} else if (existsSync(built)) {
  const { main } = await import(pathToFileURL(built).href);
  await main();
} else {
  console.error("fairground: not built; run 'npm run build'");
  process.exitCode = 1;
}
