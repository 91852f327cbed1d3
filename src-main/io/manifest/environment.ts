/**
 * What the machine and the build were when a result was produced: app version and git commit,
 * Node/V8/Electron/Chromium versions, OS, CPU, memory, GPU (when the caller knows it: Electron's
 * `app.getGPUInfo` is async and lives in app/), and the installed node-llama-cpp version.
 * Everything that may be missing (no git, no .git, not under Electron, node-llama-cpp not
 * installed) becomes null instead of an error, because a manifest must always be writable.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EnvironmentInfo {
  app: { name: string; version: string | null; gitCommit: string | null; gitDirty: boolean | null };
  runtime: { node: string; v8: string | null; electron: string | null; chromium: string | null };
  host: {
    platform: string;
    arch: string;
    osType: string;
    osRelease: string;
    osVersion: string | null;
    cpuModel: string | null;
    cpuCores: number;
    memoryBytes: number;
    gpu: string | null;
  };
  nodeLlamaCpp: string | null;
}

export interface CollectEnvironmentOptions {
  /** Folder holding the app's package.json (default: found upwards from this module). */
  appRoot?: string;
  /** GPU description from the caller (e.g. Electron `app.getGPUInfo('basic')`). */
  gpu?: string;
  /** Ask git for the commit (default true). */
  git?: boolean;
}

export function collectEnvironment(opts: CollectEnvironmentOptions = {}): EnvironmentInfo {
  const appRoot = opts.appRoot ?? findAppRoot(path.dirname(fileURLToPath(import.meta.url))) ?? process.cwd();
  const pkg = readJson(path.join(appRoot, 'package.json'));
  const git = opts.git === false ? null : gitState(appRoot);
  const cpus = os.cpus();
  const versions = process.versions as NodeJS.ProcessVersions & { electron?: string; chrome?: string };
  return {
    app: {
      name: typeof pkg?.name === 'string' ? pkg.name : 'fairground',
      version: typeof pkg?.version === 'string' ? pkg.version : null,
      gitCommit: git?.commit ?? null,
      gitDirty: git?.dirty ?? null,
    },
    runtime: { node: versions.node, v8: versions.v8 ?? null, electron: versions.electron ?? null, chromium: versions.chrome ?? null },
    host: {
      platform: process.platform,
      arch: process.arch,
      osType: os.type(),
      osRelease: os.release(),
      osVersion: typeof os.version === 'function' ? os.version() : null,
      cpuModel: cpus[0]?.model?.trim() || null,
      cpuCores: cpus.length,
      memoryBytes: os.totalmem(),
      gpu: opts.gpu ?? null,
    },
    nodeLlamaCpp: nodeLlamaCppVersion(appRoot),
  };
}

/** The nearest folder at or above `start` that holds a package.json. */
export function findAppRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `version` of node-llama-cpp's own package.json as installed for `appRoot`, or null. */
export function nodeLlamaCppVersion(appRoot: string): string | null {
  const direct = readJson(path.join(appRoot, 'node_modules', 'node-llama-cpp', 'package.json'));
  if (typeof direct?.version === 'string') return direct.version;
  // Hoisted or nested installs: resolve the entry point (its `exports` hide package.json) and
  // walk up to the package root.
  try {
    const entry = createRequire(path.join(appRoot, 'package.json')).resolve('node-llama-cpp');
    let dir = path.dirname(entry);
    for (;;) {
      const pkg = readJson(path.join(dir, 'package.json'));
      if (pkg?.name === 'node-llama-cpp' && typeof pkg.version === 'string') return pkg.version;
      const parent = path.dirname(dir);
      if (parent === dir) return null;
      dir = parent;
    }
  } catch {
    return null;
  }
}

/**
 * The checkout's commit and whether tracked files differ from it, from one `git status
 * --porcelain=v2 --branch` (its `# branch.oid` header is HEAD's commit; every other line is a
 * changed tracked file, untracked ones are not listed). null outside a repository or before its
 * first commit, or when git is missing or older than 2.11 (porcelain v2).
 */
export function gitState(cwd: string): { commit: string; dirty: boolean | null } | null {
  const run = (args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
  let status: string;
  try {
    status = run(['status', '--porcelain=v2', '--branch', '--untracked-files=no']);
  } catch {
    return null;
  }
  const lines = status.split('\n').filter((l) => l !== '');
  const oid = lines.find((l) => l.startsWith('# branch.oid '));
  if (oid === undefined) return null;
  const commit = oid.slice('# branch.oid '.length).trim();
  if (!/^[0-9a-f]{40,64}$/.test(commit)) return null;
  return { commit, dirty: lines.some((l) => !l.startsWith('#')) };
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
