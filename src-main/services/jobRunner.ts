/**
 * Long work (imports, labeling, experiments) runs as jobs: persisted in the workspace, reporting
 * progress with an ETA over the event bus, cancellable, and marked `interrupted` when the app
 * died under them so they can be resumed (resumable work keeps its finished LLM calls in the cache).
 */
import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { Job, JobStatus } from '../api/contract/jobs';
import { ApiFailure } from '../api/apiFailure';
import { commitWithoutSync } from '../store/callCacheRepo';
import { BUSY_TIMEOUT_MS, onBlockingWait, WAITING_FOR_WORKSPACE, withWriteLock } from '../store/workspace';
import type { EventBus } from './eventBus';
import { currentOwner, ownerGone, type ProcessOwner } from './processOwner';

export interface JobContext {
  readonly signal: AbortSignal;
  readonly jobId: string;
  /** Report units done (and the total once known), with an optional status line. */
  progress(done: number, total?: number | null, message?: string): void;
  /** Throws if the job was cancelled; call between units of work. */
  throwIfCancelled(): void;
  /**
   * Runs `fn` in one write transaction once the workspace's write lock is free (issue 15 item 5):
   * while another connection or process holds it, the job's progress says so ("waiting for the
   * workspace: another import is publishing (pid 12)"), for as long as it takes — past the busy
   * timeout — and a cancel ends the wait. `what` names this writer to the processes that wait for it.
   */
  withWriteLock?<T>(fn: () => T, what?: string): Promise<T>;
}

export type JobFn = (ctx: JobContext) => Promise<unknown>;

/**
 * A job kind that can be started by name and resumed from its stored params. Its `run` must be
 * idempotent over finished work (skip rows already written; LLM calls come from the call cache),
 * which is what makes resuming after a crash or a cancel safe.
 */
export interface JobKind<P = unknown> {
  title(params: P): string;
  run(params: P, ctx: JobContext): Promise<unknown>;
}

export class JobCancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'JobCancelledError';
  }
}

interface JobRow {
  id: string;
  kind: string;
  title: string;
  status: JobStatus;
  params: string;
  progress: number;
  total: number | null;
  message: string | null;
  error: string | null;
  result: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const FINISHED: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);

export class JobRunner {
  /**
   * Jobs running in this process. `startedMs`/`baseProgress` are the clock and the progress when the job last
   * started or resumed: the ETA comes from the rate since then, never earlier progress over new elapsed time.
   */
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void>; startedMs: number; baseProgress: number }>();
  private readonly lastEmit = new Map<string, number>();
  /** The latest progress of each running job, including reports the throttle did not write. */
  private readonly latest = new Map<string, { done: number; total: number | null | undefined; message: string | undefined }>();
  private readonly kinds = new Map<string, JobKind>();
  /** Jobs whose latest progress could not be written yet (another process held the write lock), with the retry timer. */
  private readonly unwritten = new Map<string, ReturnType<typeof setTimeout>>();
  /** Statements of the progress path, prepared once (a run reports progress after every call). */
  private readonly stmts = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
    private readonly now: () => number = Date.now,
    /** Minimum milliseconds between progress writes/events for one job. */
    private readonly throttleMs = 100,
  ) {
    // A transaction of this process about to wait inside SQLite's busy timeout blocks every job
    // here: each running job's line says who it waits for (issue 15 item 5).
    onBlockingWait(db, (message) => {
      for (const id of this.running.keys()) {
        const last = this.latest.get(id);
        this.report(id, last?.done ?? 0, last?.total, message);
      }
    });
  }

  /**
   * Jobs left `queued`/`running` by a process that died become `interrupted`. A job whose owner is
   * alive (a `fairground` command working in the same workspace) is left alone.
   */
  markInterrupted(): number {
    const rows = this.db.prepare(`SELECT id, owner FROM jobs WHERE status IN ('queued','running')`).all() as { id: string; owner: string | null }[];
    const mark = this.db.prepare(
      `UPDATE jobs SET status='interrupted', finished_at=?, message=trim(coalesce(message,'') || ' (interrupted: its process stopped)') WHERE id=? AND status IN ('queued','running')`,
    );
    let changed = 0;
    for (const r of rows) {
      if (!ownerGone(parseOwner(r.owner))) continue;
      changed += mark.run(new Date(this.now()).toISOString(), r.id).changes;
    }
    return changed;
  }

  /** Register a resumable job kind. */
  registerKind<P>(kind: string, handler: JobKind<P>): void {
    this.kinds.set(kind, handler as JobKind);
  }

  isResumable(kind: string): boolean {
    return this.kinds.has(kind);
  }

  /** Whether the job runs in this process now (started and not yet settled). */
  isLive(id: string): boolean {
    return this.running.has(id);
  }

  /** Start a registered kind with params. */
  startKind(kind: string, params: unknown): Job {
    const handler = this.kinds.get(kind);
    if (!handler) throw new ApiFailure('not-found', `no job kind '${kind}'`);
    return this.start(kind, handler.title(params), params, (ctx) => handler.run(params, ctx));
  }

  /**
   * Run an interrupted, cancelled or failed job again from its stored params, under the same id.
   * Finished work is skipped by the kind's own idempotence (see JobKind).
   */
  resume(id: string): Job {
    const job = this.get(id);
    if (this.running.has(id)) throw new ApiFailure('conflict', `job ${id} is already running`);
    const row0 = this.db.prepare(`SELECT owner FROM jobs WHERE id=?`).get(id) as { owner: string | null };
    const owner = parseOwner(row0.owner);
    if ((job.status === 'running' || job.status === 'queued') && !ownerGone(owner)) {
      throw new ApiFailure('conflict', `job '${job.title}' is running in another process (pid ${owner?.pid} on ${owner?.host})`);
    }
    if (job.status === 'succeeded') throw new ApiFailure('conflict', `job '${job.title}' already finished; nothing to resume`);
    const handler = this.kinds.get(job.kind);
    if (!handler) throw new ApiFailure('conflict', `jobs of kind '${job.kind}' cannot be resumed`);
    const row = this.db.prepare(`SELECT params FROM jobs WHERE id=?`).get(id) as { params: string };
    const params = JSON.parse(row.params) as unknown;
    return this.launch(id, job.kind, job.title, params, (ctx) => handler.run(params, ctx), true);
  }

  start(kind: string, title: string, params: unknown, fn: JobFn): Job {
    return this.launch(randomUUID(), kind, title, params, fn, false);
  }

  private launch(id: string, kind: string, title: string, params: unknown, fn: JobFn, resuming: boolean): Job {
    const created = new Date(this.now()).toISOString();
    let baseProgress = 0;
    if (resuming) {
      baseProgress = (this.db.prepare(`SELECT progress FROM jobs WHERE id=?`).get(id) as { progress: number } | undefined)?.progress ?? 0;
      this.db
        .prepare(`UPDATE jobs SET status='running', error=NULL, result=NULL, finished_at=NULL, started_at=?, message='resuming', owner=? WHERE id=?`)
        .run(created, JSON.stringify(currentOwner()), id);
    } else {
      this.db
        .prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at, started_at, owner) VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`)
        .run(id, kind, title, JSON.stringify(params ?? {}), created, created, JSON.stringify(currentOwner()));
    }
    const controller = new AbortController();
    const startedMs = this.now();
    const ctx: JobContext = {
      signal: controller.signal,
      jobId: id,
      progress: (done, total, message) => this.report(id, done, total, message),
      throwIfCancelled: () => {
        if (controller.signal.aborted) throw new JobCancelledError();
      },
      withWriteLock: async (fn, what) => {
        const before = this.latest.get(id);
        let waited = false;
        try {
          return await withWriteLock(this.db, fn, {
            signal: controller.signal,
            what,
            onWait: (message) => {
              waited = true;
              const last = this.latest.get(id);
              this.report(id, last?.done ?? 0, last?.total, message);
            },
          });
        } finally {
          // The wait is over: the job's line says again what it was doing.
          const last = this.latest.get(id);
          if (waited && !controller.signal.aborted) this.report(id, last?.done ?? 0, last?.total, before?.message ?? 'writing');
        }
      },
    };
    const done = (async () => {
      // Start the work after `start` has returned and announced the job, so events stay in order.
      await null;
      try {
        let outcome: [JobStatus, string | null, unknown];
        try {
          const result = await fn(ctx);
          outcome = [controller.signal.aborted ? 'cancelled' : 'succeeded', null, result];
        } catch (err) {
          if (controller.signal.aborted || err instanceof JobCancelledError) outcome = ['cancelled', null, undefined];
          else outcome = ['failed', err instanceof Error ? err.message : String(err), undefined];
        }
        await this.finish(id, ...outcome);
      } finally {
        this.running.delete(id);
      }
    })();
    this.running.set(id, { controller, done, startedMs, baseProgress });
    const job = this.get(id);
    this.events.emit('job.updated', job);
    return job;
  }

  cancel(id: string): Job {
    const job = this.get(id);
    const entry = this.running.get(id);
    if (!entry) {
      if (FINISHED.has(job.status)) return job;
      throw new ApiFailure('conflict', `job ${id} is not running in this process`);
    }
    entry.controller.abort();
    // Not blocking behind another process's write: the row follows when the lock is free.
    const last = this.latest.get(id);
    this.latest.set(id, { done: last?.done ?? job.progress, total: last?.total ?? job.total, message: 'cancelling…' });
    this.writeLatest(id);
    const updated = this.get(id);
    this.events.emit('job.updated', updated);
    return updated;
  }

  /** Resolves when the job has finished (any final status). */
  async wait(id: string): Promise<Job> {
    await this.running.get(id)?.done;
    return this.get(id);
  }

  get(id: string): Job {
    const row = this.st(`SELECT * FROM jobs WHERE id=?`).get(id) as JobRow | undefined;
    if (!row) throw new ApiFailure('not-found', `no job with id ${id}`);
    return this.toJob(row);
  }

  list(statuses?: JobStatus[], limit = 200): Job[] {
    const rows = (
      statuses && statuses.length
        ? this.db
            .prepare(`SELECT * FROM jobs WHERE status IN (${statuses.map(() => '?').join(',')}) ORDER BY created_at DESC, rowid DESC LIMIT ?`)
            .all(...statuses, limit)
        : this.db.prepare(`SELECT * FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?`).all(limit)
    ) as JobRow[];
    return rows.map((r) => this.toJob(r));
  }

  clearFinished(): number {
    return this.db.prepare(`DELETE FROM jobs WHERE status IN ('succeeded','failed','cancelled','interrupted')`).run().changes;
  }

  /** Cancel everything and wait (app shutdown). */
  async shutdown(): Promise<void> {
    for (const entry of this.running.values()) entry.controller.abort();
    await Promise.allSettled([...this.running.values()].map((e) => e.done));
  }

  private report(id: string, done: number, total: number | null | undefined, message: string | undefined): void {
    this.latest.set(id, { done, total, message });
    const t = this.now();
    const last = this.lastEmit.get(id) ?? 0;
    const complete = total !== undefined && total !== null && done >= total;
    // A job that starts waiting for the workspace says so at once.
    const waiting = message?.startsWith(WAITING_FOR_WORKSPACE) ?? false;
    if (t - last < this.throttleMs && !complete && !waiting) return;
    this.lastEmit.set(id, t);
    this.writeLatest(id);
    this.events.emit('job.updated', this.get(id));
  }

  /**
   * Writes a running job's latest progress unless another connection holds the workspace's write
   * lock: then it never waits (a progress line must not stall the process behind another's
   * publish), the event carries the progress anyway (toJob), and the write is retried shortly.
   */
  private writeLatest(id: string): void {
    const last = this.latest.get(id);
    if (!last) return;
    // A progress line is committed without waiting for the disk (a power loss may only lose the
    // latest lines; the job's final status is written with the workspace's full durability).
    const update = this.st(`UPDATE jobs SET progress=?, total=coalesce(?, total), message=coalesce(?, message) WHERE id=? AND status='running'`);
    const wrote = tryWrite(this.db, () => commitWithoutSync(this.db, () => update.run(last.done, last.total ?? null, last.message ?? null, id)), this.busyStatements());
    clearTimeout(this.unwritten.get(id));
    this.unwritten.delete(id);
    if (wrote) return;
    const timer = setTimeout(() => {
      this.unwritten.delete(id);
      if (this.running.has(id)) this.writeLatest(id);
    }, 250);
    timer.unref?.();
    this.unwritten.set(id, timer);
  }

  private async finish(id: string, status: JobStatus, error: string | null, result: unknown): Promise<void> {
    // Write the last progress even if the throttle skipped it, so a finished job shows where it ended.
    const last = this.latest.get(id);
    clearTimeout(this.unwritten.get(id));
    this.unwritten.delete(id);
    const write = () => {
      if (last) {
        this.db
          .prepare(`UPDATE jobs SET progress=?, total=coalesce(?, total), message=coalesce(?, message) WHERE id=?`)
          .run(last.done, last.total ?? null, last.message ?? null, id);
      }
      this.db
        .prepare(`UPDATE jobs SET status=?, error=?, result=?, finished_at=?, message=CASE WHEN ?='cancelled' THEN 'cancelled' ELSE message END WHERE id=?`)
        .run(status, error, result === undefined ? null : JSON.stringify(result), new Date(this.now()).toISOString(), status, id);
    };
    // The final status must be written: when another process holds the write lock, wait for it
    // without blocking this process (the job's result is already in hand).
    if (!tryWrite(this.db, () => this.db.transaction(write)())) {
      try {
        await withWriteLock(this.db, write, { timeoutMs: BUSY_TIMEOUT_MS });
      } catch {
        // Still locked after a minute: the row stays 'running' under this process, and becomes
        // 'interrupted' (resumable) once the process is gone (markInterrupted).
      }
    }
    this.latest.delete(id);
    this.lastEmit.delete(id);
    this.events.emit('job.updated', this.get(id));
  }

  private st(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private busyStatements(): BusyStatements {
    return {
      read: this.st('PRAGMA busy_timeout'),
      none: this.st('PRAGMA busy_timeout = 0'),
    };
  }

  private toJob(row: JobRow): Job {
    const running = this.running.get(row.id);
    const pending = this.unwritten.has(row.id) ? this.latest.get(row.id) : undefined;
    if (pending && row.status === 'running') {
      // Progress reported while another process held the write lock: newer than the row.
      row = { ...row, progress: pending.done, total: pending.total ?? row.total, message: pending.message ?? row.message };
    }
    let etaSeconds: number | null = null;
    if (running && row.status === 'running' && row.total && row.progress > running.baseProgress && row.progress < row.total) {
      // Rate since this run of the job began: units done since then over time since then.
      const elapsed = (this.now() - running.startedMs) / 1000;
      etaSeconds = Math.max(0, Math.round(((row.total - row.progress) * elapsed) / (row.progress - running.baseProgress)));
    }
    return {
      id: row.id,
      kind: row.kind,
      title: row.title,
      status: row.status,
      progress: row.progress,
      total: row.total,
      message: row.message,
      error: row.error,
      etaSeconds,
      createdAt: row.created_at,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      resumable: row.status !== 'succeeded' && row.status !== 'running' && row.status !== 'queued' && this.kinds.has(row.kind),
      ...(row.result !== null ? { result: JSON.parse(row.result) as unknown } : {}),
    };
  }
}

/** Prepared busy_timeout statements (the progress path runs them after every reported call). */
interface BusyStatements {
  read: Statement;
  none: Statement;
}

/** Runs a write now, or returns false at once when another connection holds the write lock (never waits in SQLite's busy timeout). */
function tryWrite(db: Database, write: () => unknown, busy?: BusyStatements): boolean {
  if (db.inTransaction) {
    write();
    return true;
  }
  const previous = busy ? (busy.read.pluck().get() as number) : (db.pragma('busy_timeout', { simple: true }) as number);
  if (busy) busy.none.run();
  else db.pragma('busy_timeout = 0');
  try {
    write();
    return true;
  } catch (err) {
    if (/^SQLITE_BUSY/.test(String((err as { code?: unknown }).code))) return false;
    throw err;
  } finally {
    db.pragma(`busy_timeout = ${previous}`);
  }
}

function parseOwner(text: string | null): ProcessOwner | null {
  if (!text) return null;
  try {
    const o = JSON.parse(text) as ProcessOwner;
    return typeof o.pid === 'number' && typeof o.host === 'string' ? o : null;
  } catch {
    return null;
  }
}
