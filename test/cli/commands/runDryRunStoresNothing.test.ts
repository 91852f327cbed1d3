/**
 * Issue 34 item 8: `run --dry-run` stores nothing — no experiment and no new spec version of an
 * existing one, whether the spec's checks pass or fail (before, the spec was stored as a new version
 * first, then priced). The demo MoI spec on the simulated reader, in a fresh workspace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../../src-main/store/workspace';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'fg-dry-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function count(ws: string, sql: string): number {
  const w = openWorkspace(ws);
  try {
    return (w.db.prepare(sql).get() as { n: number }).n;
  } finally {
    w.close();
  }
}

describe('run --dry-run', () => {
  it('stores no experiment and no spec version, for a spec that passes its checks and one that fails them', async () => {
    const ws = join(dir, 'w.fairground');
    const spec = JSON.parse(readFileSync(resolve('resources/demo/experiments/moi.json'), 'utf8')) as Record<string, unknown>;
    const good = join(dir, 'moi.json');
    writeFileSync(good, JSON.stringify({ ...spec, name: 'dry' }));
    const dry = await runCliCaptured(['run', good, '--dry-run', '--json', '--workspace', ws], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { toCompute: number }).toCompute).toBeGreaterThan(0);
    expect(count(ws, 'SELECT count(*) AS n FROM experiments')).toBe(0);
    expect(count(ws, 'SELECT count(*) AS n FROM experiment_spec_versions')).toBe(0);

    // A stored version, then dry runs of changed specs — one that fails its checks (an unknown model), one that
    // passes them (another n): still one version, the stored one.
    const bad = join(dir, 'moi-bad.json');
    writeFileSync(bad, JSON.stringify({ ...spec, name: 'dry', generator: { model: 'No such model' } }));
    const changed = join(dir, 'moi-changed.json');
    writeFileSync(changed, JSON.stringify({ ...spec, name: 'dry', n: 3 }));
    const w = openWorkspace(ws);
    w.db.prepare(`INSERT INTO experiments(kind, name, spec, version, created_at, updated_at) VALUES ('moi', 'dry', ?, 1, '2026-01-01', '2026-01-01')`).run(JSON.stringify({ ...spec, name: 'dry' }));
    w.close();
    const versions = count(ws, 'SELECT count(*) AS n FROM experiment_spec_versions');
    const failing = await runCliCaptured(['run', bad, '--dry-run', '--workspace', ws], { cwd: dir });
    expect(failing.code).toBe(2);
    expect(failing.stderr).toContain('No such model');
    expect((await runCliCaptured(['run', changed, '--dry-run', '--workspace', ws], { cwd: dir })).code).toBe(0);
    expect(count(ws, "SELECT max(version) AS n FROM experiments WHERE name = 'dry'")).toBe(1);
    expect(count(ws, 'SELECT count(*) AS n FROM experiment_spec_versions')).toBe(versions);
    expect(count(ws, 'SELECT count(*) AS n FROM experiments')).toBe(1);
  }, 300_000);
});
