/**
 * Issue 34: `run --dry-run` of a spec whose query selection leaves nothing to compute is an error
 * (exit 2) naming why, not a plan of 0 calls with exit 0 and "design checks: no problems found".
 * Two cases on the demo collection (tasks headline, movie-tag, multi-aspect): a task filter that
 * selects no query (MoI and RichRAG; refused by the spec checks, so `run` and the wizard refuse it
 * too), and a filter that selects queries none of which RichRAG can use (headline queries have no
 * sub-aspects). Nothing is stored either way.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../../src-main/store/workspace';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'fg-dry-run-none-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ws = join(dir, 'w.fairground');

function specFile(kind: 'moi' | 'richrag', name: string, over: Record<string, unknown>): string {
  const spec = JSON.parse(readFileSync(resolve(`resources/demo/experiments/${kind}.json`), 'utf8')) as Record<string, unknown>;
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...spec, name, ...over }));
  return file;
}

describe('run --dry-run with a selection that leaves no query', () => {
  it('exits 2 naming the tasks filter, or the plan of no calls, and stores nothing', async () => {
    const good = await runCliCaptured(['run', specFile('moi', 'moi-good', {}), '--dry-run', '--workspace', ws], { cwd: dir });
    expect(good.code, good.stderr).toBe(0);

    for (const kind of ['moi', 'richrag'] as const) {
      const r = await runCliCaptured(['run', specFile(kind, `${kind}-nope`, { tasks: ['nope'] }), '--dry-run', '--workspace', ws], { cwd: dir });
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain(`${kind}-nope.json: tasks: tasks ('nope') select none of the 12 queries of collection 'Fairground demo' (their tasks: headline, movie-tag, multi-aspect)`);
      expect(r.stdout).toBe('');
      // The run itself refuses it the same way, before anything is stored.
      const run = await runCliCaptured(['run', specFile(kind, `${kind}-nope`, { tasks: ['nope'] }), '--workspace', ws], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("tasks ('nope') select none");
    }

    const unusable = await runCliCaptured(['run', specFile('richrag', 'richrag-headline', { tasks: ['headline'] }), '--dry-run', '--workspace', ws], { cwd: dir });
    expect(unusable.code, unusable.stdout).toBe(2);
    expect(unusable.stderr).toContain("the plan of 'richrag-headline' has no calls: none of the queries its collection, queries and tasks select can be used by a richrag run");
    expect(unusable.stdout).toBe('');

    const w = openWorkspace(ws);
    try {
      expect((w.db.prepare('SELECT count(*) AS n FROM experiments').get() as { n: number }).n).toBe(0);
    } finally {
      w.close();
    }
  }, 300_000);
});
