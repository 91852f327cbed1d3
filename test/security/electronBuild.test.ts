/**
 * The packaged app's hardening as configured (issue 15 item 7, issue 17 item 8). Electron's binary
 * cannot be downloaded here, so the fuses cannot be read back from a built app; what is tested is
 * the configuration electron-builder flips them from, validated with electron-builder's own schema
 * (a misspelt fuse name fails the build, and this test), and that nothing in the app needs a fuse
 * that is off.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const require = createRequire(import.meta.url);
const root = process.cwd();
const config = YAML.parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as Record<string, unknown> & { electronFuses: Record<string, boolean> };
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('Electron build configuration', () => {
  it('pins a supported Electron major (45, Nov 2026: the supported majors are the latest three) equal to package.json’s', () => {
    expect(pkg.devDependencies.electron).toMatch(/^\d+\.\d+\.\d+$/);
    expect(String(config.electronVersion)).toBe(pkg.devDependencies.electron);
    expect(Number(pkg.devDependencies.electron.split('.')[0])).toBeGreaterThanOrEqual(43);
    // The installed package (and so the electron.d.ts tsc checks src-main/app against) is that version.
    expect((JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string }).version).toBe(pkg.devDependencies.electron);
  });

  it('flips the fuses: RunAsNode, NODE_OPTIONS and --inspect off; cookie encryption, asar integrity and only-load-from-asar on', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
      loadBrowserProcessSpecificV8Snapshot: false,
    });
    expect(config.asar).toBe(true);
  });

  it('is valid for electron-builder (its own schema; a misspelt fuse is refused)', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as { validateConfiguration: (c: unknown, l: unknown) => Promise<void> };
    const { DebugLogger } = require('builder-util/out/DebugLogger.js') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(structuredClone(config), new DebugLogger(false))).resolves.toBeUndefined();
    const typo = structuredClone(config);
    (typo.electronFuses as Record<string, boolean>).runAsNod = false;
    await expect(validateConfiguration(typo, new DebugLogger(false))).rejects.toThrow(/configuration/i);
  });

  it('needs no fuse that is off: no ELECTRON_RUN_AS_NODE, child_process.fork or NODE_OPTIONS in the app shell or what it loads', () => {
    // Code only: comments may explain why these are not used.
    const app = sources(join(root, 'src-main', 'app'))
      .map((f) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1'))
      .join('\n');
    expect(app).not.toMatch(/ELECTRON_RUN_AS_NODE|NODE_OPTIONS|child_process/);
    // Local models run in utility processes under Electron (utilityWorker.ts), set before anything forks.
    // (Since the service host, main keeps the spawner to start engine workers for the host too.)
    const main = readFileSync(join(root, 'src-main', 'app', 'main.ts'), 'utf8');
    expect(main).toMatch(/const engineSpawner = utilityProcessSpawner\(/);
    expect(main).toMatch(/setWorkerSpawner\(engineSpawner\)/);
  });
});
