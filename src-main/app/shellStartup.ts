/**
 * The desktop shell's start-up order (issue 25 item 2), out of main.ts so it is tested without the
 * Electron binary (as shellSetup.ts): the window first, the workspace behind it, as browser mode
 * does (server/openingBrowserMode.ts).
 *
 * 1. IPC is wired to an opening host (host/openingHost.ts): `app.startup` is answered at once with
 *    the opening's step; every other call waits for the workspace.
 * 2. The window opens; its page shows "Opening workspace…" and the step.
 * 3. Only then does the services host start: it opens the workspace (quick_check, migrations), then
 *    the demo is set up unless turned off. A failure is shown in the window (`app.startup` says
 *    'failed' and why) and handed to `onFailed`; the window stays.
 *
 * Nothing here loads the services: `startHost` does, after the window is shown.
 */
import { openingHost, type OpeningHost } from '../host/openingHost';
import { openBehindFirstScreen } from '../host/openingSteps';
import type { ServiceHost } from '../host/serviceHost';

export interface ShellStartup {
  workspacePath: string;
  /** Wire IPC (and the menu, open requests) to the host the window talks to. */
  wire: (host: OpeningHost) => void;
  /** Open the first window. */
  showWindow: () => void;
  /** Start the services host on `workspacePath` (it opens the workspace). */
  startHost: () => Promise<ServiceHost>;
  /** Set up the demo after the workspace opens (`--no-demo` turns it off). */
  demo: boolean;
  onDemoLog?: (message: string) => void;
  /** The workspace could not be opened (or the demo set up). */
  onFailed?: (err: Error) => void;
}

/** Runs the start-up in that order; returns the host at once (close it on quit: it waits for a start in progress). */
export function startShell(s: ShellStartup): OpeningHost {
  let windowShown: () => void = () => {};
  let noWindow: (err: unknown) => void = () => {};
  const shown = new Promise<void>((resolve, reject) => {
    windowShown = resolve;
    noWindow = reject;
  });
  const host = openingHost(s.workspacePath, async (ctx) => {
    await shown;
    await openBehindFirstScreen(ctx, { start: s.startHost, demo: s.demo, ...(s.onDemoLog ? { onDemoLog: s.onDemoLog } : {}) });
  });
  host.opened.catch((err: unknown) => s.onFailed?.(err instanceof Error ? err : new Error(String(err))));
  try {
    s.wire(host);
    s.showWindow();
  } catch (err) {
    // No window: the services host is never started (the opening ends with this error).
    noWindow(err);
    throw err;
  }
  windowShown();
  return host;
}
