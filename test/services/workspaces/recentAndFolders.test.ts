/**
 * Issue 26 item 3: Settings → Recent reopens any workspace the user opened before, and the user's
 * allowed folders follow the user (the app's config folder), not the workspace file. Browser-mode
 * policy ('folders'), real SQLite workspaces in two unrelated folders.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../../src-main/handlers/index';
import { createAppServices } from '../../../src-main/services/appServices';
import { RecentWorkspaces } from '../../../src-main/services/workspaces/recentWorkspaces';
import { userFoldersFile, userFoldersStore } from '../../../src-main/services/workspaces/userFolders';
import { WorkspaceSession } from '../../../src-main/services/workspaces/workspaceSession';
import { allowFolderByCode } from '../../support/folderGesture';

let dir: string;
let session: WorkspaceSession;
const config = () => join(dir, 'config');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-recent-'));
  for (const d of ['projA', 'projB', 'data', 'config']) mkdirSync(join(dir, d));
  writeFileSync(join(dir, 'data', 'corpus.jsonl'), '{"id":"d1","text":"x"}\n');
  session = await WorkspaceSession.start(join(dir, 'projA', 'a.fairground'), {
    open: (path) => createAppServices(path, { transport: 'http', userFoldersFile: userFoldersFile(config()) }),
    routerFor: (s, switcher) => createApiRouter(s, undefined, switcher),
    recent: new RecentWorkspaces(config()),
  });
});
afterAll(async () => {
  await session.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (method: string, input: unknown = {}) => session.router.call(method, input);

describe('Recent and allowed folders across workspaces', () => {
  it('a folder allowed in one workspace is allowed in the next; Recent reopens the first from the second', async () => {
    // In a: allow projB and data (the user's gesture in Settings: Add folder, the code from the terminal).
    expect(await allowFolderByCode(call, join(dir, 'projB'))).toMatchObject({ ok: true });
    expect(await allowFolderByCode(call, join(dir, 'data'))).toMatchObject({ ok: true });
    expect(JSON.parse(readFileSync(join(config(), 'allowed-folders.json'), 'utf8'))).toEqual([join(dir, 'projB'), join(dir, 'data')]);
    // The workspace file holds no list.
    expect(session.services.workspace.db.prepare(`SELECT value FROM settings WHERE key = 'allowedFolders'`).get()).toBeUndefined();

    expect(await call('workspaces.create', { path: join(dir, 'projB', 'b.fairground') })).toMatchObject({ ok: true, data: { name: 'b' } });
    // In b: the user's folders are still allowed (b's own folder first).
    const folders = (await call('files.allowedFolders')) as { ok: true; data: { folders: string[]; userFolders: string[] } };
    expect(folders.data.userFolders).toEqual([join(dir, 'projB'), join(dir, 'data')]);
    expect(folders.data.folders[0]).toBe(join(dir, 'projB'));
    expect(await call('files.browse', { path: join(dir, 'data') })).toMatchObject({ ok: true });

    // Recent → a: projA is not an allowed folder, but a is a workspace the user opened before.
    const recent = (await call('workspaces.recent')) as { ok: true; data: { path: string }[] };
    expect(recent.data.map((r) => r.path)).toEqual([join(dir, 'projB', 'b.fairground'), join(dir, 'projA', 'a.fairground')]);
    expect(await call('workspaces.open', { path: join(dir, 'projA', 'a.fairground') })).toMatchObject({ ok: true, data: { name: 'a' } });
    expect(await call('workspaces.open', { path: join(dir, 'projB', 'b.fairground') })).toMatchObject({ ok: true, data: { name: 'b' } });
  });

  it('a file the user never opened outside the allowed folders is still refused, and a forgotten workspace too', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'fg-recent-out-'));
    try {
      writeFileSync(join(elsewhere, 'x.fairground'), '');
      expect(await call('workspaces.open', { path: join(elsewhere, 'x.fairground') })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      await call('workspaces.forget', { path: join(dir, 'projA', 'a.fairground') });
      expect(await call('workspaces.open', { path: join(dir, 'projA', 'a.fairground') })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await call('workspaces.current')).toMatchObject({ ok: true, data: { name: 'b' } });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('userFoldersStore', () => {
  it('adopts the workspace’s old list once, then ignores workspace lists; a damaged file is set aside', () => {
    const d = mkdtempSync(join(tmpdir(), 'fg-userfolders-'));
    try {
      const file = join(d, 'allowed-folders.json');
      const legacy = (list: string[]) => ({ load: () => list, save: () => {} });
      expect(userFoldersStore(file, legacy(['/old/one'])).load()).toEqual(['/old/one']);
      expect(existsSync(file)).toBe(true);
      expect(userFoldersStore(file, legacy(['/other/workspace/list'])).load()).toEqual(['/old/one']);
      writeFileSync(file, '{not json');
      expect(userFoldersStore(file).load()).toEqual([]);
      expect(existsSync(`${file}.damaged`)).toBe(true);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the one-time adoption of a workspace file’s old folder list', () => {
  it('adopts it only for a workspace this user opened before (in Recent), never for a received file on a fresh install', async () => {
    const d = mkdtempSync(join(tmpdir(), 'fg-adopt-'));
    try {
      for (const f of ['ws', 'theirs', 'cfgFresh', 'cfgKnown']) mkdirSync(join(d, f));
      const wsPath = join(d, 'ws', 'received.fairground');
      // A workspace written by an older version (or by a colleague): its own settings list a folder.
      const author = createAppServices(wsPath, { transport: 'http' });
      author.paths.setAllowedFolders([join(d, 'theirs')]);
      expect(author.paths.allowedFolders().userFolders).toEqual([join(d, 'theirs')]);
      await author.close();

      // Fresh install (no allowed-folders.json, an empty Recent): nothing is adopted, nothing written.
      const fresh = createAppServices(wsPath, { transport: 'http', userFoldersFile: userFoldersFile(join(d, 'cfgFresh')) });
      expect(fresh.paths.allowedFolders().userFolders).toEqual([]);
      expect(existsSync(join(d, 'cfgFresh', 'allowed-folders.json'))).toBe(false);
      await fresh.close();

      // The user who opened this workspace before (it is in their Recent list) keeps its folders once.
      new RecentWorkspaces(join(d, 'cfgKnown')).touch(wsPath);
      const known = createAppServices(wsPath, { transport: 'http', userFoldersFile: userFoldersFile(join(d, 'cfgKnown')) });
      expect(known.paths.allowedFolders().userFolders).toEqual([join(d, 'theirs')]);
      expect(JSON.parse(readFileSync(join(d, 'cfgKnown', 'allowed-folders.json'), 'utf8'))).toEqual([join(d, 'theirs')]);
      await known.close();
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
