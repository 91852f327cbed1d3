/**
 * Switching workspaces without restarting (issue 17 item 5): New / Open / Recent through the API
 * router the transports use, on real SQLite workspaces.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../../src-main/handlers/index';
import { createAppServices } from '../../../src-main/services/appServices';
import { RecentWorkspaces, RECENT_LIMIT } from '../../../src-main/services/workspaces/recentWorkspaces';
import { WorkspaceSession } from '../../../src-main/services/workspaces/workspaceSession';
import type { ApiEvent } from '../../../src-main/api/contract/index';

let dir: string;
let session: WorkspaceSession;
const opened: { path: string; created: boolean }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-session-'));
  session = await WorkspaceSession.start(join(dir, 'a.fairground'), {
    open: (path) => createAppServices(path, { transport: 'http' }),
    routerFor: (s, switcher) => createApiRouter(s, undefined, switcher),
    onOpened: async (s, created) => void opened.push({ path: s.workspace.path, created }),
    recent: new RecentWorkspaces(join(dir, 'config')),
  });
});
afterAll(async () => {
  await session.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (method: string, input: unknown = {}) => session.router.call(method, input);

describe('workspace session', () => {
  it('creates a new workspace and switches to it; opens the first one again with its data; keeps the recent list', async () => {
    expect(await call('workspaces.current')).toEqual({ ok: true, data: { path: join(dir, 'a.fairground'), name: 'a' } });
    expect((await call('collections.create', { name: 'only in a' })).ok).toBe(true);

    const events: ApiEvent[] = [];
    const off = session.events.subscribe((e) => events.push(e));
    const created = await call('workspaces.create', { path: join(dir, 'b.fairground') });
    expect(created).toEqual({ ok: true, data: { path: join(dir, 'b.fairground'), name: 'b' } });
    expect(existsSync(join(dir, 'b.fairground'))).toBe(true);
    expect(await call('collections.list')).toEqual({ ok: true, data: [] });
    // Events now come from b's services.
    const job = session.services.jobs.start('test.quick', 'quick job in b', {}, async () => 1);
    await session.services.jobs.wait(job.id);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.event === 'job.updated' && (e.payload as { title: string }).title === 'quick job in b')).toBe(true);
    off();

    const back = await call('workspaces.open', { path: join(dir, 'a.fairground') });
    expect(back).toMatchObject({ ok: true, data: { name: 'a' } });
    const list = (await call('collections.list')) as { ok: true; data: { name: string }[] };
    expect(list.data.map((c) => c.name)).toEqual(['only in a']);
    expect(opened).toEqual([
      { path: join(dir, 'a.fairground'), created: false },
      { path: join(dir, 'b.fairground'), created: true },
      { path: join(dir, 'a.fairground'), created: false },
    ]);
    const recent = (await call('workspaces.recent')) as { ok: true; data: { name: string; exists: boolean }[] };
    expect(recent.data.map((r) => r.name)).toEqual(['a', 'b']);
    expect(recent.data.every((r) => r.exists)).toBe(true);
    expect(((await call('workspaces.forget', { path: join(dir, 'b.fairground') })) as { data: unknown[] }).data).toHaveLength(1);
  });

  it('refuses what it must, naming the field, and leaves the open workspace as it was', async () => {
    writeFileSync(join(dir, 'notes.fairground'), 'not a database, just text\n'.repeat(10));
    const notDb = await call('workspaces.open', { path: join(dir, 'notes.fairground') });
    expect(notDb.ok).toBe(false);
    expect(await call('workspaces.current')).toMatchObject({ ok: true, data: { name: 'a' } });
    expect(await call('workspaces.create', { path: join(dir, 'c.sqlite') })).toMatchObject({ ok: false, error: { code: 'validation', field: 'path' } });
    expect(await call('workspaces.create', { path: join(dir, 'b.fairground') })).toMatchObject({ ok: false, error: { message: expect.stringContaining('already exists') } });
    expect(await call('workspaces.create', { path: 'relative.fairground' })).toMatchObject({ ok: false, error: { field: 'path' } });
    // Outside the allowed folders (browser mode: the workspace's folder): forbidden.
    const elsewhere = mkdtempSync(join(tmpdir(), 'fg-elsewhere-'));
    try {
      expect(await call('workspaces.create', { path: join(elsewhere, 'x.fairground') })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(existsSync(join(elsewhere, 'x.fairground'))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    expect(await call('workspaces.current')).toMatchObject({ ok: true, data: { name: 'a' } });
  });

  it('refuses to switch while a job runs, and says which', async () => {
    let release!: () => void;
    const job = session.services.jobs.start('test.wait', 'waiting job', {}, () => new Promise<void>((r) => (release = r)));
    const refused = await call('workspaces.create', { path: join(dir, 'd.fairground') });
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining("'waiting job'") } });
    release();
    await session.services.jobs.wait(job.id);
    expect((await call('workspaces.create', { path: join(dir, 'd.fairground') })).ok).toBe(true);
  });

  it('a router made for one workspace answers current but not switching', async () => {
    const s = createAppServices(join(dir, 'solo.fairground'), { transport: 'http' });
    try {
      const router = createApiRouter(s);
      expect(await router.call('workspaces.current', {})).toEqual({ ok: true, data: { path: join(dir, 'solo.fairground'), name: 'solo' } });
      expect(await router.call('workspaces.open', { path: join(dir, 'a.fairground') })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    } finally {
      await s.close();
    }
  });
});

describe('recent workspaces file', () => {
  it('keeps the newest ten, newest first; a damaged file is set aside and the list starts empty', () => {
    const folder = join(dir, 'recent-test');
    mkdirSync(folder);
    const recent = new RecentWorkspaces(folder);
    for (let i = 0; i < 12; i++) recent.touch(join(dir, `w${i}.fairground`), new Date(Date.UTC(2026, 0, 1, 0, i)));
    const list = recent.list();
    expect(list).toHaveLength(RECENT_LIMIT);
    expect(list[0]).toEqual({ path: join(dir, 'w11.fairground'), name: 'w11', openedAt: '2026-01-01T00:11:00.000Z', exists: false });
    expect(list.at(-1)!.name).toBe('w2');
    writeFileSync(recent.file, '{ broken');
    expect(recent.list()).toEqual([]);
    expect(readFileSync(`${recent.file}.damaged`, 'utf8')).toBe('{ broken');
  });
});
