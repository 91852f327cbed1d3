/**
 * Workspaces handed to the desktop app by the system (issue 17 item 5): a `.fairground` file
 * double-clicked (file association, electron-builder.yml), named on the command line, or opened while
 * the app already runs. The single-instance lock makes the second launch hand its command line to the
 * first (`second-instance`) and quit; macOS delivers files through `open-file`, possibly before the
 * app is ready, so requests queue until a handler is attached. Electron objects are injected (nothing
 * here imports electron), so this logic is tested under plain Node.
 */
import { isAbsolute, resolve } from 'node:path';

/** The workspace a command line names: `--workspace PATH`, else the last argument ending in `.fairground`. */
export function workspaceFromArgv(argv: readonly string[], cwd: string): string | null {
  const i = argv.indexOf('--workspace');
  if (i >= 0 && argv[i + 1] !== undefined) return absolute(argv[i + 1]!, cwd);
  for (let k = argv.length - 1; k >= 1; k--) {
    const a = argv[k]!;
    if (a.startsWith('-')) continue;
    if (/\.fairground$/i.test(a)) return absolute(a, cwd);
  }
  return null;
}

function absolute(p: string, cwd: string): string {
  return isAbsolute(p) ? p : resolve(cwd, p);
}

export interface SingleInstanceApp {
  requestSingleInstanceLock(): boolean;
  quit(): void;
  on(event: 'second-instance', listener: (event: unknown, argv: string[], workingDirectory: string) => void): unknown;
  on(event: 'open-file', listener: (event: { preventDefault(): void }, path: string) => void): unknown;
}

export class OpenRequests {
  private readonly queue: string[] = [];
  private handler: ((path: string) => void) | null = null;

  /** Queue or deliver a workspace path. */
  push(path: string): void {
    if (this.handler) this.handler(path);
    else this.queue.push(path);
  }

  /** Deliver queued requests now and later ones as they come. */
  attach(handler: (path: string) => void): void {
    this.handler = handler;
    for (const p of this.queue.splice(0)) handler(p);
  }
}

/**
 * Takes the single-instance lock. The first instance gets every later launch's workspace (and a
 * focus call even when none is named); a second instance returns false after asking to quit.
 */
export function claimSingleInstance(app: SingleInstanceApp, requests: OpenRequests, focus: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', (_event, argv, workingDirectory) => {
    focus();
    const path = workspaceFromArgv(argv, workingDirectory);
    if (path) requests.push(path);
  });
  app.on('open-file', (event, path) => {
    event.preventDefault();
    if (/\.fairground$/i.test(path)) requests.push(path);
  });
  return true;
}
