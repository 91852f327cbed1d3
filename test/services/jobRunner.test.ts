import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0008 } from '../../src-main/store/migrations/0008_job_owner';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';

function setup(now: () => number = Date.now) {
  const db = new Database(':memory:');
  migration0001.up(db);
  migration0008.up(db);
  const events = new EventBus();
  const seen: string[] = [];
  events.subscribe((e) => e.event === 'job.updated' && seen.push(`${e.payload.status}:${e.payload.progress}`));
  return { db, runner: new JobRunner(db, events, now, 0), seen };
}

describe('JobRunner', () => {
  it('runs a job to success, persisting progress and result', async () => {
    const { runner, seen } = setup();
    const job = runner.start('k', 'Count', { n: 3 }, async (ctx) => {
      for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `step ${i}`);
      return { total: 3 };
    });
    const done = await runner.wait(job.id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 3, total: 3, message: 'step 3', result: { total: 3 }, error: null });
    expect(seen).toEqual(['running:0', 'running:1', 'running:2', 'running:3', 'succeeded:3']);
  });

  it('estimates the time left from the rate so far', () => {
    let t = 1_000_000;
    const { runner } = setup(() => t);
    const job = runner.start('k', 'Slow', {}, () => new Promise(() => {}));
    t += 10_000; // 10 s for 1 of 5 units → 40 s left
    const ctxJob = runner.get(job.id);
    expect(ctxJob.etaSeconds).toBeNull(); // no progress yet
    (runner as unknown as { report(id: string, d: number, t: number): void }).report(job.id, 1, 5);
    expect(runner.get(job.id).etaSeconds).toBe(40);
  });

  it('records failures with the error message', async () => {
    const { runner } = setup();
    const job = runner.start('k', 'Broken', {}, async () => {
      throw new Error('disk full');
    });
    expect(await runner.wait(job.id)).toMatchObject({ status: 'failed', error: 'disk full' });
  });

  it('cancels a running job between units of work', async () => {
    const { runner } = setup();
    let units = 0;
    const job = runner.start('k', 'Long', {}, async (ctx) => {
      for (;;) {
        ctx.throwIfCancelled();
        units++;
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    await new Promise((r) => setTimeout(r, 30));
    runner.cancel(job.id);
    const done = await runner.wait(job.id);
    expect(done.status).toBe('cancelled');
    const at = units;
    await new Promise((r) => setTimeout(r, 30));
    expect(units).toBe(at);
  });

  it('marks jobs left running by a dead process as interrupted', () => {
    const { db, runner } = setup();
    db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at) VALUES ('old','k','t','running','{}','2026-01-01')`).run();
    expect(runner.markInterrupted()).toBe(1);
    expect(runner.get('old').status).toBe('interrupted');
  });
});

describe('JobRunner resumable kinds', () => {
  it('after a resume, estimates the time left from the rate since the resume, not earlier progress over new time', async () => {
    let t = 1_000_000;
    const { runner } = setup(() => t);
    const report = (id: string, d: number, total: number) => (runner as unknown as { report(id: string, d: number, t: number): void }).report(id, d, total);
    runner.registerKind<Record<string, never>>('slow', { title: () => 'Slow', run: (_p, ctx) =>
        new Promise((_r, reject) => {
          if (ctx.signal.aborted) reject(new Error('cancelled'));
          ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')));
        }),
    });
    const job = runner.startKind('slow', {});
    t += 600_000; // the first run did 600 of 1000 units in 600 s
    report(job.id, 600, 1000);
    expect(runner.get(job.id).etaSeconds).toBe(400);
    runner.cancel(job.id);
    await runner.wait(job.id);
    t += 3_600_000; // an hour later
    runner.resume(job.id);
    expect(runner.get(job.id).etaSeconds).toBeNull(); // nothing done since the resume yet
    t += 10_000; // 50 units in the 10 s since the resume: 5 units/s, 350 left → 70 s
    report(job.id, 650, 1000);
    // The old estimate, 350 × 10 s / 650, said 5 s.
    expect(runner.get(job.id).etaSeconds).toBe(70);
    runner.cancel(job.id);
    await runner.wait(job.id);
  });

  it('resumes a cancelled job under the same id, skipping finished units', async () => {
    const { db, runner } = setup();
    const done = new Set<number>(); // stands in for rows a real kind writes to the workspace
    let executed = 0;
    runner.registerKind<{ n: number }>('count', {
      title: (p) => `Count to ${p.n}`,
      run: async (p, ctx) => {
        for (let i = 0; i < p.n; i++) {
          if (done.has(i)) continue;
          ctx.throwIfCancelled();
          await new Promise((r) => setTimeout(r, 3));
          executed++;
          done.add(i);
          ctx.progress(done.size, p.n);
        }
        return { done: done.size };
      },
    });
    const job = runner.startKind('count', { n: 40 });
    expect(job).toMatchObject({ title: 'Count to 40', resumable: false });
    await new Promise((r) => setTimeout(r, 25));
    runner.cancel(job.id);
    const cancelled = await runner.wait(job.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', resumable: true });
    const before = executed;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(40);
    runner.resume(job.id);
    const finished = await runner.wait(job.id);
    expect(finished).toMatchObject({ id: job.id, status: 'succeeded', result: { done: 40 }, resumable: false });
    expect(executed).toBe(40); // nothing ran twice
    expect((db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n).toBe(1);
  });

  it('refuses to resume a finished job or an unknown kind', async () => {
    const { runner } = setup();
    runner.registerKind('noop', { title: () => 'noop', run: async () => 1 });
    const ok = runner.startKind('noop', {});
    await runner.wait(ok.id);
    expect(() => runner.resume(ok.id)).toThrow(/nothing to resume/);
    const adhoc = runner.start('adhoc', 'Ad hoc', {}, async () => {
      throw new Error('x');
    });
    await runner.wait(adhoc.id);
    expect(runner.get(adhoc.id).resumable).toBe(false);
    expect(() => runner.resume(adhoc.id)).toThrow(/cannot be resumed/);
    expect(() => runner.startKind('nope', {})).toThrow(/no job kind/);
  });
});

describe('JobRunner progress throttling', () => {
  it('keeps the last progress a throttled report carried', async () => {
    const db = new Database(':memory:');
    migration0001.up(db);
  migration0008.up(db);
    let t = 0;
    const runner = new JobRunner(db, new EventBus(), () => t, 100);
    const job = runner.start('k', 'Throttled', {}, async (ctx) => {
      ctx.progress(1, null, 'one');
      t += 10; // within the throttle window: not written when reported
      ctx.progress(7, null, 'seven');
      return null;
    });
    expect(await runner.wait(job.id)).toMatchObject({ status: 'succeeded', progress: 7, message: 'seven' });
  });
});

describe('JobRunner and other processes', () => {
  it('leaves a job whose process is alive alone, and refuses to resume it', async () => {
    const { spawn } = await import('node:child_process');
    const { hostname } = await import('node:os');
    const { db, runner } = setup();
    runner.registerKind('k', { title: () => 't', run: async () => 1 });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    try {
      db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at, owner) VALUES ('cli', 'k', 'CLI run', 'running', '{}', 'now', ?)`).run(
        JSON.stringify({ pid: other.pid, host: hostname() }),
      );
      db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at, owner) VALUES ('dead', 'k', 'Dead run', 'running', '{}', 'now', ?)`).run(
        JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname() }),
      );
      expect(runner.markInterrupted()).toBe(1);
      expect(runner.get('cli').status).toBe('running');
      expect(runner.get('dead').status).toBe('interrupted');
      expect(() => runner.resume('cli')).toThrow(/running in another process/);
      runner.resume('dead');
      expect((await runner.wait('dead')).status).toBe('succeeded');
    } finally {
      other.kill();
    }
  });
});
