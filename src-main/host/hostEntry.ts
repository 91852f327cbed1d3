/**
 * Where the service host's worker script is. From TypeScript sources (dev, tests, bin/fairground.js
 * on stale builds) it is hostMain.ts beside this file, booted through tsx's loader (loader flags
 * do not reach worker threads, so the worker registers tsx itself before importing the entry). From
 * built JavaScript it is host/hostMain.js beside the bundle (dist/main/cli.js) or beside its parent
 * folder (dist/main/app/main.js). `FAIRGROUND_SERVICE_HOST` overrides both.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface HostEntry {
  /** A file path (`eval: false`) or a module's boot code (`eval: true`). */
  script: string;
  eval: boolean;
  /** The file it runs, for messages. */
  file: string;
}

export function resolveHostEntry(explicitPath?: string, env: Record<string, string | undefined> = process.env, fromUrl: string = import.meta.url): HostEntry {
  const here = fileURLToPath(fromUrl);
  const override = explicitPath ?? env.FAIRGROUND_SERVICE_HOST;
  const candidates = override
    ? [override]
    : here.endsWith('.ts')
      ? [join(dirname(here), 'hostMain.ts')]
      : [join(dirname(here), 'host', 'hostMain.js'), join(dirname(here), '..', 'host', 'hostMain.js')];
  const file = candidates.find((c) => existsSync(c));
  if (!file) throw new Error(`the service host's worker script is missing: ${candidates.join(' or ')} (run 'node scripts/build.mjs')`);
  if (!file.endsWith('.ts')) return { script: file, eval: false, file };
  const tsxApi = pathToFileURL(createRequire(fromUrl).resolve('tsx/esm/api').replace(/\.c?js$/, '.mjs')).href;
  const entry = pathToFileURL(file).href;
  return {
    script: `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`,
    eval: true,
    file,
  };
}
