/**
 * Rows of a killed import (issue 26): an import of many documents fills a hidden collection
 * `NAME (importing PID-N)` range by range; when its process is killed, the rows stayed in the file
 * until the next import. Now the app removes them as it opens the workspace — only those of a
 * process that is gone, never those of a live import (this process, or another running one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { openWorkspace } from '../../src-main/store/workspace';

const dir = mkdtempSync(join(tmpdir(), 'fg-abandoned-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collections(path: string): Array<{ name: string; documents: number }> {
  const w = openWorkspace(path);
  try {
    return w.db.prepare(`SELECT c.name AS name, (SELECT count(*) FROM documents d WHERE d.collection_id = c.id) AS documents FROM collections c ORDER BY c.name`).all() as Array<{ name: string; documents: number }>;
  } finally {
    w.close();
  }
}

describe('a killed import', () => {
  it("is removed when the app opens the workspace; a live process's import is kept", async () => {
    const path = join(dir, 'w.fairground');
    const first = createAppServices(path, { transport: 'http' });
    const dead = first.collections.repo.create('News (importing 4194999-1)');
    const alive = first.collections.repo.create(`News (importing ${process.ppid}-2)`);
    for (const id of [dead.id, alive.id]) {
      first.collections.repo.db.prepare(`INSERT INTO documents (collection_id, doc_id, title, text, attrs) VALUES (?, 'd1', '', 'some text', '{}')`).run(id);
    }
    await first.close();
    expect(collections(path)).toEqual(
      expect.arrayContaining([
        { name: `News (importing ${process.ppid}-2)`, documents: 1 },
        { name: 'News (importing 4194999-1)', documents: 1 },
      ]),
    );
    // A CLI command sharing the workspace with a running app leaves imports alone (markInterrupted: false).
    await createAppServices(path, { transport: 'http', markInterrupted: false }).close();
    expect(collections(path)).toHaveLength(2);
    // The app opening it removes the dead process's rows, and only those.
    await createAppServices(path, { transport: 'http' }).close();
    expect(collections(path)).toEqual([{ name: `News (importing ${process.ppid}-2)`, documents: 1 }]);
  });
});
