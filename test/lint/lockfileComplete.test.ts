/**
 * `npm ci` needs every optional platform package node-llama-cpp names in package-lock.json; the
 * registry mirror here lacks some of them at node-llama-cpp's version, so `npm install` leaves them
 * out and scripts/complete-lockfile.mjs adds them (see there). This keeps a later `npm install` from
 * silently breaking `npm ci` again.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  optionalDependencies?: Record<string, string>;
}

describe('package-lock.json', () => {
  it("holds every node-llama-cpp platform package at node-llama-cpp's version, optional and gated by os/cpu", () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const parent = lock.packages['node_modules/node-llama-cpp']!;
    expect(parent.version).toBe(pkg.dependencies['node-llama-cpp']);
    const optional = Object.entries(parent.optionalDependencies ?? {});
    expect(optional.length).toBeGreaterThan(10);
    for (const [name, version] of optional) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry, `${name} missing: run node scripts/complete-lockfile.mjs`).toBeDefined();
      expect(entry).toMatchObject({ version, optional: true });
      expect(entry!.os?.length).toBeGreaterThan(0);
      expect(entry!.cpu?.length).toBeGreaterThan(0);
    }
    const check = spawnSync(process.execPath, [join(root, 'scripts', 'complete-lockfile.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });
});
