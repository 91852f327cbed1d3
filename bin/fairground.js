#!/usr/bin/env node
// The `fairground` command. Runs the compiled CLI when it has been built (dist/), otherwise the
// TypeScript sources through tsx (a development checkout).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'main', 'cli.js');
if (existsSync(built) && !process.env.FAIRGROUND_FROM_SOURCE) {
  const { main } = await import(pathToFileURL(built).href);
  await main();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import(pathToFileURL(join(root, 'src-main', 'cli', 'main.ts')).href);
  await main();
}
