/**
 * A job waiting for the workspace's write lock shows it (issue 15 item 5): while another
 * connection holds the lock, the job's progress says who holds it — in its events at once, not
 * after the wait (its own progress writes never wait in SQLite's busy timeout) — it keeps waiting
 * past the busy timeout, a cancel ends the wait with nothing written, and its final status is
 * written once the lock is free.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src-main/api/contract/jobs';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

let dir: string;
let ws: Workspace;
let other: Workspace;
let runner: JobRunner;
let seen: Job[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-jobwait-'));
  ws = openWorkspace(join(dir, 'w.fairground'));
  other = openWorkspace(ws.path);
  const events = new EventBus();
  seen = [];
  events.subscribe((e) => e.event === 'job.updated' && seen.push(e.payload));
  runner = new JobRunner(ws.db, events, Date.now, 0);
  // A short busy timeout: waiting past it must not fail.
  ws.db.pragma('busy_timeout = 50');
});
afterEach(() => {
  if (other.db.inTransaction) other.db.exec('ROLLBACK');
  other.close();
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The other connection takes the write lock and names itself in the note, as withWriteLock does. */
function holdLock(): void {
  other.db.exec('BEGIN IMMEDIATE');
  other.db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES ('other', '', '')`).run();
  writeFileSync(`${ws.path}-writer.${process.pid}`, JSON.stringify({ pid: process.pid, host: hostname(), what: 'import is publishing', since: new Date().toISOString() }));
}
function releaseLock(): void {
  rmSync(`${ws.path}-writer.${process.pid}`, { force: true });
  other.db.exec('COMMIT');
}

const names = () => ws.db.prepare(`SELECT name FROM collections ORDER BY name`).pluck().all();
const waiting = `waiting for the workspace: another import is publishing (pid ${process.pid})`;

describe('a job waiting for the write lock', () => {
  it('reports the wait at once, waits past the busy timeout, then writes and succeeds', async () => {
    let go!: () => void;
    const ready = new Promise<void>((r) => (go = r));
    const job = runner.start('k', 'Writer', {}, async (ctx) => {
      await ready;
      ctx.progress(1, 2, 'step one');
      const changes = await ctx.withWriteLock!(() => ws.db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES ('mine', '', '')`).run().changes, 'run is writing');
      ctx.progress(2, 2, 'done');
      return { changes };
    });
    holdLock();
    go();
    const t0 = Date.now();
    while (!seen.some((j) => j.message === waiting) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 10));
    // Reported while the lock is still held: the event carries the progress the row cannot take yet.
    expect(seen.find((j) => j.message === waiting)).toMatchObject({ id: job.id, status: 'running', progress: 1, total: 2 });
    expect(runner.get(job.id)).toMatchObject({ status: 'running', message: waiting });
    await new Promise((r) => setTimeout(r, 300));
    releaseLock();
    const done = await runner.wait(job.id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 2, message: 'done', result: { changes: 1 } });
    // After the wait the line went back to what the job was doing.
    const after = seen.slice(seen.findIndex((j) => j.message === waiting));
    expect(after.map((j) => j.message)).toContain('step one');
    expect(names()).toEqual(['mine', 'other']);
  });

  it('a cancel ends the wait with nothing written; the final status follows when the lock is free', async () => {
    let go!: () => void;
    const ready = new Promise<void>((r) => (go = r));
    const job = runner.start('k', 'Writer', {}, async (ctx) => {
      await ready;
      return ctx.withWriteLock!(() => ws.db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES ('mine', '', '')`).run().changes);
    });
    holdLock();
    go();
    const t0 = Date.now();
    while (!seen.some((j) => j.message === waiting) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 10));
    // cancel() answers at once although its row write has to wait.
    expect(runner.cancel(job.id)).toMatchObject({ status: 'running', message: 'cancelling…' });
    await new Promise((r) => setTimeout(r, 200));
    expect(other.db.prepare(`SELECT status FROM jobs WHERE id = ?`).pluck().get(job.id)).toBe('running');
    releaseLock();
    expect(await runner.wait(job.id)).toMatchObject({ status: 'cancelled' });
    expect(names()).toEqual(['other']);
  });
});

describe('a job whose plain transaction waits inside the busy timeout', () => {
  it('says who it waits for before the process blocks, then commits', async () => {
    ws.db.pragma('busy_timeout = 20000');
    let go!: () => void;
    const ready = new Promise<void>((r) => (go = r));
    const job = runner.start('k', 'Plain writer', {}, async (ctx) => {
      await ready;
      ctx.progress(3, 4, 'writing results');
      return ws.db.transaction(() => ws.db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES ('mine', '', '')`).run().changes)();
    });
    // Another process holds the lock for a while, named in its note (a process of its own: this one blocks).
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const fs = require('fs'); const os = require('os');
         const db = new D(process.argv[1]); db.exec('BEGIN IMMEDIATE');
         db.prepare("INSERT INTO collections(name, content_hash, created_at) VALUES ('other', '', '')").run();
         const note = process.argv[1] + '-writer.' + process.pid;
         fs.writeFileSync(note, JSON.stringify({ pid: process.pid, host: os.hostname(), what: 'import is publishing', since: new Date().toISOString() }));
         process.stdout.write('held\\n');
         setTimeout(() => { fs.rmSync(note); db.exec('COMMIT'); db.close(); }, 700);`,
        ws.path,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    go();
    const done = await runner.wait(job.id);
    await new Promise((r) => holder.once('exit', r));
    expect(done).toMatchObject({ status: 'succeeded', result: 1 });
    expect(seen.find((j) => j.message?.startsWith('waiting for the workspace'))).toMatchObject({
      id: job.id,
      progress: 3,
      message: `waiting for the workspace: another import is publishing (pid ${holder.pid})`,
    });
    expect(names()).toEqual(['mine', 'other']);
  });
});
