/**
 * What both hosted browser modes (browserMode.ts `startHostedBrowserMode`, openingBrowserMode.ts)
 * hand to the services host and to the HTTP server, in one place. Types only from the host's client
 * and the server: this module loads nothing heavy (the opening mode must serve the page first).
 * The options of both modes are declared here, so that browserMode.ts and this file import each
 * other in one direction only.
 */
import type { ServiceHostOptions } from '../host/hostClient';
import type { ServiceHost } from '../host/serviceHost';
import { rendererDir } from '../services/packagePaths';
import type { HttpServerOptions } from './httpServer';

export interface BrowserModeOptions {
  workspacePath: string;
  port?: number;
  token?: string;
  staticDir?: string;
  onInternalError?: (err: unknown) => void;
  /** Write the app's log file here (issue 17 item 7); none when left out. */
  logFolder?: string;
}

export interface HostedBrowserModeOptions extends BrowserModeOptions {
  /** The services host stopped without being asked (a crash); API calls answer errors from then on. */
  onHostExit?: (reason: string) => void;
  /** How long close() waits for running jobs to be cancelled before ending the host (default 15 s). */
  closeGraceMs?: number;
}

/** The services host's options: API errors to `onInternalError`, a host that stops by itself to `onHostExit` (else as an internal error). */
export function serviceHostOptions(options: HostedBrowserModeOptions): ServiceHostOptions {
  return {
    workspacePath: options.workspacePath,
    transport: 'http',
    ...(options.logFolder !== undefined ? { logFolder: options.logFolder } : {}),
    ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
    // The host writes API errors to the log file itself.
    onInternalError: (err) => options.onInternalError?.(err),
    onExit: (reason) => {
      if (options.onHostExit) options.onHostExit(reason);
      else options.onInternalError?.(new Error(`the services host stopped: ${reason}`));
    },
  };
}

/** The HTTP server's options for serving `host` (the renderer's build unless `staticDir`). */
export function httpServerOptions(host: Pick<ServiceHost, 'router' | 'events'>, options: BrowserModeOptions): HttpServerOptions {
  return {
    router: host.router,
    events: host.events,
    staticDir: options.staticDir ?? rendererDir(),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  };
}
