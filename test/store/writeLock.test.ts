/**
 * Writers queue (issue 15 item 5): every db.transaction() of a workspace begins IMMEDIATE, so a
 * read-then-write transaction waits for another connection's write instead of failing with
 * SQLITE_BUSY_SNAPSHOT; withWriteLock waits without blocking the event loop, says so once, and
 * can be cancelled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, withWriteLock, type Workspace } from '../../src-main/store/workspace';

let dir: string;
let a: Workspace;
let b: Workspace;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-lock-'));
  a = openWorkspace(join(dir, 'w.fairground'));
  b = openWorkspace(join(dir, 'w.fairground'));
  a.db.exec(`CREATE TABLE t (n INTEGER)`);
});
afterEach(() => {
  a.close();
  b.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('writers beside writers', () => {
  it('a read-then-write transaction holds the write lock from its start (IMMEDIATE), so it cannot be overtaken and fail', () => {
    // Deferred, this is the classic SQLITE_BUSY_SNAPSHOT: b reads, a commits a write, b's write
    // fails at once whatever the busy timeout. IMMEDIATE: a waits (here: a short timeout, refused), b commits.
    a.db.pragma('busy_timeout = 50');
    let overtaken = 'not tried';
    b.db.transaction(() => {
      const n = (b.db.prepare(`SELECT count(*) AS n FROM t`).get() as { n: number }).n;
      try {
        a.db.prepare(`INSERT INTO t VALUES (100)`).run();
        overtaken = 'yes';
      } catch (err) {
        overtaken = String((err as { code?: string }).code);
      }
      b.db.prepare(`INSERT INTO t VALUES (?)`).run(n);
    })();
    expect(overtaken).toBe('SQLITE_BUSY');
    expect(b.db.prepare(`SELECT n FROM t ORDER BY rowid`).pluck().all()).toEqual([0]);
  });

  it('withWriteLock waits for the other writer without blocking, tells once, then commits', async () => {
    a.db.exec('BEGIN IMMEDIATE');
    a.db.prepare(`INSERT INTO t VALUES (1)`).run();
    let waits = 0;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const release = setTimeout(() => a.db.exec('COMMIT'), 400);
    const result = await withWriteLock(b.db, () => b.db.prepare(`INSERT INTO t VALUES (2)`).run().changes, { onWait: () => waits++, pollMs: 20 });
    clearInterval(ticker);
    clearTimeout(release);
    expect(result).toBe(1);
    expect(waits).toBe(1);
    expect(ticks).toBeGreaterThan(5); // the event loop ran while it waited
    expect(b.db.prepare(`SELECT n FROM t ORDER BY rowid`).pluck().all()).toEqual([1, 2]);
  });

  it('a cancelled wait writes nothing; a throwing fn rolls back', async () => {
    a.db.exec('BEGIN IMMEDIATE');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expect(withWriteLock(b.db, () => b.db.prepare(`INSERT INTO t VALUES (3)`).run(), { signal: ac.signal, pollMs: 20 })).rejects.toThrow();
    a.db.exec('COMMIT');
    await expect(
      withWriteLock(b.db, () => {
        b.db.prepare(`INSERT INTO t VALUES (4)`).run();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(b.db.inTransaction).toBe(false);
    expect(b.db.prepare(`SELECT count(*) FROM t`).pluck().get()).toBe(0);
  });
});
