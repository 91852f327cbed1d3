/**
 * Issue 26: a 0-byte file opened as a workspace became one. Now it is refused, naming the path and leaving the file
 * (and no -wal/-shm beside it), unless the command creates a workspace (`workspace init`).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { latestSchemaVersion, openWorkspace, WorkspaceError } from '../../src-main/store/workspace';
import { runCliCaptured } from '../support/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-empty-ws-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function empty(name = 'e.fairground'): string {
  const p = join(dir, name);
  writeFileSync(p, '');
  return p;
}

describe('a 0-byte file is not a workspace', () => {
  it('openWorkspace refuses it, naming the path, and leaves it as it was', () => {
    const p = empty();
    let err: unknown;
    try {
      openWorkspace(p);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WorkspaceError);
    expect((err as Error).message).toBe(`${p} is an empty file (0 bytes), not a Fairground workspace; it was not modified (to make a new workspace there, run 'fairground workspace init --workspace ${p}')`);
    expect(statSync(p).size).toBe(0);
    expect(readdirSync(dir)).toEqual(['e.fairground']);
  });

  it('createFromEmpty (workspace init) makes it a workspace; a missing path is still created as before', () => {
    const p = empty();
    const ws = openWorkspace(p, { createFromEmpty: true });
    expect(ws.schemaVersion).toBe(latestSchemaVersion());
    ws.close();
    expect(statSync(p).size).toBeGreaterThan(0);
    openWorkspace(p).close(); // now a workspace: opens
    const fresh = openWorkspace(join(dir, 'new.fairground'));
    expect(fresh.schemaVersion).toBe(latestSchemaVersion());
    fresh.close();
  });

  it('CLI: collection list and workspace info refuse it (path named); workspace init creates it', async () => {
    const p = empty();
    const cli = (...argv: string[]) => runCliCaptured(argv, { cwd: dir });
    for (const argv of [['collection', 'list', '-w', p], ['workspace', 'info', '-w', p]]) {
      const r = await cli(...argv);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`${p} is an empty file (0 bytes), not a Fairground workspace`);
      expect(statSync(p).size).toBe(0);
    }
    expect(existsSync(`${p}-wal`)).toBe(false);
    const init = await cli('workspace', 'init', '-w', p);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toBe(`Created workspace ${p} (schema ${latestSchemaVersion()})\n`);
    expect((await cli('collection', 'list', '-w', p)).code).toBe(0);
  });
});
