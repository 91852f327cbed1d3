/**
 * Issue 36 item 1: creating a workspace is atomic. A first start SIGKILLed in the instant after SQLite
 * made `*.fairground` and before it wrote a page used to leave a 0-byte file that every later start
 * refused. Now the workspace is built under a dot-name beside it and linked into place whole.
 *
 * Kills are targeted, not timed: the child (createChild.ts, or the CLI) runs with
 * FAIRGROUND_TEST_PAUSE_AT=PHASE, says so on stderr and stops itself (SIGSTOP) at that phase; the test
 * SIGKILLs it there. Every phase is hit: the build file just opened (0 bytes), after each migration,
 * built and closed, linked into place. After each kill the target is absent or a complete workspace,
 * a plain start succeeds, and the folder holds the workspace alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src-main/store/migrations/index';
import { APPLICATION_ID, creationTempPath, latestSchemaVersion, openWorkspace } from '../../src-main/store/workspace';

const REPO = process.cwd();
const LATEST = latestSchemaVersion();
const OPENED = `opened ${LATEST} ${APPLICATION_ID}\n`;
const PHASES = ['temp-opened', ...migrations.map((m) => `migrated-${m.version}`), 'built', 'linked'];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-atomic-create-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const live = new Set<ChildProcess>();
afterAll(() => {
  for (const c of live) c.kill('SIGKILL');
});

interface Running {
  child: ChildProcess;
  /** Resolves when the child printed that it stopped at its phase (rejects if it exited first). */
  paused: Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function startChild(args: string[], pauseAt?: string): Running {
  const env: NodeJS.ProcessEnv = { ...process.env, FAIRGROUND_DEBUG: '' };
  delete env.FAIRGROUND_TEST_PAUSE_AT;
  if (pauseAt !== undefined) env.FAIRGROUND_TEST_PAUSE_AT = pauseAt;
  const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  let onPaused: () => void = () => {};
  const paused = new Promise<void>((resolve) => (onPaused = resolve));
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (pauseAt !== undefined && stderr.includes(`FAIRGROUND_PAUSED_AT ${pauseAt}\n`)) onPaused();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  const pausedOrExited = Promise.race([paused, exit.then((e) => Promise.reject(new Error(`exited before pausing at ${pauseAt}: ${e.stderr}`)))]);
  pausedOrExited.catch(() => {}); // awaited only by the tests that pause
  return { child, paused: pausedOrExited, exit };
}

const openChild = (ws: string, pauseAt?: string) => startChild(['--import', 'tsx', join(REPO, 'test', 'store', 'createChild.ts'), ws], pauseAt);
const cliChild = (argv: string[], pauseAt?: string) => startChild([join(REPO, 'bin', 'fairground.js'), ...argv], pauseAt);

async function killAt(run: Running): Promise<void> {
  await run.paused;
  run.child.kill('SIGKILL');
  const e = await run.exit;
  expect(e.signal).toBe('SIGKILL');
}

/** The workspace's schema and application id, read-only (throws on a file that is not a complete workspace). */
function header(path: string): { version: number; appId: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return { version: db.pragma('user_version', { simple: true }) as number, appId: db.pragma('application_id', { simple: true }) as number };
  } finally {
    db.close();
  }
}

describe('a workspace is created whole', () => {
  it(`SIGKILL at each of the ${PHASES.length} phases: no file or a complete one; a plain start succeeds and leaves nothing else`, async () => {
    expect(PHASES.length).toBe(LATEST + 3);
    for (const phase of PHASES) {
      const sub = join(dir, phase);
      const ws = join(sub, 'w.fairground');
      await killAt(openChild(ws, phase));
      const left = readdirSync(sub);
      // The build file (and at most its journal) is there; the workspace only once it is linked, and then complete.
      expect(left.filter((n) => n.startsWith('.w.fairground.creating-')).length, `${phase}: ${left.join(', ')}`).toBeGreaterThanOrEqual(1);
      if (phase === 'linked') {
        expect(header(ws), phase).toEqual({ version: LATEST, appId: APPLICATION_ID });
      } else {
        expect(existsSync(ws), `${phase}: ${left.join(', ')}`).toBe(false);
      }
      if (phase === 'temp-opened') expect(statSync(join(sub, left.find((n) => n.startsWith('.w.fairground.creating-'))!)).size).toBe(0);
      // The plain start (in this process: the killed child's pid is gone, so its build is removed).
      const again = openWorkspace(ws);
      expect(again.schemaVersion, phase).toBe(LATEST);
      again.close();
      expect(readdirSync(sub), phase).toEqual(['w.fairground']);
      expect(header(ws)).toEqual({ version: LATEST, appId: APPLICATION_ID });
    }
  }, 240_000);

  it('the CLI killed while `workspace init` creates the workspace: init again creates it, `collection list` opens it', async () => {
    const ws = join(dir, 'cli.fairground');
    await killAt(cliChild(['workspace', 'init', '-w', ws], 'migrated-3'));
    expect(existsSync(ws)).toBe(false);
    const again = await cliChild(['workspace', 'init', '-w', ws]).exit;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`Created workspace ${ws} (schema ${LATEST})\n`);
    const list = await cliChild(['collection', 'list', '-w', ws]).exit;
    expect(list.code, list.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['cli.fairground']);
  });

  it('`workspace init` on an empty file the user made, killed before the swap: the file stays empty and refused; init again makes it', async () => {
    const ws = join(dir, 'e.fairground');
    writeFileSync(ws, '', { mode: 0o600 });
    await killAt(cliChild(['workspace', 'init', '-w', ws], 'built'));
    expect(statSync(ws).size).toBe(0);
    const refused = await cliChild(['collection', 'list', '-w', ws]).exit;
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${ws} is an empty file (0 bytes), not a Fairground workspace`);
    const init = await cliChild(['workspace', 'init', '-w', ws]).exit;
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toBe(`Created workspace ${ws} (schema ${LATEST})\n`);
    expect(header(ws)).toEqual({ version: LATEST, appId: APPLICATION_ID });
    expect(statSync(ws).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((n) => !n.endsWith('-wal') && !n.endsWith('-shm'))).toEqual(['e.fairground']);
  });

  it('two processes create the same workspace: the one that links first wins, the other opens it', async () => {
    for (const phase of ['temp-opened', 'built']) {
      const sub = join(dir, `race-${phase}`);
      const ws = join(sub, 'w.fairground');
      // A stops with its build at `phase`; B creates and opens the workspace meanwhile; then A goes on.
      const a = openChild(ws, phase);
      await a.paused;
      const b = await openChild(ws).exit;
      expect(b.stdout, b.stderr).toBe(OPENED);
      const inode = statSync(ws).ino;
      a.child.kill('SIGCONT');
      const ea = await a.exit;
      expect(ea.code, ea.stderr).toBe(0);
      expect(ea.stdout).toBe(OPENED);
      expect(statSync(ws).ino, `${phase}: B's workspace stands`).toBe(inode);
      expect(readdirSync(sub)).toEqual(['w.fairground']);
    }
  });

  it('four processes started at once on a missing workspace all open the same complete one', async () => {
    const ws = join(dir, 'four.fairground');
    const results = await Promise.all([0, 1, 2, 3].map(() => openChild(ws).exit));
    for (const r of results) expect(r.stdout, r.stderr).toBe(OPENED);
    expect(header(ws)).toEqual({ version: LATEST, appId: APPLICATION_ID });
    // (SQLite may keep -wal/-shm when processes close at the same instant; no build file is left.)
    expect(readdirSync(dir).filter((n) => !n.endsWith('-wal') && !n.endsWith('-shm'))).toEqual(['four.fairground']);
  });

  it('a build of a live process is left alone; one of a dead process (with its journal) is removed', async () => {
    const ws = join(dir, 'w.fairground');
    const mine = creationTempPath(ws);
    writeFileSync(mine, '');
    const gone = openChild(join(dir, 'other', 'x.fairground'));
    const deadPid = gone.child.pid!;
    await gone.exit;
    const dead = creationTempPath(ws, deadPid);
    writeFileSync(dead, 'partial');
    writeFileSync(`${dead}-journal`, 'journal');
    const other = creationTempPath(ws, deadPid, 'another-host');
    writeFileSync(other, '');
    openWorkspace(ws).close();
    expect(readdirSync(dir).sort()).toEqual([mine, other, ws].map((p) => p.slice(dir.length + 1)).concat('other').sort());
  });
});
