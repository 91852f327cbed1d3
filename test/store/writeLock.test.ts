/**
 * Writers queue (issue 15 item 5): every db.transaction() of a workspace begins IMMEDIATE, so a
 * read-then-write transaction waits for another connection's write instead of failing with
 * SQLITE_BUSY_SNAPSHOT; withWriteLock waits without blocking the event loop, says so once, and
 * can be cancelled.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, readWriterNote, withWriteLock, type Workspace } from '../../src-main/store/workspace';

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

  it('the holder names itself in the -writer note while it holds the lock, and only then', async () => {
    const note = `${a.path}-writer.${process.pid}`;
    let during: [boolean, string | null] = [false, null];
    let held = -1;
    await withWriteLock(
      a.db,
      () => {
        during = [existsSync(note), readWriterNote(b.db)];
        a.db.prepare(`INSERT INTO t VALUES (1)`).run();
      },
      { what: 'import is publishing', onHeld: (ms) => (held = ms) },
    );
    expect(during).toEqual([true, `another import is publishing (pid ${process.pid})`]);
    expect(existsSync(note)).toBe(false);
    expect(held).toBeGreaterThanOrEqual(0);
    // A failing fn leaves no note either.
    await expect(withWriteLock(a.db, () => { throw new Error('boom'); }, { what: 'import is publishing' })).rejects.toThrow('boom');
    expect(existsSync(note)).toBe(false);
  });

  it('a note of a process that is gone (killed while holding the lock) is not believed', () => {
    // pid 2^22+: above Linux's pid_max default, so no such process; its note is removed.
    writeFileSync(`${a.path}-writer.4194999`, JSON.stringify({ pid: 4_194_999, host: hostname(), what: 'import is publishing', since: '' }));
    expect(readWriterNote(b.db)).toBeNull();
    expect(existsSync(`${a.path}-writer.4194999`)).toBe(false);
    // Half a note (killed between writing and renaming it) is skipped and removed too.
    writeFileSync(`${a.path}-writer.4194999.tmp`, '{"pid": 41');
    expect(readWriterNote(b.db)).toBeNull();
    expect(existsSync(`${a.path}-writer.4194999.tmp`)).toBe(false);
    writeFileSync(`${a.path}-writer.7`, JSON.stringify({ pid: 7, host: 'elsewhere', what: 'run is writing', since: '2026-01-01' }));
    expect(readWriterNote(b.db)).toBe('another run is writing (pid 7 on elsewhere)');
    // Two notes (one holder committing, the next one starting): the newer one.
    writeFileSync(`${a.path}-writer.8`, JSON.stringify({ pid: 8, host: 'elsewhere', what: 'import is publishing', since: '2026-01-02' }));
    expect(readWriterNote(b.db)).toBe('another import is publishing (pid 8 on elsewhere)');
  });

  it('waits past the busy timeout without a limit of its own, saying who holds the lock', async () => {
    a.db.exec('BEGIN IMMEDIATE');
    writeFileSync(`${a.path}-writer.${process.pid}`, JSON.stringify({ pid: process.pid, host: hostname(), what: 'import is publishing', since: '' }));
    b.db.pragma('busy_timeout = 20');
    const said: string[] = [];
    const release = setTimeout(() => {
      rmSync(`${a.path}-writer.${process.pid}`);
      a.db.exec('COMMIT');
    }, 300);
    await withWriteLock(b.db, () => b.db.prepare(`INSERT INTO t VALUES (5)`).run(), { onWait: (m) => said.push(m), pollMs: 20 });
    clearTimeout(release);
    expect(said).toEqual([`waiting for the workspace: another import is publishing (pid ${process.pid})`]);
    expect(b.db.pragma('busy_timeout', { simple: true })).toBe(20);
  });
});
