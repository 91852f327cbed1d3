/**
 * Browser mode as `fairground serve` runs it (issue 25 item 2): the HTTP server listens and serves
 * the app page first; then the services host starts in its worker thread, opens the workspace
 * (quick_check, migrations) and sets up the demo, while the page shows "Opening workspace…" and
 * the step (`app.startup`, answered by openingHost.ts). API calls made meanwhile wait for the
 * workspace; if it cannot be opened they answer why, and `opened` rejects with the error.
 *
 * This module loads only the HTTP server and the host's client: the services, SQLite and the API
 * handlers load in the host's thread, after the server is up.
 */
import { openingHost, type OpeningHost } from '../host/openingHost';
import { openBehindFirstScreen } from '../host/openingSteps';
import type { ServiceHost } from '../host/serviceHost';
import type { ServedApp } from './browserMode';
import { httpServerOptions, serviceHostOptions, type HostedBrowserModeOptions } from './hostedOptions';
import { startHttpServer, type RunningServer } from './httpServer';

export interface OpeningBrowserModeOptions extends HostedBrowserModeOptions {
  /** Set up the demo (tiny model, collection, conversations) before API calls are answered. */
  demo: boolean;
  /** The demo set-up's messages (serve prints them). */
  onDemoLog?: (message: string) => void;
  /** Runs inside the opening, before the host starts (tests hold the opening here). */
  beforeOpen?: () => Promise<void>;
}

export interface OpeningBrowserMode extends ServedApp {
  host: OpeningHost;
  /** Resolves when the workspace is open and set up; rejects with why it could not be. */
  opened: Promise<ServiceHost>;
}

export async function startOpeningBrowserMode(options: OpeningBrowserModeOptions): Promise<OpeningBrowserMode> {
  let listening: () => void = () => {};
  let notListening: (err: Error) => void = () => {};
  const up = new Promise<void>((resolve, reject) => {
    listening = resolve;
    notListening = reject;
  });
  const host = openingHost(options.workspacePath, async (ctx) => {
    await up;
    await options.beforeOpen?.();
    await openBehindFirstScreen(ctx, {
      start: async () => {
        const { startServiceHost } = await import('../host/hostClient');
        return startServiceHost(serviceHostOptions(options));
      },
      demo: options.demo,
      ...(options.onDemoLog ? { onDemoLog: options.onDemoLog } : {}),
    });
  });
  let server: RunningServer;
  try {
    server = await startHttpServer(httpServerOptions(host, options));
  } catch (err) {
    notListening(err as Error);
    await host.close();
    throw err;
  }
  listening();
  return {
    host,
    server,
    opened: host.opened,
    async close() {
      await server.close();
      await host.close();
    },
  };
}
