/**
 * Browser mode as one call: open the workspace, wire services, API router and the HTTP server.
 * Used by `fairground serve`, `npm run serve`, `npm start` without Electron, and the e2e tests.
 */
import { createApiRouter } from '../handlers/index';
import { createAppServices, type AppServices } from '../services/appServices';
import { rendererDir } from '../services/paths';
import { RotatingLog } from '../services/logging/rotatingLog';
import { startHttpServer, type RunningServer } from './httpServer';

export interface BrowserModeOptions {
  workspacePath: string;
  port?: number;
  token?: string;
  staticDir?: string;
  onInternalError?: (err: unknown) => void;
  /** Write the app's log file here (issue 17 item 7); none when left out. */
  logFolder?: string;
}

export interface BrowserMode {
  services: AppServices;
  server: RunningServer;
  close(): Promise<void>;
}

export async function startBrowserMode(options: BrowserModeOptions): Promise<BrowserMode> {
  const log = options.logFolder !== undefined ? new RotatingLog(options.logFolder) : undefined;
  const services = createAppServices(options.workspacePath, { transport: 'http', ...(log ? { log } : {}) });
  try {
    const router = createApiRouter(services, (err) => {
      log?.write('error', 'api', (err as Error).stack ?? String(err));
      options.onInternalError?.(err);
    });
    const server = await startHttpServer({
      router,
      events: services.events,
      staticDir: options.staticDir ?? rendererDir(),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.token !== undefined ? { token: options.token } : {}),
    });
    return {
      services,
      server,
      async close() {
        await server.close();
        await services.close();
      },
    };
  } catch (err) {
    await services.close();
    throw err;
  }
}
