/**
 * Versions of the local inference runtime for engine identities and reproducibility manifests,
 * read from node-llama-cpp's installed files so the parent can report them without loading the
 * native binding.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let cached: Record<string, string> | undefined;

export function runtimeVersions(): Record<string, string> {
  if (cached) return cached;
  const versions: Record<string, string> = {};
  try {
    // The package's "exports" hide package.json; find it from the resolved entry (dist/index.js).
    const root = dirname(dirname(createRequire(import.meta.url).resolve('node-llama-cpp')));
    versions['node-llama-cpp'] = String(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const info = JSON.parse(readFileSync(join(root, 'llama', 'llama.cpp.info.json'), 'utf8')) as { tag?: string };
    if (info.tag) versions['llama.cpp'] = info.tag;
  } catch {
    // A packaging that moved these files still runs; the manifest just says less.
  }
  cached = versions;
  return versions;
}
