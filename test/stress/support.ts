/**
 * Helpers of the crash-safety tests: generated corpora, CLI child processes that can be killed at
 * a chosen moment, and a look at a workspace after the fact.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createRng } from '../../src-main/core/random/rng';
import { computeContentHash } from '../../src-main/store/collectionHash';
import { loadVectorExtension } from '../../src-main/store/workspace';

export const REPO = process.cwd();
export const BIN = join(REPO, 'bin', 'fairground.js');

/**
 * A vocabulary of 4,000 pronounceable words: large enough that a three-word query matches a few
 * hundred documents of 50k, as real queries do (20 words would make every query match everything).
 */
const SYLLABLES = ['ta', 'ri', 'mo', 'ken', 'sol', 'var', 'du', 'pe', 'lin', 'gor', 'fa', 'ni', 'bel', 'tro', 'cu', 'zen'];
const WORDS = Array.from({ length: 4000 }, (_, i) => SYLLABLES[i % 16]! + SYLLABLES[Math.floor(i / 16) % 16]! + SYLLABLES[Math.floor(i / 256) % 16]!);

/** `n` JSON-lines documents d0..d(n-1) with seeded word salad, about 150 bytes each. */
export function writeCorpus(path: string, n: number, seed = 1): void {
  const rng = createRng(seed);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 18 }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
    lines.push(JSON.stringify({ id: `d${i}`, title: `Doc ${i % 101}`, text: `${words} ${i}` }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** `n` queries q0..q(n-1) of three words each. */
export function writeQueries(path: string, n: number, seed = 2): void {
  const rng = createRng(seed);
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ id: `q${i}`, text: Array.from({ length: 3 }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ') }));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** When the first stdout bytes came (the CLI prints its report after the commit). */
  firstStdoutMs: number | null;
}

export interface Child {
  process: ChildProcess;
  exit: Promise<Exit>;
}

const live = new Set<ChildProcess>();

/** SIGKILLs every child still running (afterAll: a timed-out test must not leave them behind). */
export function killAll(): void {
  for (const c of live) c.kill('SIGKILL');
  live.clear();
}

export function start(command: string, args: string[], options: SpawnOptions = {}): Child {
  const t0 = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  live.add(child);
  child.on('exit', () => live.delete(child));
  let stdout = '';
  let stderr = '';
  let firstStdoutMs: number | null = null;
  child.stdout?.on('data', (c: Buffer) => {
    firstStdoutMs ??= performance.now() - t0;
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - t0, firstStdoutMs }));
  });
  return { process: child, exit };
}

/** `node bin/fairground.js ...args` (tsx over the sources, as a user's checkout runs it). */
export function startCli(args: string[], options: SpawnOptions = {}): Child {
  return start(process.execPath, [BIN, ...args], { cwd: REPO, ...options, env: { ...process.env, FAIRGROUND_DEBUG: '', ...options.env } });
}

/** Runs the child and SIGKILLs it after `ms` (if it is still running). */
export async function killAfter(child: Child, ms: number): Promise<Exit & { killed: boolean }> {
  let killed = false;
  const timer = setTimeout(() => {
    killed = child.process.kill('SIGKILL');
  }, ms);
  const exit = await child.exit;
  clearTimeout(timer);
  return { ...exit, killed: killed && exit.signal === 'SIGKILL' };
}

/**
 * SIGKILLs the child `delayMs` after its file `watch` first grows past `bytes` (or lets it finish;
 * an infinite delay only records when). A workspace's WAL grows only while a transaction writes,
 * so watching it finds the commit of an import (its staging tables are TEMP tables, outside the WAL).
 */
export async function killWhenGrown(child: Child, watch: string, bytes: number, delayMs: number): Promise<Exit & { killed: boolean; grownAt: number | null }> {
  const t0 = performance.now();
  let grownAt: number | null = null;
  let killed = false;
  const poll = setInterval(() => {
    let size = 0;
    try {
      size = statSync(watch).size;
    } catch {
      return;
    }
    if (size > bytes && grownAt === null) {
      grownAt = performance.now() - t0;
      if (Number.isFinite(delayMs)) setTimeout(() => (killed = child.process.kill('SIGKILL')), delayMs);
    }
  }, 5);
  const exit = await child.exit;
  clearInterval(poll);
  return { ...exit, killed: killed && exit.signal === 'SIGKILL', grownAt };
}

export interface CollectionState {
  documents: number;
  queries: number;
  judgments: number;
  storedHash: string;
  hash: string;
}

export interface WorkspaceState {
  integrity: string;
  /** FTS5's own consistency check of the documents index ('ok' or the error). */
  fts: string;
  /** user_version: below the latest when a process died during its migrations. */
  schemaVersion: number;
  collections: Record<string, CollectionState>;
  runs: { name: string; results: number; digest: string }[];
  jobs: { kind: string; status: string }[];
}

/** Opens the file read-write (so SQLite recovers the WAL of a killed writer) and reads its state. */
export function inspectWorkspace(path: string): WorkspaceState {
  // fileMustExist: opening a missing path would create a 0-byte file, which the next start then (rightly)
  // refuses as "an empty file, not a Fairground workspace" — seen in 3 of 10 demoKill runs under load, where
  // the kill landed before the child had created its workspace.
  const db = new Database(path, { fileMustExist: true });
  try {
    loadVectorExtension(db);
    db.pragma('busy_timeout = 5000');
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    const has = (t: string) => !!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(t);
    // A process killed during its migrations leaves an older schema (each migration is one
    // transaction): the index may not exist yet, which is not damage.
    let fts = 'ok';
    try {
      if (has('documents_fts')) db.prepare(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('integrity-check', 1)`).run();
    } catch (err) {
      fts = (err as Error).message;
    }
    const schemaVersion = db.pragma('user_version', { simple: true }) as number;
    const collections: Record<string, CollectionState> = {};
    if (has('collections')) {
      for (const c of db.prepare(`SELECT id, name, content_hash FROM collections`).all() as { id: number; name: string; content_hash: string }[]) {
        const n = (t: string) => (db.prepare(`SELECT count(*) AS n FROM ${t} WHERE collection_id = ?`).get(c.id) as { n: number }).n;
        collections[c.name] = { documents: n('documents'), queries: n('queries'), judgments: n('judgments'), storedHash: c.content_hash, hash: computeContentHash(db, c.id) };
      }
    }
    const runs: WorkspaceState['runs'] = [];
    if (has('retrieval_runs')) {
      for (const r of db.prepare(`SELECT id, name FROM retrieval_runs ORDER BY id`).all() as { id: number; name: string }[]) {
        const rows = db.prepare(`SELECT * FROM retrieval_results WHERE run_id = ? ORDER BY 2, 3, 4`).raw(true).all(r.id) as unknown[][];
        const digest = rows.map((row) => JSON.stringify(row.slice(1))).join('\n');
        runs.push({ name: r.name, results: rows.length, digest: String(digest.length) + ':' + hashText(digest) });
      }
    }
    const jobs = has('jobs') ? (db.prepare(`SELECT kind, status FROM jobs ORDER BY created_at`).all() as { kind: string; status: string }[]) : [];
    return { integrity, fts, schemaVersion, collections, runs, jobs };
  } finally {
    db.close();
  }
}

function hashText(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16);
}
