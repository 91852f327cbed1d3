/**
 * Where the worker script is and how to start it. From TypeScript sources (dev, tests) the worker
 * is `worker/workerMain.ts` beside this file, run through tsx's loader (resolved to an absolute
 * URL so it works from any working directory). From built JavaScript it is `worker/workerMain.js`
 * beside the bundle that contains this code, or beside its parent folder (scripts/build.mjs emits
 * dist/main/worker/workerMain.js for both dist/main/cli.js and dist/main/app/main.js).
 * `FAIRGROUND_ENGINE_WORKER` or an explicit path overrides both.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EngineError } from '../types';

export interface WorkerLaunch {
  modulePath: string;
  execArgv: string[];
}

export function resolveWorkerLaunch(
  explicitPath?: string,
  env: Record<string, string | undefined> = process.env,
  fromUrl: string = import.meta.url,
): WorkerLaunch {
  const here = fileURLToPath(fromUrl);
  const file = here.endsWith('.ts') ? 'workerMain.ts' : 'workerMain.js';
  const candidates = explicitPath ?? env.FAIRGROUND_ENGINE_WORKER ? [(explicitPath ?? env.FAIRGROUND_ENGINE_WORKER) as string] : [join(dirname(here), 'worker', file), join(dirname(here), '..', 'worker', file)];
  const modulePath = candidates.find((c) => existsSync(c));
  if (!modulePath) throw new EngineError('model-load-failed', `the engine worker script is missing: ${candidates.join(' or ')}`);
  if (!modulePath.endsWith('.ts')) return { modulePath, execArgv: [] };
  const tsx = pathToFileURL(createRequire(fromUrl).resolve('tsx')).href;
  return { modulePath, execArgv: ['--import', tsx] };
}
