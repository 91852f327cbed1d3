/**
 * Issue 26 item 8: `npm start`'s build prints nothing that reads like an error. The renderer is
 * built exactly as scripts/build.mjs builds it (Vite, the project config, `--logLevel warn`), into
 * a temporary folder so dist/ is left alone; a warning or error line (Vite's "(!) Some chunks are
 * larger than 5000 kB" block printed on every build before) fails the test.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const out = mkdtempSync(join(tmpdir(), 'fg-build-out-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('the renderer build as npm start runs it prints no warning', () => {
  const build = readFileSync(join(process.cwd(), 'scripts', 'build.mjs'), 'utf8');
  expect(build).toContain("'build', '--config', 'src-renderer/vite.config.ts', '--logLevel', 'warn'");
  const r = spawnSync(process.execPath, [join('node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'src-renderer/vite.config.ts', '--logLevel', 'warn', '--outDir', out, '--emptyOutDir'], {
    cwd: process.cwd(),
    encoding: 'utf8',
    timeout: 280_000,
  });
  expect(r.status).toBe(0);
  expect(existsSync(join(out, 'index.html'))).toBe(true);
  const printed = `${r.stdout}${r.stderr}`.trim();
  expect(printed).not.toMatch(/\(!\)|warn|error|larger than/i);
  expect(printed).toBe('');
}, 300_000);
