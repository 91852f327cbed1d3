import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  const r = await runCliCaptured(argv, { cwd: dir });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('fairground workspace', () => {
  it('init creates, info reports, migrate is a no-op on an up-to-date file', async () => {
    const init = await cli('workspace', 'init', '--workspace', 'lab.fairground');
    expect(init.code).toBe(0);
    expect(init.out).toMatch(/^Created workspace .*lab\.fairground \(schema \d+\)\n$/);
    const info = await cli('workspace', 'info', '-w', 'lab.fairground', '--json');
    expect(info.code).toBe(0);
    expect(JSON.parse(info.out)).toMatchObject({ path: join(dir, 'lab.fairground'), counts: { jobs: 0 } });
    const mig = await cli('workspace', 'migrate', '-w', 'lab.fairground');
    expect(mig.out).toContain('is up to date');
    const check = await cli('workspace', 'check', '-w', 'lab.fairground');
    expect(check).toMatchObject({ code: 0 });
    expect(check.out).toContain('is healthy');
    // the check wrote nothing into the workspace it checked
    const after = await cli('workspace', 'info', '-w', 'lab.fairground', '--json');
    expect(JSON.parse(after.out).counts.jobs).toBe(0);
  });

  it('fails with one line and a non-zero exit on a corrupt file or a missing workspace', async () => {
    writeFileSync(join(dir, 'bad.fairground'), 'not a database at all, just text'.repeat(200));
    const bad = await cli('workspace', 'info', '-w', 'bad.fairground');
    expect(bad.code).not.toBe(0);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toContain('not a readable Fairground workspace');
    const missing = await cli('workspace', 'info', '-w', 'nope.fairground');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no workspace at");
  });

  it('prints help for every command and refuses unknown options and commands', async () => {
    const top = await cli('--help');
    expect(top.code).toBe(0);
    expect(top.out).toContain('workspace init');
    expect(top.out).toContain('serve');
    for (const path of [['serve'], ['workspace', 'init'], ['workspace', 'info'], ['workspace', 'migrate']]) {
      const h = await cli(...path, '--help');
      expect(h.code).toBe(0);
      expect(h.out).toMatch(/^Usage: fairground /);
    }
    const unknown = await cli('workspace', 'init', '--bogus');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("Unknown option '--bogus'");
    expect((await cli('frobnicate')).code).toBe(2);
  });

  it('runs as a real process through bin/fairground.js', () => {
    const bin = join(process.cwd(), 'bin', 'fairground.js');
    const out = execFileSync(process.execPath, [bin, 'workspace', 'init', '-w', join(dir, 'p.fairground')], { encoding: 'utf8' });
    expect(out).toContain('Created workspace');
    const fail = spawnSync(process.execPath, [bin, 'workspace', 'info', '-w', join(dir, 'missing.fairground')], { encoding: 'utf8' });
    expect(fail.status).toBe(2);
    expect(fail.stderr).toContain('fairground workspace info: no workspace at');
  });
});
