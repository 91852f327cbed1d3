/**
 * The service host (issue 17 item 6): services and SQLite in a worker thread, the HTTP server in
 * this one. Against real workspaces: the API and its events work through the host; the server
 * answers while the host commits a long import; errors are API errors; path grants hold; a crashed
 * host is reported and never leaves a call waiting; close cancels a running import resumably.
 * No timings are asserted (the machine is shared): only the order of events.
 */
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src-main/api/contract/index';
import { startServiceHost } from '../../src-main/host/hostClient';
import { startHostedBrowserMode, type HostedBrowserMode } from '../../src-main/server/browserMode';
import { writeCorpus } from '../stress/support';
import { captureStderr, printedCode } from '../support/folderGesture';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-host-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Answer = { ok: boolean; data?: any; error?: { code: string; message: string; field?: string } }; // eslint-disable-line @typescript-eslint/no-explicit-any

function apiOf(app: HostedBrowserMode) {
  return async (method: string, input: unknown = {}): Promise<Answer> => {
    const res = await fetch(`${app.server.url}api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
      body: JSON.stringify(input),
    });
    return (await res.json()) as Answer;
  };
}

async function waitJob(api: ReturnType<typeof apiOf>, id: string): Promise<{ status: string; error: string | null }> {
  for (;;) {
    const j = await api('jobs.get', { id });
    if (!['queued', 'running'].includes(j.data.status)) return j.data;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('browser mode with the services in a worker thread', () => {
  it('serves the API and its events; answers while the host commits a long import', async () => {
    const ws = join(dir, 'a', 'w.fairground');
    mkdirSync(join(dir, 'a'));
    const corpus = join(dir, 'a', 'corpus.jsonl');
    writeCorpus(corpus, 40_000, 5);
    const app = await startHostedBrowserMode({ workspacePath: ws, staticDir: join(dir, 'no-ui') });
    const api = apiOf(app);
    try {
      expect(app.host.workspacePath).toBe(ws);
      expect(await api('app.info')).toMatchObject({ ok: true, data: { version: expect.any(String) } });
      // Errors are the router's API errors, as in-process.
      expect(await api('collections.import', { kind: 'corpus' })).toMatchObject({ ok: false, error: { code: 'validation' } });
      expect(await api('no.such.method')).toMatchObject({ ok: false, error: { code: 'not-found' } });
      expect(await api('jobs.get', { id: 'nope' })).toMatchObject({ ok: false, error: { code: 'not-found' } });

      const events: ApiEvent[] = [];
      const unsubscribe = app.host.events.subscribe((e) => events.push(e));
      const started = await api('collections.import', { collectionName: 'big', kind: 'corpus', files: [corpus] });
      expect(started.ok).toBe(true);
      const id = started.data.id as string;
      // While the import runs in the host, this thread answers: calls complete with the job still running.
      let answeredWhileRunning = 0;
      for (let i = 0; i < 200; i++) {
        const info = await api('app.info');
        expect(info.ok).toBe(true);
        const job = await api('jobs.get', { id });
        if (job.data.status !== 'running' && job.data.status !== 'queued') break;
        answeredWhileRunning++;
        if (answeredWhileRunning >= 3) break;
      }
      expect(answeredWhileRunning).toBeGreaterThanOrEqual(1);
      const done = await waitJob(api, id);
      expect(done).toMatchObject({ status: 'succeeded', error: null });
      unsubscribe();
      // Events crossed the thread: the job's updates ending in its success.
      const updates = events.filter((e) => e.event === 'job.updated' && (e.payload as { id: string }).id === id);
      expect(updates.length).toBeGreaterThan(1);
      expect((updates.at(-1)!.payload as { status: string }).status).toBe('succeeded');
      const list = await api('collections.list');
      expect(list.data.map((c: { name: string; documentCount?: number; documents?: number }) => c.name)).toEqual(['big']);
      // Events also reach a WebSocket client of the server.
      const socket = new WebSocket(`${app.server.url.replace('http', 'ws')}api/events?token=${app.server.token}`, { headers: { origin: app.server.url.slice(0, -1) } });
      await new Promise((r, j) => (socket.once('open', r), socket.once('error', j)));
      const received = new Promise<string>((r) => socket.once('message', (m: Buffer) => r(m.toString())));
      expect((await api('workspace.check', { full: false })).ok).toBe(true);
      expect(JSON.parse(await received)).toMatchObject({ event: 'job.updated' });
      socket.close();
    } finally {
      await app.close();
    }
    expect(app.host.stopped).toBe('closed');
  }, 240_000);

  it('switches workspaces inside the host without restarting it: New, then Open the first again', async () => {
    mkdirSync(join(dir, 'switch'));
    const first = join(dir, 'switch', 'one.fairground');
    const app = await startHostedBrowserMode({ workspacePath: first, staticDir: join(dir, 'no-ui') });
    const api = apiOf(app);
    try {
      expect((await api('collections.create', { name: 'in one' })).ok).toBe(true);
      expect(await api('workspaces.create', { path: join(dir, 'switch', 'two.fairground') })).toEqual({ ok: true, data: { path: join(dir, 'switch', 'two.fairground'), name: 'two' } });
      expect(await api('collections.list')).toEqual({ ok: true, data: [] });
      expect(await api('workspaces.open', { path: first })).toMatchObject({ ok: true, data: { name: 'one' } });
      expect((await api('collections.list')).data.map((c: { name: string }) => c.name)).toEqual(['in one']);
      expect((await api('workspaces.recent')).data.map((r: { name: string }) => r.name).slice(0, 2)).toEqual(['one', 'two']);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('path grants (Electron transport) hold in the host: only granted files are readable', async () => {
    const ws = join(dir, 'g', 'w.fairground');
    mkdirSync(join(dir, 'g'));
    const data = join(dir, 'g-data');
    mkdirSync(data);
    const granted = join(data, 'granted.jsonl');
    const other = join(data, 'other.jsonl');
    for (const f of [granted, other]) writeFileSync(f, '{"id": "d1", "text": "tidal power"}\n');
    const host = await startServiceHost({ workspacePath: ws, transport: 'electron' });
    try {
      const preview = (path: string) => host.router.call('collections.previewFile', { path, kind: 'corpus' });
      expect(await preview(granted)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await host.grant(granted)).toBe(realpathSync(granted));
      expect(await preview(granted)).toMatchObject({ ok: true });
      expect(await preview(other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      // A grant the host refuses rejects with the host's reason.
      await expect(host.grant('/dev/zero')).rejects.toThrow(/\/dev\/zero is a system file/);
      await expect(host.grant(join(data, 'missing.jsonl'))).rejects.toThrow();
      expect(await preview(other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    } finally {
      await host.close();
    }
  }, 120_000);

  it('browser mode: the code for Settings → Add folder reaches the server’s terminal from the host thread, and only it adds the folder', async () => {
    mkdirSync(join(dir, 'bm'));
    const data = join(dir, 'bm-data');
    mkdirSync(data);
    writeFileSync(join(data, 'c.jsonl'), '{"id": "d1", "text": "tidal power"}\n');
    const app = await startHostedBrowserMode({ workspacePath: join(dir, 'bm', 'w.fairground'), staticDir: join(dir, 'no-ui'), logFolder: join(dir, 'bm-logs') });
    const api = apiOf(app);
    try {
      expect(await api('files.setAllowedFolders', { folders: [data] })).toMatchObject({ ok: false, error: { code: 'forbidden', field: 'folders[0]' } });
      const cap = captureStderr();
      let code: string;
      try {
        expect(await api('files.requestFolder', { path: data })).toMatchObject({ ok: true, data: { folder: realpathSync(data) } });
        code = await printedCode(cap.text, realpathSync(data));
      } finally {
        cap.stop();
      }
      expect(await api('collections.previewFile', { path: join(data, 'c.jsonl'), kind: 'corpus' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await api('files.confirmFolder', { path: data, code })).toMatchObject({ ok: true, data: { userFolders: [realpathSync(data)] } });
      expect(await api('collections.previewFile', { path: join(data, 'c.jsonl'), kind: 'corpus' })).toMatchObject({ ok: true });
      // The code is shown in the terminal only: never in the app's log file (which a diagnostics report quotes).
      const logs = readdirSync(join(dir, 'bm-logs')).map((f) => readFileSync(join(dir, 'bm-logs', f), 'utf8')).join('');
      expect(logs).not.toContain(code);
      // The user's folders live in the config folder the whole test run shares: leave it as found.
      expect(await api('files.setAllowedFolders', { folders: [] })).toMatchObject({ ok: true, data: { userFolders: [] } });
    } finally {
      await app.close();
    }
  }, 120_000);

  it('a folder chosen in the desktop app’s folder dialog (grant kind folder) is allowed through the host; a request cannot add one', async () => {
    const ws = join(dir, 'f', 'w.fairground');
    mkdirSync(join(dir, 'f'));
    const chosen = join(dir, 'f-chosen');
    const notChosen = join(dir, 'f-other');
    for (const d of [chosen, notChosen]) {
      mkdirSync(d);
      writeFileSync(join(d, 'c.jsonl'), '{"id": "d1", "text": "tidal power"}\n');
    }
    const host = await startServiceHost({ workspacePath: ws, transport: 'electron' });
    try {
      const preview = (folder: string) => host.router.call('collections.previewFile', { path: join(folder, 'c.jsonl'), kind: 'corpus' });
      // The request alone: refused, naming the folder and the gesture; nothing stored.
      const bare = await host.router.call('files.setAllowedFolders', { folders: [notChosen] });
      expect(bare).toMatchObject({ ok: false, error: { code: 'forbidden', field: 'folders[0]', message: expect.stringContaining(`${notChosen} was not chosen in the folder dialog; add it with Settings → Add folder…`) } });
      // (The user's folders live in the config folder the whole test run shares: assert on this test's folders only.)
      expect(await host.router.call('files.allowedFolders', {})).toMatchObject({ ok: true, data: { mode: 'grants', userFolders: expect.not.arrayContaining([realpathSync(notChosen)]) } });
      expect(await host.router.call('files.requestFolder', { path: notChosen })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await preview(chosen)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      // The dialog's folder, through the host's grant message.
      expect(await host.grant(chosen, 'folder')).toBe(realpathSync(chosen));
      expect(await host.router.call('files.allowedFolders', {})).toMatchObject({ ok: true, data: { userFolders: expect.arrayContaining([realpathSync(chosen)]) } });
      expect(await preview(chosen)).toMatchObject({ ok: true });
      expect(await preview(notChosen)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      // A file is not a folder; the host says why.
      await expect(host.grant(join(chosen, 'c.jsonl'), 'folder')).rejects.toThrow(/not a folder/);
      // Removing is a plain request.
      expect(await host.router.call('files.setAllowedFolders', { folders: [] })).toMatchObject({ ok: true, data: { userFolders: [] } });
      expect(await preview(chosen)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    } finally {
      await host.close();
    }
  }, 120_000);

  it('remote API keys are sealed by the OS keychain of the client thread (safeStorage stands here for a test cipher)', async () => {
    const ws = join(dir, 'k', 'w.fairground');
    mkdirSync(join(dir, 'k'));
    // A reversible stand-in for Electron's safeStorage (which exists only in Electron's main process).
    const seen: string[] = [];
    const osCipher = {
      isEncryptionAvailable: () => true,
      encryptString: (plain: string) => (seen.push(plain), Buffer.from(`sealed(${[...plain].reverse().join('')})`)),
      decryptString: (sealed: Buffer) => [...sealed.toString().slice(7, -1)].reverse().join(''),
    };
    const host = await startServiceHost({ workspacePath: ws, transport: 'electron', osCipher });
    try {
      const added = await host.router.call('remotes.add', { name: 'r', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-abc123', probe: false });
      expect(added).toMatchObject({ ok: true });
    } finally {
      await host.close();
    }
    expect(seen).toEqual(['sk-abc123']);
    const db = new Database(ws, { readonly: true });
    try {
      const keys = (db.prepare('SELECT api_key FROM remote_endpoints').all() as { api_key: string }[]).map((r) => r.api_key);
      expect(keys).toEqual([`safe:${Buffer.from('sealed(321cba-ks)').toString('base64')}`]);
    } finally {
      db.close();
    }
  }, 120_000);

  it('a workspace that cannot be opened rejects the start with the store’s message', async () => {
    const bad = join(dir, 'not-a-workspace.fairground');
    writeFileSync(bad, 'this is not an SQLite file, just text long enough to have a header of sorts\n'.repeat(20));
    await expect(startServiceHost({ workspacePath: bad, transport: 'http' })).rejects.toThrow(/not-a-workspace\.fairground/);
  }, 60_000);
});

describe('a crashed host', () => {
  it('is reported; the pending call and every later one answer an internal error at once', async () => {
    const ws = join(dir, 'c', 'w.fairground');
    mkdirSync(join(dir, 'c'));
    const exits: string[] = [];
    const host = await startServiceHost({
      workspacePath: ws,
      transport: 'http',
      entry: fileURLToPath(new URL('./crashingHostMain.ts', import.meta.url)),
      onExit: (reason) => exits.push(reason),
    });
    expect(await host.router.call('app.info', {})).toMatchObject({ ok: true });
    const crashed = await host.router.call('test.crash', {});
    expect(crashed).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect((crashed as { error: { message: string } }).error.message).toMatch(/services host stopped \(its thread exited with code 7\)/);
    expect(exits).toEqual(['its thread exited with code 7']);
    expect(host.stopped).toBe('its thread exited with code 7');
    expect(await host.router.call('app.info', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
    await expect(host.grant(ws)).rejects.toThrow(/services host stopped/);
    await host.close(); // nothing to close: resolves
  }, 60_000);
});

describe('a stuck host', () => {
  it('does not hold up close(): the thread is ended after the grace period and pending calls answer errors', async () => {
    const ws = join(dir, 'h', 'w.fairground');
    mkdirSync(join(dir, 'h'));
    const exits: string[] = [];
    const host = await startServiceHost({
      workspacePath: ws,
      transport: 'http',
      entry: fileURLToPath(new URL('./crashingHostMain.ts', import.meta.url)),
      onExit: (reason) => exits.push(reason),
      closeGraceMs: 1000,
    });
    const stuck = host.router.call('test.hang', {});
    await host.close();
    expect(host.stopped).toBe('closed');
    expect(await stuck).toMatchObject({ ok: false, error: { code: 'internal' } });
    // Asked to stop: not reported as a crash.
    expect(exits).toEqual([]);
  }, 60_000);
});

describe('closing the host', () => {
  it('cancels a running import resumably and closes the workspace; the file is healthy', async () => {
    const ws = join(dir, 's', 'w.fairground');
    mkdirSync(join(dir, 's'));
    const corpus = join(dir, 's', 'corpus.jsonl');
    writeCorpus(corpus, 60_000, 9);
    const host = await startServiceHost({ workspacePath: ws, transport: 'http' });
    const started = (await host.router.call('collections.import', { collectionName: 'big', kind: 'corpus', files: [corpus] })) as Answer;
    expect(started.ok).toBe(true);
    // Wait until the import is running, then close.
    for (let i = 0; i < 600; i++) {
      const j = (await host.router.call('jobs.get', { id: started.data.id })) as Answer;
      if (j.data.status !== 'queued') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await host.close();
    expect(host.stopped).toBe('closed');
    expect(await host.router.call('app.info', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
    const db = new Database(ws, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const jobs = db.prepare('SELECT kind, status FROM jobs').all() as { kind: string; status: string }[];
      expect(jobs.map((j) => j.kind)).toEqual(['collections.import']);
      expect(['cancelled', 'succeeded']).toContain(jobs[0]!.status);
    } finally {
      db.close();
    }
  }, 240_000);
});
