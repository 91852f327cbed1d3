/**
 * Issue 36 item 7: `npm run scan:electron` runs Doyensec's Electronegativity over the Electron shell (src-main/app)
 * and fails on any finding not justified in scripts/scan-electron.mjs (and the README). Here: the shell as it is
 * passes with every justification used; a copy with a planted window that turns Node integration on and context
 * isolation off fails, naming the rules and the file.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(process.cwd(), 'scripts', 'scan-electron.mjs');
const dir = mkdtempSync(join(tmpdir(), 'fg-electron-scan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scan = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', timeout: 300_000 });

describe('the Electron scanner', () => {
  it('src-main/app: 6 findings, each justified, none stale', () => {
    const r = scan();
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('electronegativity (Electron 45.4.1) over src-main/app: 6 findings, 6 justified, 0 not\n');
    expect(r.status).toBe(0);
  });

  it('a planted insecure window fails the scan, naming rule and file', () => {
    const copy = join(dir, 'app');
    cpSync(join(process.cwd(), 'src-main', 'app'), copy, { recursive: true });
    writeFileSync(join(copy, 'planted.ts'), "import { BrowserWindow } from 'electron';\nexport const w = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false } });\n");
    const r = scan('--input', copy);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/unjustified finding: NODE_INTEGRATION_JS_CHECK planted\.ts:2/);
    expect(r.stderr).toMatch(/unjustified finding: CONTEXT_ISOLATION_JS_CHECK planted\.ts:2/);
  });
});
