/**
 * Issue 26 item 5 (the packaged app): the shell's wiring, run with recording stand-ins for
 * Electron's app and protocol (the binary cannot run here). main.ts calls exactly these functions
 * (checked at the end), so a break in the wiring breaks a test: the sandbox, the navigation guard
 * on every web contents, the scheme's privileges, the single-instance lock, the frame check, the
 * safeStorage backend check, the exact CSP, and the internal scripts a packaged app runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_CSP } from '../../src-main/app/appProtocol';
import type { GuardableContents } from '../../src-main/app/navigationGuard';
import { OpenRequests } from '../../src-main/app/openRequests';
import { chooseKeychain, internalScripts, isOurContents, prepareShell, type SafeStorageLike, type ShellApp } from '../../src-main/app/shellSetup';

const HERE = '/opt/Fairground/resources/app.asar/dist/main/app';

function fakeApp(isPackaged: boolean, lock = true) {
  const calls: string[] = [];
  const listeners = new Map<string, ((...args: never[]) => unknown)[]>();
  const app = {
    isPackaged,
    enableSandbox: () => void calls.push('enableSandbox'),
    requestSingleInstanceLock: () => (calls.push('requestSingleInstanceLock'), lock),
    quit: () => void calls.push('quit'),
    on: (event: string, l: (...args: never[]) => unknown) => {
      calls.push(`on:${event}`);
      listeners.set(event, [...(listeners.get(event) ?? []), l]);
      return app;
    },
  };
  return { app: app as unknown as ShellApp, calls, listeners };
}

function prepare(isPackaged: boolean, env: Record<string, string | undefined>, lock = true) {
  const { app, calls, listeners } = fakeApp(isPackaged, lock);
  const schemes: unknown[] = [];
  const logs: string[] = [];
  const opened: string[] = [];
  const primary = prepareShell({
    app,
    protocol: { registerSchemesAsPrivileged: (s) => void (calls.push('registerSchemesAsPrivileged'), schemes.push(...s)) },
    env,
    here: HERE,
    openExternal: (u) => void opened.push(u),
    openRequests: new OpenRequests(),
    focus: () => void calls.push('focus'),
    log: (m) => void logs.push(m),
  });
  return { primary, calls, listeners, schemes, logs, env, opened };
}

describe('internal scripts: a packaged app runs only its own', () => {
  const injected = { FAIRGROUND_ENGINE_WORKER: '/tmp/evil-worker.js', FAIRGROUND_SERVICE_HOST: '/tmp/evil-host.js' };

  it('packaged: the environment variables are ignored (and the log says so); the app.asar scripts are set for the host and workers', () => {
    const r = prepare(true, { ...injected });
    expect(r.env.FAIRGROUND_ENGINE_WORKER).toBe(join(HERE, '..', 'worker', 'workerMain.js'));
    expect(r.env.FAIRGROUND_SERVICE_HOST).toBe(join(HERE, '..', 'host', 'hostMain.js'));
    expect(r.env.FAIRGROUND_ENGINE_WORKER).toBe('/opt/Fairground/resources/app.asar/dist/main/worker/workerMain.js');
    expect(r.logs).toEqual(['ignoring FAIRGROUND_ENGINE_WORKER and FAIRGROUND_SERVICE_HOST: a packaged Fairground runs only its own scripts']);
    expect(internalScripts({ FAIRGROUND_SERVICE_HOST: '/x.js' }, HERE, true).ignored).toEqual(['FAIRGROUND_SERVICE_HOST']);
  });

  it('unpackaged (development, tests): the variables are honoured; unset, the built scripts are used', () => {
    const r = prepare(false, { ...injected });
    expect(r.env).toMatchObject(injected);
    expect(r.logs).toEqual([]);
    const plain = prepare(false, {});
    expect(plain.env.FAIRGROUND_SERVICE_HOST).toBe(join(HERE, '..', 'host', 'hostMain.js'));
    expect(plain.env.FAIRGROUND_ENGINE_WORKER).toBe(join(HERE, '..', 'worker', 'workerMain.js'));
  });
});

describe('prepareShell', () => {
  it('registers app:// with exactly standard, secure and fetch, enables the sandbox, guards every web contents, then takes the lock', () => {
    const r = prepare(true, {});
    expect(r.primary).toBe(true);
    expect(r.schemes).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
    expect(r.calls).toEqual(['registerSchemesAsPrivileged', 'enableSandbox', 'on:web-contents-created', 'requestSingleInstanceLock', 'on:second-instance', 'on:open-file']);
  });

  it('the web-contents-created listener guards the new contents (navigation, window.open, webviews)', () => {
    const r = prepare(true, {});
    const handlers = new Map<string, (...a: unknown[]) => unknown>();
    let openHandler: ((d: { url: string }) => { action: string }) | undefined;
    const contents = {
      on: (e: string, h: (...a: unknown[]) => unknown) => void handlers.set(e, h),
      setWindowOpenHandler: (h: (d: { url: string }) => { action: string }) => void (openHandler = h),
    } as unknown as GuardableContents;
    const [listener] = r.listeners.get('web-contents-created')!;
    (listener as (e: unknown, c: GuardableContents) => void)({}, contents);
    expect([...handlers.keys()].sort()).toEqual(expect.arrayContaining(['will-navigate', 'will-attach-webview']));
    expect(openHandler?.({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(r.opened).toEqual(['https://example.org/']);
    let prevented = false;
    handlers.get('will-navigate')!({ preventDefault: () => (prevented = true) }, 'https://evil.example/');
    expect(prevented).toBe(true);
  });

  it('a second instance quits and starts nothing', () => {
    const r = prepare(true, {}, false);
    expect(r.primary).toBe(false);
    expect(r.calls.slice(-2)).toEqual(['requestSingleInstanceLock', 'quit']);
  });
});

describe('isOurContents', () => {
  it('is true only for the top-level contents of one of our windows', () => {
    const a = { id: 1 };
    const b = { id: 2 };
    const windows = new Set([{ webContents: a }, { webContents: b }]);
    expect(isOurContents(windows, a)).toBe(true);
    expect(isOurContents(windows, b)).toBe(true);
    expect(isOurContents(windows, { id: 1 })).toBe(false); // equal-looking, another object
    expect(isOurContents(windows, undefined)).toBe(false);
    expect(isOurContents(new Set(), a)).toBe(false);
  });
});

describe('chooseKeychain', () => {
  const storage = (available: boolean, backend?: string): SafeStorageLike => ({
    isEncryptionAvailable: () => available,
    ...(backend !== undefined ? { getSelectedStorageBackend: () => backend } : {}),
    encryptString: (s) => Buffer.from(s),
    decryptString: (b) => b.toString(),
  });
  it("uses safeStorage only when it really seals: not unavailable, not Linux's basic_text fixed password", () => {
    const gnome = storage(true, 'gnome_libsecret');
    expect(chooseKeychain(gnome, 'linux')).toBe(gnome);
    expect(chooseKeychain(storage(true, 'kwallet5'), 'linux')).not.toBeNull();
    expect(chooseKeychain(storage(true, 'basic_text'), 'linux')).toBeNull();
    expect(chooseKeychain(storage(true, 'unknown'), 'linux')).toBeNull();
    expect(chooseKeychain(storage(false, 'gnome_libsecret'), 'linux')).toBeNull();
    const mac = storage(true);
    expect(chooseKeychain(mac, 'darwin')).toBe(mac);
    expect(chooseKeychain(storage(false), 'win32')).toBeNull();
  });
});

describe('the CSP, pinned exactly', () => {
  it('is the app’s policy, directive by directive', () => {
    expect(APP_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
  });
});

describe('main.ts uses this wiring', () => {
  // main.ts itself cannot run without Electron: what it must call is checked in its text.
  const main = readFileSync(join(__dirname, '..', '..', 'src-main', 'app', 'main.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  it('prepares the shell with Electron’s app and protocol before anything starts, and starts only the primary instance', () => {
    expect(main).toMatch(/const primary = prepareShell\(\{\s*app,\s*protocol,\s*env: process\.env,/);
    expect(main).toMatch(/if \(primary\) \{\s*void start\(\)/);
    expect(main.indexOf('prepareShell(')).toBeLessThan(main.indexOf('async function start('));
  });
  it('checks IPC senders and the keychain with these functions, and hardens every window', () => {
    expect(main).toContain('isOurContents: (sender) => isOurContents(windows, sender)');
    expect(main).toContain('chooseKeychain(safeStorage, process.platform)');
    expect(main).toMatch(/new BrowserWindow\(mainWindowOptions\(/);
    expect(main).toContain('guardSession(session.defaultSession)');
    // The native dialog's options come from openDialogOptions (a folder request opens a folder dialog, issue 26)
    // and the chosen path is granted through the host with its kind.
    expect(main).toMatch(/const options = openDialogOptions\(request\);\s*const result = win \? await dialog\.showOpenDialog\(win, options\) : await dialog\.showOpenDialog\(options\);/);
    expect(main).toContain('grant: (path, kind) => h.grant(path, kind)');
    // Nothing else writes the internal script variables or registers schemes.
    expect(main).not.toMatch(/FAIRGROUND_ENGINE_WORKER|FAIRGROUND_SERVICE_HOST|registerSchemesAsPrivileged|enableSandbox|requestSingleInstanceLock/);
  });
});
