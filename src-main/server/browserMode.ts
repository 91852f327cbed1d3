/**
 * Browser mode as one call: open the workspace, wire services, API router and the HTTP server.
 * Used by `fairground serve`, `npm run serve`, `npm start` without Electron, and the e2e tests.
 *
 * Two shapes (issue 17 item 6):
 * - startHostedBrowserMode: the services and SQLite run in a worker thread (src-main/host); this
 *   thread only serves HTTP/WebSocket, so a long import's commits never stall it. What the app runs.
 * - startBrowserMode: everything in this thread, with the services at hand (`services`): the CLI's
 *   `--in-process`, tests that reach into the services, and the bench's baseline.
 */
import { createAppServices, type AppServices } from '../services/appServices';
import { RotatingLog } from '../services/logging/rotatingLog';
import { startServiceHost, type HostedServices } from '../host/hostClient';
import { inProcessSessionHost, type ServiceHost } from '../host/serviceHost';
import { createApiRouter } from '../handlers/index';
import { userFoldersFile } from '../services/workspaces/userFolders';
import { WorkspaceSession } from '../services/workspaces/workspaceSession';
import { httpServerOptions, serviceHostOptions, type BrowserModeOptions, type HostedBrowserModeOptions } from './hostedOptions';
import { startHttpServer, type RunningServer } from './httpServer';

/** What `fairground serve` needs of either shape. */
export interface ServedApp {
  host: ServiceHost;
  server: RunningServer;
  close(): Promise<void>;
}

export interface BrowserMode extends ServedApp {
  services: AppServices;
}

export interface HostedBrowserMode extends ServedApp {
  host: HostedServices;
}

export async function startBrowserMode(options: BrowserModeOptions): Promise<BrowserMode> {
  const log = options.logFolder !== undefined ? new RotatingLog(options.logFolder) : undefined;
  const onInternalError = (err: unknown): void => {
    log?.write('error', 'api', (err as Error).stack ?? String(err));
    options.onInternalError?.(err);
  };
  // Switchable without restarting (workspaces.open/create): `services` is always the open workspace's.
  const session = WorkspaceSession.open(options.workspacePath, {
    open: (path) => createAppServices(path, { transport: 'http', userFoldersFile: userFoldersFile(), ...(log ? { log } : {}) }),
    routerFor: (s, switcher) => createApiRouter(s, onInternalError, switcher),
  });
  try {
    const host = inProcessSessionHost(session);
    const server = await serve(host, options);
    return {
      get services() {
        return session.services;
      },
      host,
      server,
      async close() {
        await server.close();
        await session.close();
      },
    };
  } catch (err) {
    await session.close();
    throw err;
  }
}

export async function startHostedBrowserMode(options: HostedBrowserModeOptions): Promise<HostedBrowserMode> {
  const host = await startServiceHost(serviceHostOptions(options));
  try {
    const server = await serve(host, options);
    return {
      host,
      server,
      async close() {
        await server.close();
        await host.close();
      },
    };
  } catch (err) {
    await host.close();
    throw err;
  }
}

function serve(host: ServiceHost, options: BrowserModeOptions): Promise<RunningServer> {
  return startHttpServer(httpServerOptions(host, options));
}
