/**
 * The Electron shell's logic with its Electron objects injected (the Electron binary cannot be
 * downloaded here): window preferences, IPC sender checks, navigation and window-open blocking,
 * the app:// protocol's path confinement.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { APP_INDEX_URL, appResponse, resolveAppUrl } from '../../src-main/app/appProtocol';
import { CALL_CHANNEL, DROPPED_FILE_CHANNEL, EVENT_CHANNEL, PICK_FILE_CHANNEL, openDialogOptions, registerIpc, type IpcMainLike, type InvokeEventLike } from '../../src-main/app/ipcBridge';
import { guardContents, guardSession, isAllowedExternalUrl, type GuardableContents } from '../../src-main/app/navigationGuard';
import { mainWindowOptions } from '../../src-main/app/windowOptions';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';

describe('mainWindowOptions', () => {
  it('isolates, sandboxes and denies Node to every window', () => {
    const o = mainWindowOptions('/x/preload.cjs', false);
    expect(o.webPreferences).toMatchObject({
      preload: '/x/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
    });
    expect(o.webPreferences).not.toHaveProperty('enableBlinkFeatures');
  });
});

describe('app:// protocol', () => {
  it('serves only files inside the renderer folder', () => {
    expect(resolveAppUrl(APP_INDEX_URL, '/r')).toBe('/r/index.html');
    expect(resolveAppUrl('app://fairground/', '/r')).toBe('/r/index.html');
    expect(resolveAppUrl('app://fairground/assets/a.js', '/r')).toBe('/r/assets/a.js');
    expect(resolveAppUrl('app://fairground/..%2f..%2fetc%2fpasswd', '/r')).toBeNull();
    // WHATWG URL parsing collapses %2e%2e at the root, so this stays inside the folder
    expect(resolveAppUrl('app://fairground/%2e%2e/secret', '/r')).toBe('/r/secret');
    expect(resolveAppUrl('app://other/index.html', '/r')).toBeNull();
    expect(resolveAppUrl('file:///etc/passwd', '/r')).toBeNull();
    expect(resolveAppUrl('app://fairground/%E0%A4%A', '/r')).toBeNull();
  });
});

describe('app:// handler', () => {
  it('answers real status codes, nosniff and the CSP, and confines by real path (a symlink out is 403)', () => {
    const root = mkdtempSync(join(tmpdir(), 'fg-approot-'));
    const outside = mkdtempSync(join(tmpdir(), 'fg-appout-'));
    try {
      const r = join(root, 'renderer');
      mkdirSync(join(r, 'assets'), { recursive: true });
      writeFileSync(join(r, 'index.html'), '<!doctype html>');
      writeFileSync(join(r, 'assets', 'a.js'), 'export {}');
      writeFileSync(join(outside, 'secret.txt'), 'secret');
      symlinkSync(join(outside, 'secret.txt'), join(r, 'assets', 'leak.js'));
      symlinkSync(outside, join(r, 'out'));
      const ok = appResponse('app://fairground/assets/a.js', 'GET', r);
      expect(ok).toMatchObject({ status: 200, file: join(realpathSync(r), 'assets', 'a.js') });
      expect(ok.headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff', 'Content-Type': 'text/javascript; charset=utf-8' });
      expect(ok.headers['Content-Security-Policy']).toContain("default-src 'self'");
      expect(appResponse('app://fairground/', 'HEAD', r)).toMatchObject({ status: 200 });
      expect(appResponse('app://fairground/assets/leak.js', 'GET', r).status).toBe(403);
      expect(appResponse('app://fairground/out/secret.txt', 'GET', r).status).toBe(403);
      expect(appResponse('app://fairground/assets/missing.js', 'GET', r).status).toBe(404);
      expect(appResponse('app://fairground/assets', 'GET', r).status).toBe(404);
      expect(appResponse('app://fairground/..%2f..%2fetc%2fpasswd', 'GET', r).status).toBe(400);
      expect(appResponse('app://other/index.html', 'GET', r).status).toBe(400);
      expect(appResponse('app://fairground/index.html', 'POST', r)).toMatchObject({ status: 405, headers: { Allow: 'GET, HEAD', 'X-Content-Type-Options': 'nosniff' } });
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('navigation guard', () => {
  type Listener = (e: { preventDefault(): void; url?: string }, url?: string) => void;
  function fakeContents() {
    const listeners: Record<string, Listener> = {};
    let openHandler: ((d: { url: string }) => { action: 'deny' }) | undefined;
    return {
      contents: {
        on: (event: string, l: Listener) => void (listeners[event] = l),
        setWindowOpenHandler: (h: (d: { url: string }) => { action: 'deny' }) => void (openHandler = h),
      } as unknown as GuardableContents,
      navigate(event: string, url: string): boolean {
        let prevented = false;
        listeners[event]!({ preventDefault: () => void (prevented = true) }, url);
        return prevented;
      },
      frameNavigate(url: string): boolean {
        let prevented = false;
        listeners['will-frame-navigate']!({ url, preventDefault: () => void (prevented = true) });
        return prevented;
      },
      open: (url: string) => openHandler!({ url }),
    };
  }

  it('blocks navigation away from the app (top frame and sub-frames), webviews and new windows', () => {
    const f = fakeContents();
    const opened: string[] = [];
    guardContents(f.contents, (url) => opened.push(url));
    expect(f.navigate('will-navigate', 'https://example.org/')).toBe(true);
    expect(f.navigate('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(f.navigate('will-redirect', 'http://127.0.0.1:9/')).toBe(true);
    expect(f.navigate('will-navigate', 'app://fairground/index.html#/models')).toBe(false);
    expect(f.frameNavigate('https://evil.example/frame')).toBe(true);
    expect(f.frameNavigate('app://fairground/index.html')).toBe(false);
    expect(f.navigate('will-attach-webview', 'app://fairground/index.html')).toBe(true);
    expect(f.open('https://arxiv.org/abs/2409.11598')).toEqual({ action: 'deny' });
    expect(f.open('http://insecure.example/')).toEqual({ action: 'deny' });
    expect(f.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://arxiv.org/abs/2409.11598']);
  });

  it('grants no permission, reports none granted, and grants no device', () => {
    let request: ((wc: unknown, p: string, cb: (g: boolean) => void) => void) | undefined;
    let check: ((wc: unknown, p: string) => boolean) | undefined;
    let device: ((d: unknown) => boolean) | undefined;
    guardSession({
      setPermissionRequestHandler: (h) => void (request = h),
      setPermissionCheckHandler: (h) => void (check = h),
      setDevicePermissionHandler: (h) => void (device = h),
    });
    for (const p of ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal']) {
      let granted: boolean | undefined;
      request!(null, p, (g) => (granted = g));
      expect(granted, p).toBe(false);
      expect(check!(null, p), p).toBe(false);
    }
    expect(device!({ deviceType: 'usb', origin: 'app://fairground' })).toBe(false);
  });

  it('allows only https URLs without credentials to open externally', () => {
    expect(isAllowedExternalUrl('https://github.com')).toBe(true);
    expect(isAllowedExternalUrl('http://github.com')).toBe(false);
    expect(isAllowedExternalUrl('javascript:alert(1)')).toBe(false);
    expect(isAllowedExternalUrl('smb://host/share')).toBe(false);
    expect(isAllowedExternalUrl('https://user:pw@host/')).toBe(false);
    expect(isAllowedExternalUrl('not a url')).toBe(false);
  });
});

describe('IPC bridge', () => {
  let dir: string;
  let services: AppServices;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fg-ipc-'));
    services = createAppServices(join(dir, 'w.fairground'), { transport: 'electron' });
  });
  afterEach(async () => {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function setup() {
    let handler: ((e: InvokeEventLike, ...args: unknown[]) => Promise<unknown>) | undefined;
    const ipcMain: IpcMainLike = {
      handle: (channel, l) => {
        expect(channel).toBe(CALL_CHANNEL);
        handler = l;
      },
      removeHandler: () => (handler = undefined),
    };
    const ourSender = { id: 1 };
    const pushed: unknown[] = [];
    const dispose = registerIpc({
      ipcMain,
      router: createApiRouter(services),
      events: services.events,
      isOurContents: (s) => s === ourSender,
      targets: () => [{ isDestroyed: () => false, send: (channel, payload) => pushed.push([channel, payload]) }],
    });
    return { invoke: (e: InvokeEventLike, ...args: unknown[]) => handler!(e, ...args), ourSender, pushed, dispose };
  }

  it('answers calls from our top frame', async () => {
    const { invoke, ourSender } = setup();
    const res = (await invoke({ sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } }, 'app.info', {})) as { ok: boolean; data: { transport: string } };
    expect(res.ok).toBe(true);
    expect(res.data.transport).toBe('electron');
  });

  it('refuses foreign senders: another origin, a sub-frame, another webContents, no frame', async () => {
    const { invoke, ourSender } = setup();
    const cases: InvokeEventLike[] = [
      { sender: ourSender, senderFrame: { url: 'https://evil.example/', parent: null } },
      { sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: {} } },
      { sender: { id: 2 }, senderFrame: { url: APP_INDEX_URL, parent: null } },
      { sender: ourSender, senderFrame: null },
    ];
    for (const c of cases) {
      const res = (await invoke(c, 'app.info', {})) as { ok: boolean; error: { code: string } };
      expect(res).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
  });

  it('returns a typed validation error naming the field for an invalid payload', async () => {
    const { invoke, ourSender } = setup();
    const res = await invoke({ sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } }, 'settings.update', { threads: -3 });
    expect(res).toMatchObject({ ok: false, error: { code: 'validation', field: 'threads' } });
  });

  it('pushes job events to the windows', async () => {
    const { pushed } = setup();
    const job = services.jobs.start('test', 'Test job', {}, async (ctx) => ctx.progress(1, 1));
    await services.jobs.wait(job.id);
    expect(pushed.length).toBeGreaterThanOrEqual(2);
    expect(pushed.every((p) => (p as unknown[])[0] === EVENT_CHANNEL)).toBe(true);
    expect((pushed.at(-1) as [string, { payload: { status: string } }])[1].payload.status).toBe('succeeded');
  });
});

describe('native file dialog over IPC', () => {
  it('answers our window with the chosen path and refuses other senders and malformed requests', async () => {
    const handlers = new Map<string, (e: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain: IpcMainLike = { handle: (c, l) => void handlers.set(c, l), removeHandler: (c) => void handlers.delete(c) };
    const ourSender = { id: 1 };
    const asked: unknown[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'fg-pick-'));
    const services = createAppServices(join(dir, 'w.fairground'), { transport: 'electron' });
    try {
      registerIpc({
        ipcMain,
        router: createApiRouter(services),
        events: services.events,
        isOurContents: (s) => s === ourSender,
        targets: () => [],
        pickFile: async (_sender, request) => (asked.push(request), '/home/ada/models/q.gguf'),
      });
      const pick = handlers.get(PICK_FILE_CHANNEL)!;
      const ours = { sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } };
      expect(await pick(ours, { title: 'Choose a GGUF model', filters: [{ name: 'GGUF', extensions: ['gguf'] }] })).toEqual({ ok: true, data: '/home/ada/models/q.gguf' });
      expect(asked).toEqual([{ title: 'Choose a GGUF model', filters: [{ name: 'GGUF', extensions: ['gguf'] }] }]);
      expect(await pick({ sender: { id: 2 }, senderFrame: { url: APP_INDEX_URL, parent: null } }, {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await pick(ours, { filters: [{ name: 'x', extensions: ['../../etc'] }] })).toMatchObject({ ok: false, error: { code: 'validation' } });
      expect(asked).toHaveLength(1);
    } finally {
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('path grants over IPC (issue 15)', () => {
  it('a file picked in the dialog or dropped becomes readable by API calls; any other path is refused', async () => {
    const handlers = new Map<string, (e: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain: IpcMainLike = { handle: (c, l) => void handlers.set(c, l), removeHandler: (c) => void handlers.delete(c) };
    const ourSender = { id: 1 };
    const dir = mkdtempSync(join(tmpdir(), 'fg-grant-'));
    const data = mkdtempSync(join(tmpdir(), 'fg-grant-data-'));
    const picked = join(data, 'picked.jsonl');
    const dropped = join(data, 'dropped.jsonl');
    const other = join(data, 'other.jsonl');
    for (const f of [picked, dropped, other]) writeFileSync(f, '{"id": "d1", "text": "tidal power"}\n');
    const services = createAppServices(join(dir, 'w.fairground'), { transport: 'electron' });
    try {
      const router = createApiRouter(services);
      registerIpc({
        ipcMain,
        router,
        events: services.events,
        isOurContents: (s) => s === ourSender,
        targets: () => [],
        pickFile: async () => picked,
        grant: (p) => services.paths.grant(p),
      });
      const ours = { sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } };
      const call = handlers.get(CALL_CHANNEL)!;
      const preview = (path: string) => call(ours, 'collections.previewFile', { path, kind: 'corpus' }) as Promise<{ ok: boolean; error?: { code: string; message: string } }>;
      // Nothing granted yet: refused, and the message says how to grant.
      expect(await preview(picked)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect((await preview(picked)).error!.message).toMatch(/file dialog or dropped/);
      expect(await handlers.get(PICK_FILE_CHANNEL)!(ours, {})).toEqual({ ok: true, data: realpathSync(picked) });
      expect(await preview(picked)).toMatchObject({ ok: true });
      expect(await handlers.get(DROPPED_FILE_CHANNEL)!(ours, dropped)).toEqual({ ok: true, data: realpathSync(dropped) });
      expect(await preview(dropped)).toMatchObject({ ok: true });
      expect(await preview(other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      // A drop from a foreign sender, or of something that is not a regular file, grants nothing.
      expect(await handlers.get(DROPPED_FILE_CHANNEL)!({ sender: { id: 2 }, senderFrame: { url: APP_INDEX_URL, parent: null } }, other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await handlers.get(DROPPED_FILE_CHANNEL)!(ours, '/dev/zero')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await handlers.get(DROPPED_FILE_CHANNEL)!(ours, '')).toMatchObject({ ok: false, error: { code: 'validation' } });
      expect(await preview(other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      // Files under the workspace folder are always readable.
      writeFileSync(join(dir, 'beside.jsonl'), '{"id": "d2", "text": "wind"}\n');
      expect(await preview(join(dir, 'beside.jsonl'))).toMatchObject({ ok: true });
    } finally {
      await services.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('the folder dialog over IPC (issue 26: adding an allowed folder is a user gesture)', () => {
  it('asks Electron for a folder dialog: openDirectory, the title, no file filters', () => {
    expect(openDialogOptions({ kind: 'folder', title: 'Allow a folder', filters: [{ name: 'x', extensions: ['tsv'] }] })).toEqual({ properties: ['openDirectory'], title: 'Allow a folder' });
    expect(openDialogOptions({ title: 'Choose a GGUF model', filters: [{ name: 'GGUF', extensions: ['gguf'] }] })).toEqual({ properties: ['openFile'], title: 'Choose a GGUF model', filters: [{ name: 'GGUF', extensions: ['gguf'] }] });
    expect(openDialogOptions({ kind: 'file' })).toEqual({ properties: ['openFile'] });
  });

  it('the folder chosen in the dialog becomes an allowed folder; an API call naming another is refused and stores nothing', async () => {
    const handlers = new Map<string, (e: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain: IpcMainLike = { handle: (c, l) => void handlers.set(c, l), removeHandler: (c) => void handlers.delete(c) };
    const ourSender = { id: 1 };
    const dir = mkdtempSync(join(tmpdir(), 'fg-pickdir-'));
    const chosen = realpathSync(mkdtempSync(join(tmpdir(), 'fg-pickdir-chosen-')));
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'fg-pickdir-other-')));
    for (const d of [chosen, other]) writeFileSync(join(d, 'c.jsonl'), '{"id": "d1", "text": "tidal power"}\n');
    const services = createAppServices(join(dir, 'w.fairground'), { transport: 'electron' });
    const asked: unknown[] = [];
    try {
      registerIpc({
        ipcMain,
        router: createApiRouter(services),
        events: services.events,
        isOurContents: (s) => s === ourSender,
        targets: () => [],
        pickFile: async (_sender, request) => (asked.push(request), request.kind === 'folder' ? chosen : null),
        // As main.ts wires it: the host's grant with the kind.
        grant: (p, kind) => (kind === 'folder' ? services.paths.grantFolder(p) : services.paths.grant(p)),
      });
      const ours = { sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } };
      const call = (method: string, input: unknown) => handlers.get(CALL_CHANNEL)!(ours, method, input) as Promise<{ ok: boolean; data?: { userFolders: string[] }; error?: { code: string; message: string; field?: string } }>;
      const preview = (folder: string) => call('collections.previewFile', { path: join(folder, 'c.jsonl'), kind: 'corpus' });

      // A plain API call (what any script in the page could send) cannot add a folder.
      expect(await call('files.setAllowedFolders', { folders: [chosen] })).toMatchObject({
        ok: false,
        error: { code: 'forbidden', field: 'folders[0]', message: `folders[0]: ${chosen} was not chosen in the folder dialog; add it with Settings → Add folder… (a request alone cannot widen what the app may read)` },
      });
      expect((await call('files.allowedFolders', {})).data!.userFolders).toEqual([]);
      expect(await preview(chosen)).toMatchObject({ ok: false, error: { code: 'forbidden' } });

      // Settings → Add folder…: the dialog, then the folder is allowed.
      expect(await handlers.get(PICK_FILE_CHANNEL)!(ours, { kind: 'folder', title: 'Allow a folder' })).toEqual({ ok: true, data: chosen });
      expect(asked).toEqual([{ kind: 'folder', title: 'Allow a folder' }]);
      expect((await call('files.allowedFolders', {})).data!.userFolders).toEqual([chosen]);
      expect(await preview(chosen)).toMatchObject({ ok: true });
      expect(await preview(other)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      // Keeping the chosen folder while slipping another in: refused at folders[1], the list unchanged.
      expect(await call('files.setAllowedFolders', { folders: [chosen, other] })).toMatchObject({ ok: false, error: { code: 'forbidden', field: 'folders[1]' } });
      expect((await call('files.allowedFolders', {})).data!.userFolders).toEqual([chosen]);

      // A foreign sender or a malformed kind gets no dialog.
      expect(await handlers.get(PICK_FILE_CHANNEL)!({ sender: { id: 2 }, senderFrame: { url: APP_INDEX_URL, parent: null } }, { kind: 'folder' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await handlers.get(PICK_FILE_CHANNEL)!(ours, { kind: 'device' })).toMatchObject({ ok: false, error: { code: 'validation' } });
      expect(asked).toHaveLength(1);
    } finally {
      await services.close();
      for (const d of [dir, chosen, other]) rmSync(d, { recursive: true, force: true });
    }
  });

  it('without a way to grant, the folder dialog is not offered at all', async () => {
    const handlers = new Map<string, (e: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
    const ipcMain: IpcMainLike = { handle: (c, l) => void handlers.set(c, l), removeHandler: (c) => void handlers.delete(c) };
    const ourSender = { id: 1 };
    let opened = 0;
    const dispose = registerIpc({
      ipcMain,
      router: { call: async () => ({ ok: true, data: null }) },
      events: { subscribe: () => () => {} } as unknown as Parameters<typeof registerIpc>[0]['events'],
      isOurContents: (s) => s === ourSender,
      targets: () => [],
      pickFile: async () => (opened++, '/tmp'),
    });
    expect(await handlers.get(PICK_FILE_CHANNEL)!({ sender: ourSender, senderFrame: { url: APP_INDEX_URL, parent: null } }, { kind: 'folder' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(opened).toBe(0);
    dispose();
  });
});
