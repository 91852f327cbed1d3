/**
 * Issue 25 item 2, the desktop shell: the window first, the workspace behind it. main.ts hands
 * startShell its Electron wiring; here the window and IPC are recording stand-ins (Electron cannot
 * run here) and the services are the real ones main.ts's `--in-process` branch starts (SQLite, the
 * API router) on a temporary workspace, held at the start so the window's view of the opening can
 * be read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startShell } from '../../src-main/app/shellStartup';
import type { OpeningHost } from '../../src-main/host/openingHost';
import { inProcessSessionHost, type ServiceHost } from '../../src-main/host/serviceHost';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices } from '../../src-main/services/appServices';
import { WorkspaceSession } from '../../src-main/services/workspaces/workspaceSession';

const dir = mkdtempSync(join(tmpdir(), 'fg-shell-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The services as main.ts's `--in-process` branch starts them. */
function realHost(path: string): ServiceHost {
  return inProcessSessionHost(
    WorkspaceSession.open(path, {
      open: (p) => createAppServices(p, { transport: 'electron' }),
      routerFor: (s, switcher) =>
        createApiRouter(
          s,
          (err) => {
            throw err;
          },
          switcher,
        ),
    }),
  );
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('startShell: the window first, the workspace behind it', () => {
  it('wires IPC, shows the window, and only then starts the services; the window sees the opening, then the workspace', async () => {
    const path = join(dir, 'first.fairground');
    const order: string[] = [];
    const held = gate();
    let wired: OpeningHost | undefined;
    const host = startShell({
      workspacePath: path,
      wire: (h) => {
        order.push('wire');
        wired = h;
      },
      showWindow: () => void order.push('window'),
      startHost: async () => {
        order.push('start host');
        await held.wait;
        const h = realHost(path);
        order.push('workspace open');
        return h;
      },
      demo: false,
      onFailed: (err) => void order.push(`failed: ${err.message}`),
    });
    expect(wired).toBe(host);
    // Synchronously: the window is up before anything of the services has run.
    expect(order).toEqual(['wire', 'window']);
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['wire', 'window', 'start host']);
    // What the page polls: the opening's step, while other calls wait.
    const startup = await host.router.call('app.startup', {});
    expect(startup).toMatchObject({ ok: true, data: { state: 'opening', step: 'opening the workspace (integrity check, migrations)' } });
    let answered = false;
    const info = host.router.call('workspace.info', {}).then((e) => ((answered = true), e));
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    held.open();
    const got = (await info) as { ok: boolean; data?: { path?: string } };
    expect(got.ok).toBe(true);
    expect(got.data?.path).toBe(path);
    expect(host.startup.state).toBe('ready');
    expect(order).toEqual(['wire', 'window', 'start host', 'workspace open']);
    // The workspace file was made by the services, after the window: a real SQLite file.
    expect(readFileSync(path).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    await host.close();
  });

  it('a workspace that cannot be opened: the window stays and says why; onFailed hears it; quitting closes cleanly', async () => {
    const path = join(dir, 'empty.fairground');
    writeFileSync(path, '');
    const failures: string[] = [];
    const order: string[] = [];
    const host = startShell({
      workspacePath: path,
      wire: () => void order.push('wire'),
      showWindow: () => void order.push('window'),
      startHost: async () => realHost(path),
      demo: true,
      onFailed: (err) => void failures.push(err.message),
    });
    await expect(host.opened).rejects.toThrow(/empty/);
    expect(order).toEqual(['wire', 'window']);
    const startup = (await host.router.call('app.startup', {})) as { ok: true; data: { state: string; error?: string } };
    expect(startup.data.state).toBe('failed');
    expect(startup.data.error).toMatch(/empty/);
    expect(failures).toEqual([startup.data.error]);
    const call = await host.router.call('workspace.info', {});
    expect(call).toMatchObject({ ok: false, error: { code: 'workspace' } });
    await host.close();
  });

  it('a window that cannot be shown: the services are never started, and the error reaches the caller', async () => {
    let started = false;
    const failures: string[] = [];
    let host: OpeningHost | undefined;
    expect(() => {
      host = startShell({
        workspacePath: join(dir, 'never.fairground'),
        wire: () => {},
        showWindow: () => {
          throw new Error('no display');
        },
        startHost: async () => {
          started = true;
          return realHost(join(dir, 'never.fairground'));
        },
        demo: false,
        onFailed: (err) => void failures.push(err.message),
      });
    }).toThrow('no display');
    expect(host).toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toBe(false);
    expect(failures).toEqual(['no display']);
  });

  it('with the demo on, the demo is set up after the workspace opens, its messages shown as the step', async () => {
    const path = join(dir, 'demo.fairground');
    const steps: string[] = [];
    const log: string[] = [];
    const host = startShell({
      workspacePath: path,
      wire: () => {},
      showWindow: () => {},
      startHost: async () => {
        const h = realHost(path);
        const ensureDemo = h.ensureDemo.bind(h);
        return {
          ...h,
          router: h.router,
          events: h.events,
          workspacePath: h.workspacePath,
          close: () => h.close(),
          grant: (p: string) => h.grant(p),
          ensureDemo: async (onLog?: (m: string) => void) => {
            steps.push('demo');
            onLog?.('demo step one');
            steps.push((await host.router.call('app.startup', {})) ? host.startup.step : '');
            return ensureDemo(() => {});
          },
        } as ServiceHost;
      },
      demo: true,
      onDemoLog: (m) => void log.push(m),
    });
    await host.opened;
    expect(steps).toEqual(['demo', 'setting up the demo: demo step one']);
    expect(log).toEqual(['demo step one']);
    expect(host.startup.state).toBe('ready');
    await host.close();
  }, 120_000);
});

describe('main.ts starts this way', () => {
  // main.ts itself cannot run without Electron: what it must do is checked in its text.
  const main = readFileSync(join(__dirname, '..', '..', 'src-main', 'app', 'main.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  it('through startShell, with the services imported only inside startHost (nothing heavy before the window)', () => {
    expect(main).toMatch(/host = startShell\(\{/);
    expect(main).toMatch(/showWindow: \(\) => void createWindow\(\)/);
    const staticImports = [...main.matchAll(/^import (?!type)[^;]*from '([^']+)';/gm)].map((m) => m[1]);
    for (const heavy of ['../host/hostClient', '../handlers/index', '../services/appServices', '../services/workspaces/workspaceSession', '../services/secrets', '../store/workspace']) {
      expect(staticImports).not.toContain(heavy);
    }
    expect(main.indexOf("import('../host/hostClient')")).toBeGreaterThan(main.indexOf('startHost: async'));
  });
});
