/**
 * A full disk and a read-only workspace (issue 10).
 *
 * Full disk: a tmpfs of a few MB would need root (mount), so the disk fills through the file-size
 * limit instead: `ulimit -f` with SIGXFSZ ignored makes every write past the limit fail with
 * EFBIG, which SQLite reports as "disk I/O error" (a real full disk, ENOSPC, reads "database or
 * disk is full"). The import must stop with one error line, and the workspace must be intact, the
 * collection absent, and a later import (with room again) complete.
 *
 * Read-only: a workspace file and folder without write permission. As root permissions do not
 * apply, so there the commands run as nobody (uid 65534); the error must say read-only.
 */
import { unprivilegedCanRunCli } from '../support/unprivileged';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../fuzz/cliHarness';
import { BIN, inspectWorkspace, killAll, REPO, start, writeCorpus } from './support';

const DOCS = 25_000;
let dir: string;
let corpus: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stress-disk-'));
  chmodSync(dir, 0o755);
  corpus = join(dir, 'corpus.jsonl');
  writeCorpus(corpus, DOCS, 21);
});
afterAll(() => {
  killAll();
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe('a full disk', () => {
  // 1 MB: the staging of the corpus (a temp file) hits it; 5 MB: staging fits (under 4 MB), and
  // the documents go in ranges of 10,000 (issue 15 item 5), each range's commit then checkpoint
  // growing the WAL and the file: the third range no longer fits in either. (At 7 MB and more the
  // import succeeds: what the file cannot take stays in the WAL.)
  for (const kb of [1024, 5 * 1024]) {
    it(`stops an import at a ${kb / 1024} MB file-size limit with one error line and leaves the workspace intact`, async () => {
      const ws = join(dir, `full-${kb}.fairground`);
      expect((await cli(['collection', 'import', '--kind', 'corpus', '--name', 'small', '-w', ws, join(REPO, 'test', 'fixtures', 'collections', 'corpus.jsonl')], dir)).code).toBe(0);
      const before = inspectWorkspace(ws);
      const script = `trap '' XFSZ; ulimit -f ${kb}; exec "${process.execPath}" "${BIN}" collection import --kind corpus --name big -w "${ws}" "${corpus}"`;
      const r = await start('bash', ['-c', script], { cwd: REPO }).exit;
      expect(r.code).not.toBe(0);
      const lines = r.stderr.trim().split('\n');
      // Progress lines ("57% read …") may come first; the error is one line, without a stack.
      expect(lines.at(-1)).toMatch(/^fairground collection import: .*(disk I\/O error|disk is full|too large)/);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      const after = inspectWorkspace(ws);
      expect(after.integrity).toBe('ok');
      expect(after.fts).toBe('ok');
      // 'big' is absent and 'small' untouched. The ranges written so far went into a collection of
      // their own, which the import deletes when it fails — unless the full disk refuses that
      // delete too: then it stays, consistent (its hash matches its rows), until the next import.
      const { small, ...rest } = after.collections;
      expect(small).toEqual(before.collections.small);
      for (const [name, c] of Object.entries(rest)) {
        expect(name).toMatch(/^big \(importing \d+-\d+\)$/);
        expect(c.hash).toBe(c.storedHash);
      }
      // With room again the import completes, and removes what the failed one left.
      const again = await cli(['collection', 'import', '--kind', 'corpus', '--name', 'big', '-w', ws, corpus], dir);
      expect(again.code, again.stderr).toBe(0);
      const final = inspectWorkspace(ws).collections;
      expect(Object.keys(final).sort()).toEqual(['big', 'small']);
      expect(final.big!.documents).toBe(DOCS);
      expect(final.big!.hash).toBe(final.big!.storedHash);
    });
  }
});

describe('a read-only workspace', () => {
  // As root the commands run as nobody, which needs a checkout nobody can read (not under a 0700 folder).
  it.skipIf(process.platform === 'win32' || !unprivilegedCanRunCli())('every command says read-only, and nothing is written', async () => {
    const folder = join(dir, 'ro');
    const ws = join(folder, 'w.fairground');
    expect((await cli(['collection', 'import', '--kind', 'corpus', '--name', 'c', '-w', ws, join(REPO, 'test', 'fixtures', 'collections', 'corpus.jsonl')], dir)).code).toBe(0);
    const before = inspectWorkspace(ws);
    chmodSync(ws, 0o444);
    chmodSync(folder, 0o555);
    try {
      const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      for (const argv of [
        ['collection', 'import', '--kind', 'qrels', '--name', 'c', join(REPO, 'test', 'fixtures', 'collections', 'qrels.txt')],
        ['workspace', 'info'],
        ['collection', 'list'],
      ]) {
        const r = spawnSync(process.execPath, [BIN, ...argv, '-w', ws], { ...asUser, cwd: REPO, encoding: 'utf8', timeout: 60_000 });
        expect({ argv, status: r.status, stderr: r.stderr }).toEqual({
          argv,
          status: 1,
          stderr: `fairground ${argv.slice(0, 2).join(' ')}: the workspace ${ws} is read-only (no write permission on the file or its folder)\n`,
        });
      }
    } finally {
      chmodSync(folder, 0o755);
      chmodSync(ws, 0o644);
    }
    expect(inspectWorkspace(ws).collections).toEqual(before.collections);
  });
});
