#!/usr/bin/env node
/**
 * Completes package-lock.json with node-llama-cpp's prebuilt-binary packages that the registry
 * mirror of the development machines lacks, so that `npm ci` passes here and fetches the right
 * binary elsewhere.
 *
 * Why: node-llama-cpp names 14 optional platform packages (@node-llama-cpp/linux-x64, mac-arm64-metal,
 * win-x64-cuda, ...) at its own version. The mirror here has only some of them at 3.22.1 (the Linux
 * x64/arm ones; mac, win and linux-riscv64 stop at 3.21.1), so `npm install` writes a lockfile
 * without the others and `npm ci` then refuses it: `EUSAGE Missing: @node-llama-cpp/mac-arm64-metal@
 * from lock file`. This script adds each missing package as the entry npm would have written: the
 * same version, `optional: true`, and the package's real `os`/`cpu`/`libc`/`engines` (PLATFORMS below,
 * as the packages publish them; unchanged since 3.x). No `resolved` (npm's config here omits it for
 * registry packages, and a later `npm install` strips it) and no `integrity`, unknown here (npm accepts
 * an entry without one and fetches `name@version` from the configured registry).
 * On a machine whose platform an entry does not fit, npm skips it without fetching it (it checks
 * os/cpu/libc from the lockfile first); on a real Mac or Windows machine npm fetches that version's
 * binary from the registry.
 *
 * Run it after an `npm install` that changes node-llama-cpp's version (an `npm install` that leaves it
 * alone keeps these entries byte for byte). `--check` only reports (exit 1 when an entry is missing).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = join(root, 'package-lock.json');
const check = process.argv.includes('--check');

/** os / cpu / libc of every @node-llama-cpp/* binary package, as published (same in 3.21.1's lockfile entries). */
const PLATFORMS = {
  'linux-arm64': { cpu: ['arm64', 'x64'], libc: ['glibc'], os: ['linux'] },
  'linux-armv7l': { cpu: ['arm', 'x64'], libc: ['glibc'], os: ['linux'] },
  'linux-riscv64': { cpu: ['riscv64'], libc: ['glibc'], os: ['linux'] },
  'linux-x64': { cpu: ['x64'], libc: ['glibc'], os: ['linux'] },
  'linux-x64-cuda': { cpu: ['x64'], libc: ['glibc'], os: ['linux'] },
  'linux-x64-cuda-ext': { cpu: ['x64'], libc: ['glibc'], os: ['linux'] },
  'linux-x64-vulkan': { cpu: ['x64'], libc: ['glibc'], os: ['linux'] },
  'mac-arm64-metal': { cpu: ['arm64', 'x64'], os: ['darwin'] },
  'mac-x64': { cpu: ['x64'], os: ['darwin'] },
  'win-arm64': { cpu: ['arm64', 'x64'], os: ['win32'] },
  'win-x64': { cpu: ['x64'], os: ['win32'] },
  'win-x64-cuda': { cpu: ['x64'], os: ['win32'] },
  'win-x64-cuda-ext': { cpu: ['x64'], os: ['win32'] },
  'win-x64-vulkan': { cpu: ['x64'], os: ['win32'] },
};

const text = readFileSync(lockPath, 'utf8');
const lock = JSON.parse(text);
const packages = lock.packages ?? {};
const parent = packages['node_modules/node-llama-cpp'];
if (!parent) {
  console.error('complete-lockfile: package-lock.json has no node_modules/node-llama-cpp entry');
  process.exit(1);
}

const added = [];
for (const [name, range] of Object.entries(parent.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (packages[key]) continue;
  const short = name.replace(/^@node-llama-cpp\//, '');
  const platform = PLATFORMS[short];
  if (!platform || !/^\d+\.\d+\.\d+$/.test(range)) {
    console.error(`complete-lockfile: no platform known for ${name}@${range}; add it to PLATFORMS`);
    process.exit(1);
  }
  // Key order as npm writes an entry, so a later `npm install` that keeps it leaves it as is.
  packages[key] = {
    version: range,
    cpu: platform.cpu,
    ...(platform.libc ? { libc: platform.libc } : {}),
    license: 'MIT',
    optional: true,
    os: platform.os,
    engines: { node: '>=20.0.0' },
  };
  added.push(`${name}@${range}`);
}

if (added.length === 0) {
  console.log('complete-lockfile: nothing missing');
  process.exit(0);
}
if (check) {
  console.error(`complete-lockfile: missing from package-lock.json: ${added.join(', ')} (run node scripts/complete-lockfile.mjs)`);
  process.exit(1);
}
// npm keeps `packages` sorted by path.
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added.join(', ')}`);
