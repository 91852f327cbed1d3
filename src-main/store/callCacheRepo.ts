/**
 * Stored LLM calls, keyed by the call's hash (see engine/callCache.ts). A row holds the full
 * request and response as JSON so a cached result can be audited and exported, not just reused.
 */
import { readFileSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import type { Database, Statement } from 'better-sqlite3';
import { DataError } from '../core/errors';

const levels = new WeakMap<Database, { normal: Statement; restore: Statement }>();

/**
 * Runs a write (its own transaction) committed without waiting for the disk: synchronous=NORMAL
 * for this commit only (the workspace runs with FULL). In WAL mode such a commit is in the
 * operating system's hands when it returns, so a killed or crashed process loses nothing of it;
 * only a power loss or OS crash can lose the last such commits, and the next FULL commit (a run's
 * items, a job's status) syncs them with it — the WAL is written in order. Meant for what can be
 * rebuilt identically: a call cache row (the call is deterministic and is computed again) or a
 * job's progress line. Inside an outer transaction the write is part of it and follows its commit.
 */
export function commitWithoutSync<T>(db: Database, write: () => T): T {
  if (db.inTransaction) return write();
  let s = levels.get(db);
  if (!s) {
    const level = db.pragma('synchronous', { simple: true }) as number;
    s = { normal: db.prepare('PRAGMA synchronous = NORMAL'), restore: db.prepare(`PRAGMA synchronous = ${Number(level)}`) };
    levels.set(db, s);
  }
  s.normal.run();
  try {
    return write();
  } finally {
    s.restore.run();
  }
}

/**
 * A live run's claim on an exported call (batch_calls.exported_at while it computes the call):
 * `live-run:<pid>:<time>`. `fairground cache import` leaves such a call to the run while that
 * process lives, so a call is never answered twice (issue 24 item 7).
 */
const CLAIM_PREFIX = 'live-run:';

/** Whether an export's state says a live process is computing the call now. */
export function claimedByLiveRun(exportedAt: string): boolean {
  if (!exportedAt.startsWith(CLAIM_PREFIX)) return false;
  const pid = Number(exportedAt.slice(CLAIM_PREFIX.length).split(':')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How often a process that holds call claims says it lives (call_claims.heartbeat). */
export const CLAIM_HEARTBEAT_MS = 5_000;
/** A claim whose heartbeat is older than this is taken over even if its pid runs (a reused pid, another host). */
export const CLAIM_STALE_MS = 120_000;

let bootOfThisMachine: string | undefined;
/** The host and its boot, under which a process id names one process. */
export function machineBoot(): string {
  if (bootOfThisMachine === undefined) {
    let boot: string;
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      boot = `up-since-${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
    }
    bootOfThisMachine = `${hostname()}/${boot}`;
  }
  return bootOfThisMachine;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a call claim's process still computes: its heartbeat is fresh and, on this machine's boot, its pid lives. */
export function claimHolderLives(claim: { pid: number; boot: string; heartbeat: number }, now = Date.now()): boolean {
  if (now - claim.heartbeat > CLAIM_STALE_MS) return false;
  return claim.boot !== machineBoot() || pidAlive(claim.pid);
}

/**
 * `acquire`'s answer: the stored response; `'mine'` (this process now holds the call's claim:
 * compute it, then `put` or `release`); `'elsewhere'` (a live process computes it: wait).
 */
export type CallClaim = { response: unknown } | 'mine' | 'elsewhere';

export type CachedOp = 'generate' | 'score' | 'embed';

export interface CallCacheEntry {
  key: string;
  modelKey: string;
  op: CachedOp;
  request: unknown;
  response: unknown;
  createdAt: string;
  durationMs: number;
  /** The pool endpoint that computed it (remote pools), else null. */
  servedBy?: string | null;
}

interface Row {
  key: string;
  model_key: string;
  op: CachedOp;
  request: string;
  response: string;
  created_at: string;
  duration_ms: number;
  computations: number;
  served_by: string | null;
}

export class CallCacheRepo {
  private readonly stmts = new Map<string, Statement>();
  /** Keys whose call_claims row this process holds. */
  private readonly mine = new Set<string>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** Claims of processes that had died, taken over by this process. */
  takenOver = 0;

  constructor(private readonly db: Database) {}

  /** Prepared once per repo: preparing costs more than running these statements. */
  private st(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  get(key: string): CallCacheEntry | undefined {
    const r = this.st(`SELECT * FROM llm_call_cache WHERE key = ?`).get(key) as Row | undefined;
    if (!r) return undefined;
    return {
      key: r.key,
      modelKey: r.model_key,
      op: r.op,
      request: parseStored(r.key, 'request', r.request),
      response: parseStored(r.key, 'response', r.response),
      createdAt: r.created_at,
      durationMs: r.duration_ms,
      servedBy: r.served_by,
    };
  }

  /**
   * Only the stored response of a call (what a run asks before each call: it has the request, so
   * the stored request text is neither read nor parsed), or undefined.
   */
  lookup(key: string): { response: unknown } | undefined {
    const r = this.st(`SELECT response FROM llm_call_cache WHERE key = ?`).get(key) as { response: string } | undefined;
    return r && { response: parseStored(key, 'response', r.response) };
  }

  /**
   * Store a computed call. A key already stored keeps its first response (same inputs, same output
   * for a deterministic engine; never overwrite what results were built on) and its `computations`
   * count goes up instead. Returns whether the entry was new.
   *
   * Committed without waiting for the disk (`commitWithoutSync`): a killed process loses no stored
   * call; a power loss may lose the last few, which a resumed run computes again, identically.
   */
  put(entry: Omit<CallCacheEntry, 'createdAt'> & { createdAt?: string }): boolean {
    if (!this.mine.has(entry.key)) return commitWithoutSync(this.db, () => this.insert(entry));
    // The answer and the end of this process's claim on it, in one commit.
    return commitWithoutSync(this.db, () =>
      this.db.transaction(() => {
        const inserted = this.insert(entry);
        this.dropClaim(entry.key);
        return inserted;
      })(),
    );
  }

  private insert(entry: Omit<CallCacheEntry, 'createdAt'> & { createdAt?: string }): boolean {
    const inserted = this.st(
      `INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms, served_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO NOTHING`,
    ).run(
        entry.key,
        entry.modelKey,
        entry.op,
        JSON.stringify(entry.request),
        JSON.stringify(entry.response),
        entry.createdAt ?? new Date().toISOString(),
        entry.durationMs,
        entry.servedBy ?? null,
      ).changes === 1;
    if (!inserted) this.st(`UPDATE llm_call_cache SET computations = computations + 1 WHERE key = ?`).run(entry.key);
    return inserted;
  }

  /**
   * Before computing a call: its stored entry if there is one; otherwise, when the call was exported
   * for a batch engine, this process claims it (in one write transaction with the check), so a
   * concurrent `cache import` leaves it to this run instead of storing a second answer. Calls never
   * exported take no write.
   */
  claim(key: string): { response: unknown } | undefined {
    const exported = this.st(`SELECT 1 FROM batch_calls WHERE key = ?`).get(key);
    if (!exported) return this.lookup(key);
    return this.db
      .transaction(() => {
        const stored = this.lookup(key);
        if (stored) return stored;
        this.db.prepare(`UPDATE batch_calls SET exported_at = ? WHERE key = ?`).run(`${CLAIM_PREFIX}${process.pid}:${new Date().toISOString()}`, key);
        return undefined;
      })
      .immediate();
  }

  /**
   * Before computing a call, across processes (issue 35 item 4), in one write transaction: its stored
   * response; or, when a live process has claimed it, `'elsewhere'` (wait for its answer: poll
   * `lookup`, then ask again); or else this process claims it — taking over the claim of a process
   * that died (pid gone on this host and boot, or no heartbeat for CLAIM_STALE_MS) — and gets
   * `'mine'`. An exported call is claimed for the import as `claim` does. The claim ends with `put`
   * (in the same commit as the answer) or `release`.
   */
  acquire(key: string, now = Date.now()): CallClaim {
    const boot = machineBoot();
    const claim = commitWithoutSync(this.db, () =>
      this.db
        .transaction((): CallClaim => {
          const stored = this.lookup(key);
          if (stored) return stored;
          const held = this.st(`SELECT pid, boot, heartbeat FROM call_claims WHERE key = ?`).get(key) as { pid: number; boot: string; heartbeat: number } | undefined;
          const own = held !== undefined && held.pid === process.pid && held.boot === boot;
          if (held && !own) {
            if (claimHolderLives(held, now)) return 'elsewhere';
            this.takenOver++;
          }
          this.st(
            `INSERT INTO call_claims(key, pid, boot, started_at, heartbeat) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT(key) DO UPDATE SET pid = excluded.pid, boot = excluded.boot, started_at = excluded.started_at, heartbeat = excluded.heartbeat`,
          ).run(key, process.pid, boot, new Date(now).toISOString(), now);
          if (this.st(`SELECT 1 FROM batch_calls WHERE key = ?`).get(key)) {
            this.st(`UPDATE batch_calls SET exported_at = ? WHERE key = ?`).run(`${CLAIM_PREFIX}${process.pid}:${new Date(now).toISOString()}`, key);
          }
          return 'mine';
        })
        .immediate(),
    );
    if (claim === 'mine') {
      this.mine.add(key);
      this.beat();
    }
    return claim;
  }

  /** A claimed call this run did not store after all (failed, aborted): an import or another process may compute it. */
  release(key: string): void {
    this.db.prepare(`UPDATE batch_calls SET exported_at = ? WHERE key = ? AND exported_at LIKE ?`).run(`released:${new Date().toISOString()}`, key, `${CLAIM_PREFIX}${process.pid}:%`);
    if (this.mine.has(key)) commitWithoutSync(this.db, () => this.dropClaim(key));
  }

  private dropClaim(key: string): void {
    this.st(`DELETE FROM call_claims WHERE key = ? AND pid = ? AND boot = ?`).run(key, process.pid, machineBoot());
    this.mine.delete(key);
    if (this.mine.size === 0) this.stopBeat();
  }

  /** While this process holds claims, their heartbeat is renewed every CLAIM_HEARTBEAT_MS. */
  private beat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      try {
        if (this.mine.size === 0) return this.stopBeat();
        commitWithoutSync(this.db, () => this.st(`UPDATE call_claims SET heartbeat = ? WHERE pid = ? AND boot = ?`).run(Date.now(), process.pid, machineBoot()));
      } catch {
        this.stopBeat(); // the workspace was closed
      }
    }, CLAIM_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private stopBeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** Delete one stored call (its answer is no longer trusted: engine/callCache.ts `forget`). */
  forget(key: string): void {
    commitWithoutSync(this.db, () => this.st(`DELETE FROM llm_call_cache WHERE key = ?`).run(key));
  }

    /** Calls the engine computed more than once (0 when the queue kept its promise). */
  extraComputations(modelKey?: string): number {
    const row = (
      modelKey === undefined
        ? this.db.prepare(`SELECT coalesce(sum(computations - 1), 0) AS n FROM llm_call_cache`).get()
        : this.db.prepare(`SELECT coalesce(sum(computations - 1), 0) AS n FROM llm_call_cache WHERE model_key = ?`).get(modelKey)
    ) as { n: number };
    return row.n;
  }

  /** Mean engine time per computed call of a model and operation (for cost estimates), or null. */
  meanDurationMs(modelKey: string, op: CachedOp): number | null {
    const row = this.db.prepare(`SELECT avg(duration_ms) AS ms, count(*) AS n FROM (SELECT duration_ms FROM llm_call_cache WHERE model_key = ? AND op = ? AND duration_ms > 0 ORDER BY created_at DESC LIMIT 200)`).get(modelKey, op) as {
      ms: number | null;
      n: number;
    };
    return row.n > 0 ? row.ms : null;
  }

  /** Delete every stored call of one model; returns how many. */
  clearModel(modelKey: string): number {
    return this.db.prepare(`DELETE FROM llm_call_cache WHERE model_key = ?`).run(modelKey).changes;
  }

  count(modelKey?: string): number {
    const row = (
      modelKey === undefined
        ? this.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get()
        : this.db.prepare(`SELECT count(*) AS n FROM llm_call_cache WHERE model_key = ?`).get(modelKey)
    ) as { n: number };
    return row.n;
  }

  /** Stored calls per model and operation, with the engine time they saved when reused. */
  summary(): { modelKey: string; op: CachedOp; calls: number; totalDurationMs: number }[] {
    return (
      this.db
        .prepare(`SELECT model_key, op, count(*) AS calls, sum(duration_ms) AS total FROM llm_call_cache GROUP BY model_key, op ORDER BY model_key, op`)
        .all() as { model_key: string; op: CachedOp; calls: number; total: number }[]
    ).map((r) => ({ modelKey: r.model_key, op: r.op, calls: r.calls, totalDurationMs: r.total }));
  }
}

function parseStored(key: string, column: 'request' | 'response', text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DataError(
      `the call cache's stored ${column} of call ${key} is not valid JSON (${(err as Error).message.split('\n')[0]}): the row is damaged ('fairground workspace check' lists such rows); deleting it (DELETE FROM llm_call_cache WHERE key = '${key}') lets the call be computed again`,
      { field: `llm_call_cache ${key}` },
    );
  }
}
