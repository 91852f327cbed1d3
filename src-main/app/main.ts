/**
 * Electron main process: the thin shell. It opens its window first and the workspace behind it
 * (shellStartup.ts: the page shows the opening's step, as in browser mode), through the same services
 * the browser mode and CLI use; it serves the renderer over app://, wires IPC, and hardens every window.
 * Nothing outside src-main/app imports electron.
 *
 * The services and SQLite run in the service host's worker thread (src-main/host, issue 17 item 6),
 * so imports, metrics and exports never stall this process's event loop (windows, menus, IPC).
 * A worker thread rather than a utility process: safeStorage, which seals remote API keys, exists
 * only in the main process and the key store uses it synchronously (the host asks this thread and
 * waits, see host/osCipherProxy.ts). Engine workers stay utility processes, started here for the
 * host (host/engineRelay.ts). `--in-process` runs the services in this thread, as before.
 */
import { BrowserWindow, Menu, app, dialog, ipcMain, nativeTheme, net, protocol, safeStorage, session, shell, utilityProcess, type WebContents } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServiceHost } from '../host/serviceHost';
import { OpenRequests, workspaceFromArgv } from './openRequests';
import { chooseKeychain, isOurContents, prepareShell } from './shellSetup';
import type { OsCipher } from '../services/secrets';
import { defaultWorkspacePath } from '../store/workspacePath';
import { chooseNativeBinding } from '../store/nativeBinding';
import { APP_INDEX_URL, APP_SCHEME, appResponse } from './appProtocol';
import { openDialogOptions, registerIpc } from './ipcBridge';
import { menuTemplate } from './menuTemplate';
import { guardContents, guardSession } from './navigationGuard';
import { setWorkerSpawner } from '../engine/local/workerChild';
import { utilityProcessSpawner } from './utilityWorker';
import { mainWindowOptions } from './windowOptions';
import { startShell } from './shellStartup';

const here = dirname(fileURLToPath(import.meta.url)); // dist/main/app
const appRoot = join(here, '..', '..', '..');
const rendererRoot = join(appRoot, 'dist', 'renderer');
const preloadPath = join(here, 'preload.cjs');
// Before anything else: the internal script paths (packaged: never from the environment), app://'s
// privileges, the sandbox, the navigation guard on every web contents, the single-instance lock.
const windows = new Set<BrowserWindow>();
const openRequests = new OpenRequests();
const primary = prepareShell({
  app,
  protocol,
  env: process.env,
  here,
  openExternal: (url) => void shell.openExternal(url),
  openRequests,
  focus: () => {
    const win = [...windows][0];
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  },
  log: (m) => console.warn(m),
});
// Local models run in Electron utility processes (crash-isolated), not child_process forks: the
// host's are started here through the relay, the in-process services' directly.
const engineSpawner = utilityProcessSpawner((modulePath, args, options) => utilityProcess.fork(modulePath, args, options));
setWorkerSpawner(engineSpawner);

let host: ServiceHost | undefined;

/** `--workspace PATH` or a `.fairground` file the system launched us with (file association). */
function workspaceArg(): string {
  return workspaceFromArgv(process.argv, process.cwd()) ?? defaultWorkspacePath();
}

/** A workspace the system handed over while running (double-click, second launch): grant, switch, reload. */
async function openRequested(h: ServiceHost, path: string): Promise<void> {
  try {
    await h.grant(path);
  } catch (err) {
    dialog.showErrorBox('Fairground', `Cannot open ${path}: ${(err as Error).message}`);
    return;
  }
  const answer = await h.router.call('workspaces.open', { path });
  if (!answer.ok) {
    dialog.showErrorBox('Fairground', `Cannot open ${path}: ${answer.error.message}`);
    return;
  }
  for (const w of windows) w.webContents.reload();
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(mainWindowOptions(preloadPath, nativeTheme.shouldUseDarkColors, !app.isPackaged));
  windows.add(win);
  guardContents(win.webContents, (url) => void shell.openExternal(url));
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => windows.delete(win));
  void win.loadURL(APP_INDEX_URL);
  return win;
}

async function start(): Promise<void> {
  await app.whenReady();
  guardSession(session.defaultSession);
  protocol.handle(APP_SCHEME, async (request) => {
    const answer = appResponse(request.url, request.method, rendererRoot);
    if (answer.status !== 200) return new Response(null, { status: answer.status, headers: answer.headers });
    const res = await net.fetch(pathToFileURL(answer.file).href);
    return new Response(request.method === 'HEAD' ? null : res.body, { status: 200, headers: answer.headers });
  });

  const nativeBinding = chooseNativeBinding(process.versions, appRoot, process.resourcesPath) as string;
  // Remote API keys sealed with the OS keychain (issue 17 item 8).
  const keychain: OsCipher | null = chooseKeychain(safeStorage, process.platform);
  const onInternalError = (err: unknown) => console.error('internal error', err);
  const workspacePath = workspaceArg();

  // The window first, the workspace behind it (issue 25 item 2; the order is shellStartup.ts's).
  host = startShell({
    workspacePath,
    wire: (h) => {
      registerIpc({
        ipcMain,
        router: h.router,
        events: h.events,
        isOurContents: (sender) => isOurContents(windows, sender),
        grant: (path, kind) => h.grant(path, kind),
        targets: () => [...windows].map((w) => w.webContents),
        pickFile: async (sender, request) => {
          const win = BrowserWindow.fromWebContents(sender as WebContents);
          // A file, or a folder that becomes an allowed folder (Settings → Add folder…, issue 26).
          const options = openDialogOptions(request);
          const result = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
          return result.canceled ? null : (result.filePaths[0] ?? null);
        },
      });
      Menu.setApplicationMenu(
        Menu.buildFromTemplate(
          menuTemplate(process.platform, (screen) => {
            const win = BrowserWindow.getFocusedWindow() ?? [...windows][0];
            void win?.webContents.executeJavaScript(`window.location.hash = '#/${screen}'`);
          }),
        ),
      );
      app.on('activate', () => {
        if (windows.size === 0) createWindow();
      });
      openRequests.attach((path) => void openRequested(h, path));
    },
    showWindow: () => void createWindow(),
    // The services load only now, after the window is up.
    startHost: async () => {
      if (process.argv.includes('--in-process')) {
        const [{ inProcessSessionHost }, { WorkspaceSession }, { createAppServices }, { createApiRouter }, { SecretStore }] = await Promise.all([
          import('../host/serviceHost'),
          import('../services/workspaces/workspaceSession'),
          import('../services/appServices'),
          import('../handlers/index'),
          import('../services/secrets'),
        ]);
        const secrets = new SecretStore(keychain);
        return inProcessSessionHost(
          WorkspaceSession.open(workspacePath, {
            open: (path) => createAppServices(path, { transport: 'electron', nativeBinding, secrets }),
            routerFor: (s, switcher) => createApiRouter(s, onInternalError, switcher),
          }),
        );
      }
      const { startServiceHost } = await import('../host/hostClient');
      return startServiceHost({
        workspacePath,
        transport: 'electron',
        nativeBinding,
        ...(keychain ? { osCipher: keychain } : {}),
        engineSpawner,
        onInternalError,
        // Reported, not fatal: the windows stay and every API call answers an error saying to restart.
        onExit: (reason) => {
          console.error(`the services host stopped: ${reason}`);
          dialog.showErrorBox('Fairground', `The background services stopped (${reason}). Your work so far is saved; restart Fairground to go on.`);
        },
      });
    },
    demo: !process.argv.includes('--no-demo'),
    onDemoLog: (m) => console.log(m),
    // The window says why (app.startup 'failed'); the log too.
    onFailed: (err) => console.error(`Fairground could not open ${workspacePath}: ${err.message}`),
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('will-quit', (event) => {
  if (!host) return;
  event.preventDefault();
  const h = host;
  host = undefined;
  void h.close().finally(() => app.quit());
});

if (primary) {
  void start().catch((err: unknown) => {
    console.error(`Fairground could not start: ${(err as Error).message}`);
    app.exit(1);
  });
}

