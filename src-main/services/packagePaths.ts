/**
 * Where the app's own files are, whether running from sources, from dist/, or packaged. Kept apart
 * from paths.ts (path grants, which load the API's errors and the store) so that `fairground serve`
 * can find the renderer without loading the services (issue 25 item 2).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/** The folder holding Fairground's package.json (the checkout, or the app folder when packaged). */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  if (process.env.FAIRGROUND_ROOT) return (cachedRoot = process.env.FAIRGROUND_ROOT);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'fairground') return (cachedRoot = dir);
      } catch {
        // keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Fairground package folder');
    dir = parent;
  }
}

export function rendererDir(): string {
  return join(packageRoot(), 'dist', 'renderer');
}

export function resourcesDir(): string {
  return join(packageRoot(), 'resources');
}
