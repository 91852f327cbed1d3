/**
 * Where the worker script is and how to start it. From TypeScript sources (dev, tests) the worker
 * is `worker/workerMain.ts` beside this file, run through tsx's loader (resolved to an absolute
 * URL so it works from any working directory). From built JavaScript it is `worker/workerMain.js`
 * beside the module that contains this code — a bundler must emit the worker as its own entry at
 * that place. `FAIRGROUND_ENGINE_WORKER` or an explicit path overrides both.
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
  const modulePath = explicitPath ?? env.FAIRGROUND_ENGINE_WORKER ?? join(dirname(here), 'worker', here.endsWith('.ts') ? 'workerMain.ts' : 'workerMain.js');
  if (!existsSync(modulePath)) throw new EngineError('model-load-failed', `the engine worker script is missing: ${modulePath}`);
  if (!modulePath.endsWith('.ts')) return { modulePath, execArgv: [] };
  const tsx = pathToFileURL(createRequire(fromUrl).resolve('tsx')).href;
  return { modulePath, execArgv: ['--import', tsx] };
}
