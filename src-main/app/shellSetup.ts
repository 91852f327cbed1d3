/**
 * The shell's wiring, taken out of main.ts so it is tested without the Electron binary (issue 26
 * item 5, "the packaged app"): main.ts passes Electron's own objects, the tests fakes that record
 * what was called. What is decided here:
 * - which worker and service-host scripts run: in a packaged app always the ones inside the app
 *   (dist/main/worker, dist/main/host); FAIRGROUND_ENGINE_WORKER and FAIRGROUND_SERVICE_HOST are
 *   honoured only unpackaged (development, tests). Otherwise an environment variable would make the
 *   signed app run any JavaScript file outside the integrity-checked asar, the code injection the
 *   RunAsNode and NODE_OPTIONS fuses are turned off to prevent.
 * - the app:// scheme's privileges, the sandbox for every renderer, the navigation guard on every
 *   web contents, and the single-instance lock — in that order, before the app is ready;
 * - whether an IPC sender is one of our windows' top-level contents;
 * - whether safeStorage really seals (not Linux's 'basic_text' fixed password).
 */
import { join } from 'node:path';
import { APP_SCHEME } from './appProtocol';
import { guardContents, type GuardableContents } from './navigationGuard';
import { claimSingleInstance, type OpenRequests, type SingleInstanceApp } from './openRequests';

/** app:// as a standard, secure origin with fetch; nothing more (no CORS bypass, no service workers, no streaming, no CSP bypass). */
export const APP_SCHEME_PRIVILEGES = [{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }] as const;

/** The environment variables that name code to run; ignored when packaged. */
export const CODE_PATH_VARIABLES = ['FAIRGROUND_ENGINE_WORKER', 'FAIRGROUND_SERVICE_HOST'] as const;

export interface InternalScripts {
  engineWorker: string;
  serviceHost: string;
  /** The variables that were set and are ignored (packaged app), for one line in the log. */
  ignored: string[];
}

/**
 * The engine worker and service host scripts for the shell in `here` (dist/main/app). Packaged:
 * always the app's own; unpackaged: the environment's when set.
 */
export function internalScripts(env: Readonly<Record<string, string | undefined>>, here: string, isPackaged: boolean): InternalScripts {
  const own = { engineWorker: join(here, '..', 'worker', 'workerMain.js'), serviceHost: join(here, '..', 'host', 'hostMain.js') };
  if (isPackaged) return { ...own, ignored: CODE_PATH_VARIABLES.filter((v) => env[v] !== undefined && env[v] !== '') };
  return { engineWorker: env.FAIRGROUND_ENGINE_WORKER || own.engineWorker, serviceHost: env.FAIRGROUND_SERVICE_HOST || own.serviceHost, ignored: [] };
}

export interface ShellApp extends SingleInstanceApp {
  isPackaged: boolean;
  enableSandbox(): void;
  on(event: 'second-instance', listener: (event: unknown, argv: string[], workingDirectory: string) => void): unknown;
  on(event: 'open-file', listener: (event: { preventDefault(): void }, path: string) => void): unknown;
  on(event: 'web-contents-created', listener: (event: unknown, contents: GuardableContents) => void): unknown;
}

export interface ShellDeps {
  app: ShellApp;
  protocol: { registerSchemesAsPrivileged(schemes: { scheme: string; privileges: { standard: boolean; secure: boolean; supportFetchAPI: boolean } }[]): void };
  /** process.env: the internal script paths are written here (the service host and engine workers read them). */
  env: Record<string, string | undefined>;
  /** The folder of the shell's bundle (dist/main/app). */
  here: string;
  openExternal: (url: string) => void;
  openRequests: OpenRequests;
  focus: () => void;
  log: (message: string) => void;
}

/** Everything the shell must do before `app.whenReady()`. Returns false in a second instance (it quits). */
export function prepareShell(d: ShellDeps): boolean {
  const scripts = internalScripts(d.env, d.here, d.app.isPackaged);
  d.env.FAIRGROUND_ENGINE_WORKER = scripts.engineWorker;
  d.env.FAIRGROUND_SERVICE_HOST = scripts.serviceHost;
  if (scripts.ignored.length > 0) d.log(`ignoring ${scripts.ignored.join(' and ')}: a packaged Fairground runs only its own scripts`);
  d.protocol.registerSchemesAsPrivileged(APP_SCHEME_PRIVILEGES.map((s) => ({ scheme: s.scheme, privileges: { ...s.privileges } })));
  d.app.enableSandbox();
  // Every web contents the app ever creates (windows, and anything a page might open) is guarded:
  // no navigation out of app://, no new windows, no webviews (checklist items 12-15).
  d.app.on('web-contents-created', (_e, contents) => guardContents(contents, d.openExternal));
  // One Fairground per user: a second launch hands its workspace to this one and quits (issue 17 item 5).
  return claimSingleInstance(d.app, d.openRequests, d.focus);
}

/** Whether an IPC sender is the web contents of one of our windows (not another contents, not a frame of it). */
export function isOurContents(windows: Iterable<{ webContents: unknown }>, sender: unknown): boolean {
  for (const w of windows) if (w.webContents === sender) return true;
  return false;
}

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  getSelectedStorageBackend?(): string;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
}

/**
 * safeStorage as the key sealer, unless it would only obfuscate: on Linux without a keyring it
 * falls back to a fixed password ('basic_text'); the per-user key file is used then instead (null).
 */
export function chooseKeychain<T extends SafeStorageLike>(safeStorage: T, platform: NodeJS.Platform): T | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  if (platform === 'linux') {
    const backend = safeStorage.getSelectedStorageBackend?.();
    if (backend === undefined || backend === 'basic_text' || backend === 'unknown') return null;
  }
  return safeStorage;
}
