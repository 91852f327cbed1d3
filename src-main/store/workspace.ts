/**
 * A workspace is one SQLite file holding everything a researcher makes: collections, models,
 * experiments, results and the LLM call cache. Opening it checks — read-only, touching nothing —
 * that it is a Fairground workspace of a schema this version understands, then applies pending
 * numbered migrations, each in its own transaction.
 */
import Database from 'better-sqlite3';
import { sqliteVecPath } from './sqliteVecPath';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Migration } from './migration';
import { migrations as allMigrations } from './migrations/index';
import { chooseNativeBinding } from './nativeBinding';

/**
 * How long a writer that waits inside SQLite (a plain db.transaction) waits for another process's
 * write transaction before giving up (issue 15 item 5). Imports stage outside the lock and write in
 * short transactions (a 100k-document import into a new collection held the lock at most about
 * 0.2 s at a time here, in ranges of 12,500 documents; an import into an existing collection is one
 * transaction of about 1 s per 100k documents, most of it in the full-text index;
 * test/bench/importLock.bench.ts), so a minute covers a publish of millions of documents on a slow
 * disk. withWriteLock waits without this limit and without blocking.
 */
export const BUSY_TIMEOUT_MS = 60_000;

/** `PRAGMA application_id` of Fairground workspaces: ASCII "FGRD". */
export const APPLICATION_ID = 0x46475244;

export type WorkspaceErrorCode = 'newer-schema' | 'corrupt' | 'not-a-workspace' | 'cannot-open' | 'read-only';

export class WorkspaceError extends Error {
  constructor(
    readonly code: WorkspaceErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceError';
  }
}

export interface Workspace {
  readonly path: string;
  readonly db: Database.Database;
  /** Schema version after opening (the highest applied migration). */
  readonly schemaVersion: number;
  close(): void;
}

export interface OpenOptions {
  /** Apply pending migrations (default true). With false, an outdated workspace is refused. */
  migrate?: boolean;
  /**
   * Make a workspace of an existing 0-byte file (default false: refused, naming the path — a file emptied by
   * mistake, or any empty file given as `--workspace`, must not silently become a new, empty workspace). Only a
   * command that creates a workspace (`workspace init`) sets it.
   */
  createFromEmpty?: boolean;
  /** Override the migration list (tests). */
  migrations?: readonly Migration[];
  /** Path to a native better-sqlite3 build (Electron). Defaults to `chooseNativeBinding()`. */
  nativeBinding?: string;
  /**
   * Run SQLite's `quick_check` before opening an existing file for writing, and refuse a damaged
   * one, leaving it untouched (default true; issue 15 item 2). It reads every page once: 1.4–1.9 s
   * for a 35 MB workspace of 100k documents on this busy 2-core machine (median of 5).
   * `workspace check` opens with false, to report what is damaged.
   */
  checkIntegrity?: boolean;
}

export interface WorkspaceInspection {
  exists: boolean;
  schemaVersion: number;
  latestVersion: number;
  pending: number[];
}

export function latestSchemaVersion(migrations: readonly Migration[] = allMigrations): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

export { defaultWorkspacePath } from './workspacePath';

/** Read a workspace's schema state without writing anything (no WAL files are created for a non-WAL file). */
export function inspectWorkspace(path: string, options: Pick<OpenOptions, 'migrations' | 'nativeBinding'> = {}): WorkspaceInspection {
  const migrations = options.migrations ?? allMigrations;
  const latestVersion = latestSchemaVersion(migrations);
  if (path !== ':memory:' && !existsSync(path)) {
    return { exists: false, schemaVersion: 0, latestVersion, pending: migrations.map((m) => m.version) };
  }
  if (path !== ':memory:' && statSync(path).isFile() && statSync(path).size === 0) throw emptyFileError(resolve(path));
  const version = path === ':memory:' ? 0 : readHeaderState(path, options.nativeBinding).userVersion;
  return { exists: true, schemaVersion: version, latestVersion, pending: migrations.filter((m) => m.version > version).map((m) => m.version) };
}

/** A 0-byte file given as a workspace (refused: only `workspace init` makes one of it). */
function emptyFileError(fullPath: string): WorkspaceError {
  return new WorkspaceError(
    'cannot-open',
    `${fullPath} is an empty file (0 bytes), not a Fairground workspace; it was not modified (to make a new workspace there, run 'fairground workspace init --workspace ${fullPath}')`,
  );
}

export function openWorkspace(path: string, options: OpenOptions = {}): Workspace {
  const migrations = [...(options.migrations ?? allMigrations)].sort((a, b) => a.version - b.version);
  checkMigrationList(migrations);
  const latest = latestSchemaVersion(migrations);
  const nativeBinding = options.nativeBinding ?? chooseNativeBinding();
  const memory = path === ':memory:';
  const fullPath = memory ? path : resolve(path);

  if (!memory) {
    sweepCreationLeftovers(fullPath);
    if (!existsSync(fullPath)) {
      try {
        mkdirSync(dirname(fullPath), { recursive: true });
      } catch (err) {
        throw new WorkspaceError('cannot-open', `cannot create folder ${dirname(fullPath)}: ${(err as Error).message}`);
      }
      assertWritable(fullPath);
      // Built aside and linked into place whole (issue 36 item 1): a kill leaves no file or a complete workspace.
      createWorkspaceFile(fullPath, migrations, nativeBinding, 'link');
    } else if (options.createFromEmpty === true && isEmptyRegularFile(fullPath)) {
      assertWritable(fullPath);
      createWorkspaceFile(fullPath, migrations, nativeBinding, 'replace-empty');
    }
    {
      let st;
      try {
        st = statSync(fullPath);
      } catch (err) {
        throw new WorkspaceError('cannot-open', `cannot open ${fullPath}: ${(err as Error).message}`);
      }
      if (st.isDirectory()) throw new WorkspaceError('cannot-open', `${fullPath} is a folder, not a workspace file`);
      if (st.isFile() && st.size === 0 && options.createFromEmpty !== true) throw emptyFileError(fullPath);
      const state = readHeaderState(fullPath, nativeBinding, options.checkIntegrity !== false);
      if (state.userVersion > latest) {
        throw new WorkspaceError(
          'newer-schema',
          `${fullPath} was written by a newer Fairground (schema ${state.userVersion}; this version knows up to ${latest}); it was not modified`,
        );
      }
      if (state.userVersion < latest && options.migrate === false) {
        throw new WorkspaceError('newer-schema', `${fullPath} needs migration from schema ${state.userVersion} to ${latest}; run 'fairground workspace migrate'`);
      }
      assertWritable(fullPath);
    }
  }

  let db: Database.Database;
  try {
    db = new Database(fullPath, nativeBinding ? { nativeBinding } : {});
  } catch (err) {
    throw new WorkspaceError('cannot-open', `cannot open ${fullPath}: ${(err as Error).message}`);
  }
  try {
    // First: switching a fresh file to WAL takes a lock another process opening it may hold.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!memory) db.pragma('journal_mode = WAL');
    // Results are expensive LLM output: FULL makes a committed transaction survive power loss.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Sanity-check every b-tree page as it is read (issue 15 item 2): damage that appears after the
    // open's quick_check is caught on the pages a write touches, failing the write instead of
    // extending a broken tree.
    db.pragma('cell_size_check = ON');
    // Vector tables (vec0) are virtual tables of the sqlite-vec extension: every connection that
    // may touch them (integrity checks, deletes that cascade) must have it loaded.
    loadVectorExtension(db);
    makeTransactionsImmediate(db);
    applyMigrations(db, migrations);
  } catch (err) {
    db.close();
    if (err instanceof WorkspaceError) throw err;
    throw new WorkspaceError('corrupt', `cannot prepare ${fullPath}: ${(err as Error).message}`);
  }
  const schemaVersion = db.pragma('user_version', { simple: true }) as number;
  let closed = false;
  return {
    path: fullPath,
    db,
    schemaVersion,
    close() {
      if (closed) return;
      closed = true;
      if (!memory) {
        try {
          db.pragma('wal_checkpoint(TRUNCATE)');
        } catch {
          // A checkpoint is an optimisation; closing still makes the data durable.
        }
      }
      db.close();
    },
  };
}

/** Applies every migration newer than the file's `user_version`, each in its own transaction (`onApplied` after each commit). */
export function applyMigrations(db: Database.Database, migrations: readonly Migration[], onApplied?: (version: number) => void): number[] {
  const current = db.pragma('user_version', { simple: true }) as number;
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (appId !== APPLICATION_ID) {
    // Only an empty file (or a fresh one) may become a workspace; never migrate another program's database.
    const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`).get() as { n: number };
    if (tables.n > 0 || current > 0 || appId !== 0) {
      throw new WorkspaceError('not-a-workspace', 'the file is an SQLite database of another program, not a Fairground workspace');
    }
  }
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= current) continue;
    let ran = false;
    const run = db.transaction(() => {
      // Another process may have applied it since we looked (two opens of an old workspace at once).
      if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return;
      ran = true;
      if (m.version === 1) db.pragma(`application_id = ${APPLICATION_ID}`);
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    });
    try {
      run.immediate();
    } catch (err) {
      throw new WorkspaceError('corrupt', `migration ${String(m.version).padStart(4, '0')}_${m.name} failed: ${(err as Error).message}`);
    }
    if (ran) applied.push(m.version);
    if (ran) onApplied?.(m.version);
  }
  return applied;
}

/**
 * The name a workspace is built under before it is linked into place: a dot-file in the same folder
 * (so a link or rename never crosses file systems), naming the host and process that builds it so that
 * a later start can remove what a killed one left.
 */
export function creationTempPath(fullPath: string, pid: number = process.pid, host: string = hostname()): string {
  return join(dirname(fullPath), `.${basename(fullPath)}.creating-${host.replace(/[^A-Za-z0-9.]/g, '_')}-${pid}-${randomBytes(4).toString('hex')}`);
}

/** SQLite's files beside a database file (a killed build may leave a journal). */
const SQLITE_SIDECARS = ['', '-journal', '-wal', '-shm'];

/**
 * Removes the half-built workspaces (and their journals) that processes of this host killed while
 * creating `fullPath` left in its folder; a live process's build is left alone.
 */
function sweepCreationLeftovers(fullPath: string): void {
  const dir = dirname(fullPath);
  const prefix = `.${basename(fullPath)}.creating-`;
  const ours = `${hostname().replace(/[^A-Za-z0-9.]/g, '_')}-`;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(prefix));
  } catch {
    return; // no folder yet (or unreadable: the open says so)
  }
  for (const name of names) {
    const m = /^(.+)-(\d+)-([0-9a-f]{8})$/.exec(name.slice(prefix.length));
    if (!m || `${m[1]}-` !== ours || !processGone(Number(m[2]))) continue;
    const base = join(dir, `${prefix}${m[1]}-${m[2]}-${m[3]}`);
    for (const suffix of SQLITE_SIDECARS) rmSync(`${base}${suffix}`, { force: true });
  }
}

function isEmptyRegularFile(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && st.size === 0;
  } catch {
    return false;
  }
}

/**
 * Test hook of the kill tests (test/store/atomicCreate.test.ts): with FAIRGROUND_TEST_PAUSE_AT=PHASE
 * the process says so on stderr and stops itself (SIGSTOP) at that phase of creating a workspace, for
 * the test to SIGKILL it there, or SIGCONT it.
 */
function pauseAt(phase: string): void {
  if (process.env.FAIRGROUND_TEST_PAUSE_AT !== phase) return;
  writeSync(2, `FAIRGROUND_PAUSED_AT ${phase}\n`);
  process.kill(process.pid, 'SIGSTOP');
}

/**
 * Creates the workspace `fullPath` whole (issue 36 item 1): SQLite builds it under a temporary
 * dot-name in the same folder (header, every migration, closed and synced), and only then is it
 * put in place — as a hard link, which fails if `fullPath` appeared meanwhile (another process
 * created it first: its workspace is kept and this one dropped), or, for `workspace init` on an
 * empty file the user made, renamed over that file. A kill at any instant leaves no workspace
 * file or a complete one, plus at most a dot-file that the next open removes.
 */
function createWorkspaceFile(fullPath: string, migrations: readonly Migration[], nativeBinding: string | undefined, mode: 'link' | 'replace-empty'): void {
  const temp = creationTempPath(fullPath);
  const dropTemp = () => {
    for (const suffix of SQLITE_SIDECARS) rmSync(`${temp}${suffix}`, { force: true });
  };
  let db: Database.Database;
  try {
    db = new Database(temp, nativeBinding ? { nativeBinding } : {});
  } catch (err) {
    dropTemp();
    throw new WorkspaceError('cannot-open', `cannot create ${fullPath}: ${(err as Error).message}`);
  }
  try {
    pauseAt('temp-opened');
    // A rollback journal while it is private (nothing to share yet); the open that follows switches it to WAL.
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    loadVectorExtension(db);
    makeTransactionsImmediate(db);
    applyMigrations(db, migrations, (version) => pauseAt(`migrated-${version}`));
    db.close();
  } catch (err) {
    if (db.open) db.close();
    dropTemp();
    if (err instanceof WorkspaceError) throw err;
    throw new WorkspaceError('corrupt', `cannot create ${fullPath}: ${(err as Error).message}`);
  }
  pauseAt('built');
  try {
    if (mode === 'replace-empty') {
      // Only while it is still the empty file: whatever was written into it meanwhile is kept.
      if (isEmptyRegularFile(fullPath)) {
        chmodSync(temp, statSync(fullPath).mode & 0o7777); // the user's file keeps its permissions
        renameSync(temp, fullPath);
      }
    } else {
      try {
        linkSync(temp, fullPath);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // EEXIST: another process created it first; its workspace stands and this build is dropped.
        if (code !== 'EEXIST') {
          // A file system without hard links: a rename, after a last look (the window is this call).
          if ((code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') && !existsSync(fullPath)) renameSync(temp, fullPath);
          else throw err;
        }
      }
      pauseAt('linked');
    }
    syncFolder(dirname(fullPath));
  } catch (err) {
    throw new WorkspaceError('cannot-open', `cannot create ${fullPath}: ${(err as Error).message}`);
  } finally {
    dropTemp();
  }
}

/** Makes a new name in `dir` durable (where the platform can sync a folder). */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot open a folder; its file system orders the rename itself.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Every `db.transaction(fn)()` of this connection begins IMMEDIATE (issue 15 item 5). A deferred
 * transaction that reads and then writes cannot wait for the lock in WAL mode: when another
 * process committed since its read began, the upgrade fails at once with SQLITE_BUSY_SNAPSHOT
 * ("database is locked"), whatever the busy timeout — two imports, a run beside an import, two
 * first starts. IMMEDIATE takes the write lock first, waiting up to the busy timeout, so writers
 * queue. (`.deferred()` is still there for a transaction that only reads.)
 */
export function makeTransactionsImmediate(db: Database.Database): void {
  const original = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const t = original(fn);
    const run = (...args: unknown[]) => (blockingWaitListeners.get(db)?.size && !db.inTransaction ? runTelling(db, t, args) : t.immediate(...args));
    const immediate = Object.assign(run, {
      default: run,
      deferred: t.deferred,
      immediate: run,
      exclusive: t.exclusive,
    });
    return immediate;
  }) as typeof db.transaction;
}

const blockingWaitListeners = new WeakMap<Database.Database, Set<(message: string) => void>>();

/**
 * Be told when a plain `db.transaction(fn)()` of this connection is about to wait for the write
 * lock inside SQLite's busy timeout (which blocks the process): `listener` gets the waiting line
 * ("waiting for the workspace: another import is publishing (pid 12)") just before the wait, so a
 * job can say why it stands still (services/jobRunner.ts). Returns the unsubscribe function.
 */
export function onBlockingWait(db: Database.Database, listener: (message: string) => void): () => void {
  let set = blockingWaitListeners.get(db);
  if (!set) blockingWaitListeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Tries the write lock without waiting; when it is free, runs the transaction function nested in
 * that transaction (a savepoint) and commits; when it is taken, tells the listeners who holds it and
 * then waits inside the busy timeout as before.
 */
function runTelling(db: Database.Database, t: Database.Transaction<(...args: unknown[]) => unknown>, args: unknown[]): unknown {
  const previous = db.pragma('busy_timeout', { simple: true }) as number;
  let busy = false;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if (!/^SQLITE_BUSY/.test(String((err as { code?: unknown }).code))) throw err;
    busy = true;
  } finally {
    db.pragma(`busy_timeout = ${previous}`);
  }
  if (busy) {
    // With no busy timeout (a caller that must not wait) nothing waits: nothing to tell.
    if (previous === 0) return t.immediate(...args);
    const message = `${WAITING_FOR_WORKSPACE}${readWriterNote(db) ?? 'another process is writing to it'}`;
    for (const listener of blockingWaitListeners.get(db) ?? []) {
      try {
        listener(message);
      } catch {
        // A listener's failure must not change the transaction.
      }
    }
    return t.immediate(...args);
  }
  try {
    const result = t.immediate(...args);
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/** How every message of a writer waiting for the write lock begins. */
export const WAITING_FOR_WORKSPACE = 'waiting for the workspace: ';

/** What a process holding the write lock through withWriteLock says it is doing (its `-writer.PID` file beside the workspace). */
export interface WriterNote {
  pid: number;
  host: string;
  /** E.g. "import is publishing" — read as "another import is publishing". */
  what: string;
  since: string;
}

/**
 * The file in which a process names itself while it holds the write lock (only during
 * withWriteLock's `fn`, up to its commit): one per process, so a holder that commits never
 * removes the note of the next one.
 */
export function writerNotePath(db: Database.Database, pid: number = process.pid): string | null {
  return db.memory || !db.name ? null : `${db.name}-writer.${pid}`;
}

/**
 * Who holds the write lock, as a waiting message's tail: "another import is publishing (pid 12)",
 * or null when no live process left a note. Notes of processes that are gone (killed while
 * holding the lock) are removed.
 */
export function readWriterNote(db: Database.Database): string | null {
  if (db.memory || !db.name) return null;
  const dir = dirname(db.name);
  const prefix = `${basename(db.name)}-writer.`;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(prefix));
  } catch {
    return null;
  }
  // A note being written (NAME.tmp, renamed when complete) is skipped; one left by a killed process is removed.
  for (const name of names.filter((n) => /^\d+\.tmp$/.test(n.slice(prefix.length)))) {
    if (processGone(Number(name.slice(prefix.length, -4)))) rmSync(join(dir, name), { force: true });
  }
  names = names.filter((n) => /^\d+$/.test(n.slice(prefix.length)));
  let latest: WriterNote | undefined;
  for (const name of names) {
    let note: WriterNote;
    try {
      note = JSON.parse(readFileSync(join(dir, name), 'utf8')) as WriterNote;
    } catch {
      continue; // being written or removed just now
    }
    if (typeof note.pid !== 'number' || typeof note.what !== 'string' || typeof note.since !== 'string') continue;
    if (note.host === hostname() && processGone(note.pid)) {
      rmSync(join(dir, name), { force: true });
      continue;
    }
    if (!latest || note.since > latest.since) latest = note;
  }
  if (!latest) return null;
  return `another ${latest.what} (pid ${latest.pid}${latest.host === hostname() ? '' : ` on ${latest.host}`})`;
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export interface WriteLockOptions {
  signal?: AbortSignal | undefined;
  /**
   * Told when the lock is found taken, with a line saying why ("waiting for the workspace: another
   * import is publishing (pid 12)"), and again whenever that line changes.
   */
  onWait?: ((message: string) => void) | undefined;
  /** Give up after this long (default: never — waiting stays cancellable through `signal`). */
  timeoutMs?: number;
  pollMs?: number;
  /** What this writer does while it holds the lock, for the messages of processes that wait for it. */
  what?: string | undefined;
  /** Told how long the lock was held (BEGIN IMMEDIATE to COMMIT), after a commit (benchmarks, logs). */
  onHeld?: ((ms: number) => void) | undefined;
  /** A big write (an import): checkpoint the WAL explicitly after the commit, outside the lock (see the code). */
  checkpointAfter?: boolean | undefined;
}

/**
 * Runs `fn` in one IMMEDIATE transaction, waiting for the write lock without blocking the event
 * loop (issue 15 item 5): while another connection holds it, `onWait` is told who (from the
 * holder's `-writer.PID` note, when it left one) and the attempt repeats every `pollMs`, for as long
 * as it takes — past the busy timeout — unless `timeoutMs` is given; `signal` cancels the wait.
 * `fn` runs synchronously in the transaction (its own db.transaction calls become savepoints) and
 * commits when it returns. With `what`, the holder names itself in the note while `fn` runs.
 */
export async function withWriteLock<T>(db: Database.Database, fn: () => T, opts: WriteLockOptions = {}): Promise<T> {
  const timeout = opts.timeoutMs ?? Number.POSITIVE_INFINITY;
  const poll = opts.pollMs ?? 100;
  const previous = db.pragma('busy_timeout', { simple: true }) as number;
  const started = Date.now();
  let told: string | null = null;
  let unnamed = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    db.pragma('busy_timeout = 0');
    try {
      db.exec('BEGIN IMMEDIATE');
      break;
    } catch (err) {
      if (!/^SQLITE_BUSY/.test(String((err as { code?: unknown }).code))) throw err;
      if (Date.now() - started >= timeout) throw new WorkspaceError('cannot-open', `another process kept the workspace locked for ${Math.round(timeout / 1000)} s (a long import or run); try again when it is done`);
      // A holder writes its note just after taking the lock: without a note, say "another process"
      // only when the next try finds none either.
      const holder = readWriterNote(db) ?? (++unnamed >= 2 ? 'another process is writing to it' : null);
      const message: string | null = holder === null ? told : `${WAITING_FOR_WORKSPACE}${holder}`;
      if (message !== null && message !== told) {
        told = message;
        opts.onWait?.(message);
      }
    } finally {
      db.pragma(`busy_timeout = ${previous}`);
    }
    await new Promise((r) => setTimeout(r, poll));
  }
  const heldSince = performance.now();
  const note = opts.what !== undefined ? writerNotePath(db) : null;
  try {
    if (note) {
      try {
        // Written beside and renamed: a waiter never reads half a note.
        writeFileSync(`${note}.tmp`, JSON.stringify({ pid: process.pid, host: hostname(), what: opts.what ?? '', since: new Date().toISOString() } satisfies WriterNote));
        renameSync(`${note}.tmp`, note);
      } catch {
        // Only the waiting message of other processes is less precise.
      }
    }
    const result = fn();
    // SQLite checkpoints a long WAL right after the commit that grew it, in the committing call but
    // after the lock is let go (other writers go on meanwhile): with checkpointAfter that happens
    // here, explicitly, so the lock-hold time reported is the lock's alone.
    const autoCheckpoint = opts.checkpointAfter ? (db.pragma('wal_autocheckpoint', { simple: true }) as number) : 0;
    if (autoCheckpoint > 0) db.pragma('wal_autocheckpoint = 0');
    try {
      db.exec('COMMIT');
    } finally {
      if (autoCheckpoint > 0) db.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
    }
    const held = performance.now() - heldSince;
    // Removed right after the commit (not before it: a waiter would find no note while the commit
    // syncs); per process, so never the next holder's note.
    if (note) rmSync(note, { force: true });
    if (autoCheckpoint > 0) {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // The next commit checkpoints instead.
      }
    }
    opts.onHeld?.(held);
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  } finally {
    if (note) rmSync(note, { force: true });
  }
}

/** Load sqlite-vec into a connection (idempotent per connection); from app.asar.unpacked when packaged. */
export function loadVectorExtension(db: Database.Database): void {
  try {
    db.prepare('SELECT vec_version()').get();
    return;
  } catch {
    // not loaded yet
  }
  db.loadExtension(sqliteVecPath());
}

interface HeaderState {
  userVersion: number;
  applicationId: number;
}

function readHeaderState(path: string, nativeBinding: string | undefined, checkIntegrity = false): HeaderState {
  let ro: Database.Database | undefined;
  try {
    ro = new Database(path, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    // Reading the schema forces SQLite to parse the header and the first page.
    const tables = ro.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`).get() as { n: number };
    const userVersion = ro.pragma('user_version', { simple: true }) as number;
    const applicationId = ro.pragma('application_id', { simple: true }) as number;
    if (applicationId !== APPLICATION_ID && (applicationId !== 0 || tables.n > 0)) {
      throw new WorkspaceError('not-a-workspace', `${path} is an SQLite database of another program, not a Fairground workspace; it was not modified`);
    }
    if (checkIntegrity) {
      // Never write into a damaged file (issue 15 item 2): SQLite would add rows to a broken b-tree.
      const rows = ro.pragma('quick_check(5)') as { quick_check: string }[];
      const problems = rows.map((r) => r.quick_check).filter((v) => v !== 'ok');
      if (problems.length > 0) throw damaged(path, problems[0]!);
    }
    return { userVersion, applicationId };
  } catch (err) {
    if (err instanceof WorkspaceError) throw err;
    // A WAL workspace cannot even be read without a writable folder: say read-only, not corrupt.
    if (/^SQLITE_(READONLY|CANTOPEN)/.test(String((err as { code?: unknown }).code))) assertWritable(path);
    // SQLite quotes damaged schema SQL, line breaks included: keep the message on one line.
    const message = (err as Error).message.replace(/\s+/g, ' ');
    if (checkIntegrity && /malformed|corrupt/i.test(message)) throw damaged(path, message);
    throw new WorkspaceError('corrupt', `${path} is not a readable Fairground workspace (${message}); it was not modified`);
  } finally {
    ro?.close();
  }
}

function damaged(path: string, problem: string): WorkspaceError {
  return new WorkspaceError(
    'corrupt',
    `${path} is damaged (${problem.replace(/\s+/g, ' ')}); it was not modified. 'fairground workspace check' lists the damage; restore a backup or copy the file elsewhere before repairing it`,
  );
}

function assertWritable(path: string): void {
  const dir = dirname(path);
  try {
    accessSync(dir, constants.W_OK);
    if (existsSync(path)) accessSync(path, constants.W_OK);
  } catch {
    throw new WorkspaceError('read-only', `the workspace ${path} is read-only (no write permission on the file or its folder)`);
  }
}

function checkMigrationList(migrations: readonly Migration[]): void {
  const seen = new Set<number>();
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version < 1) throw new Error(`migration ${m.name}: bad version ${m.version}`);
    if (seen.has(m.version)) throw new Error(`two migrations with version ${m.version}`);
    seen.add(m.version);
  }
}
