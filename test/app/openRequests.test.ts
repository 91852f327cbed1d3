/** The desktop app's single-instance lock and workspace open requests, with Electron's app injected. */
import { describe, expect, it } from 'vitest';
import { claimSingleInstance, OpenRequests, workspaceFromArgv, type SingleInstanceApp } from '../../src-main/app/openRequests';

type Listener = (...args: never[]) => void;

function fakeApp(lock: boolean) {
  const listeners = new Map<string, Listener>();
  let quit = 0;
  const app: SingleInstanceApp = {
    requestSingleInstanceLock: () => lock,
    quit: () => void quit++,
    on: (event: string, listener: Listener) => listeners.set(event, listener),
  } as SingleInstanceApp;
  return { app, listeners, quits: () => quit };
}

describe('workspaceFromArgv', () => {
  it('takes --workspace, else the last .fairground argument, resolved against the launch folder', () => {
    expect(workspaceFromArgv(['/opt/Fairground/fairground', '--workspace', 'lab.fairground'], '/home/r')).toBe('/home/r/lab.fairground');
    expect(workspaceFromArgv(['fairground', '--no-sandbox', '/data/a.fairground', 'b.FAIRGROUND'], '/w')).toBe('/w/b.FAIRGROUND');
    expect(workspaceFromArgv(['fairground', 'notes.txt', '--flag'], '/w')).toBeNull();
    // argv[0] is the executable, never a workspace.
    expect(workspaceFromArgv(['x.fairground'], '/w')).toBeNull();
  });
});

describe('claimSingleInstance', () => {
  it('the first instance receives later launches: focus always, the workspace when one is named', () => {
    const { app, listeners } = fakeApp(true);
    const requests = new OpenRequests();
    let focused = 0;
    expect(claimSingleInstance(app, requests, () => void focused++)).toBe(true);
    const second = listeners.get('second-instance') as unknown as (e: unknown, argv: string[], cwd: string) => void;
    second({}, ['fairground', 'lab.fairground'], '/home/r');
    second({}, ['fairground'], '/home/r');
    expect(focused).toBe(2);
    // Queued until the app attaches its handler, then delivered in order; later ones at once.
    const got: string[] = [];
    const openFile = listeners.get('open-file') as unknown as (e: { preventDefault(): void }, p: string) => void;
    let prevented = 0;
    openFile({ preventDefault: () => void prevented++ }, '/Users/r/old.fairground');
    openFile({ preventDefault: () => void prevented++ }, '/Users/r/picture.png');
    requests.attach((p) => got.push(p));
    second({}, ['fairground', '--workspace', '/abs/w.fairground'], '/');
    expect(got).toEqual(['/home/r/lab.fairground', '/Users/r/old.fairground', '/abs/w.fairground']);
    expect(prevented).toBe(2);
  });

  it('a second instance quits without listening', () => {
    const { app, listeners, quits } = fakeApp(false);
    expect(claimSingleInstance(app, new OpenRequests(), () => {})).toBe(false);
    expect(quits()).toBe(1);
    expect(listeners.size).toBe(0);
  });
});
