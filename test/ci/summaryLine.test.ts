/**
 * Issue 26 item 4: the count line `.ci/run` reads (test/support/summaryReporter.ts) counts a file
 * whose beforeAll fails as failed (it said "0 passed, 0 failed, 1 skipped") and a test skipped for a
 * missing tool (it.skipIf) as skipped. Runs vitest itself on scratch test files with the reporter.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
// Inside the checkout (vitest and its config resolve from here), removed afterwards.
const dir = mkdtempSync(join(root, 'test', 'ci', 'scratch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function summary(files: Record<string, string>): { line: string; status: number | null } {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', root, '--reporter=./test/support/summaryReporter.ts', ...Object.keys(files).map((f) => join(dir, f))],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  const line = r.stdout.split('\n').filter((l) => /^\d+ passed, \d+ failed/.test(l)).pop() ?? '';
  return { line, status: r.status };
}

describe('the count line', () => {
  it('a file whose beforeAll throws counts its tests as failed; skipIf for a missing tool counts as skipped', () => {
    const r = summary({
      'hook.test.ts': "import { beforeAll, it, expect } from 'vitest';\nbeforeAll(() => { throw new Error('set-up failed'); });\nit('a', () => expect(1).toBe(1));\nit('b', () => expect(1).toBe(1));\nit.skip('on purpose', () => {});\n",
      'tool.test.ts': "import { it, expect } from 'vitest';\nconst hasTool = false;\nit('runs', () => expect(2).toBe(2));\nit.skipIf(!hasTool)('needs the tool', () => expect(3).toBe(3));\n",
    });
    expect(r.line).toBe('1 passed, 2 failed, 2 skipped');
    expect(r.status).not.toBe(0);
  }, 150_000);
});
