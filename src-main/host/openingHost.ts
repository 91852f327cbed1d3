/**
 * Issue 25 item 2: the shell first, the workspace behind it. `fairground serve` listens and serves
 * the app page at once, while the services host starts, opens the workspace (quick_check,
 * migrations) and sets up the demo. This is the ServiceHost the HTTP server gets meanwhile:
 *
 * - `app.startup` is answered here, at once, with the step the opening is at (the app shows
 *   "Opening workspace…" and that step until it says `ready`);
 * - every other API call, grant and demo request waits until the workspace is open and set up,
 *   then goes to the real host; if opening failed, each answers a `workspace` error naming why;
 * - events of the real host are forwarded from the moment it starts;
 * - close() waits for a start in progress, then closes what it started.
 *
 * Imports nothing heavy: the services load in the host's own thread.
 */
import type { Envelope } from '../api/contract/index';
import type { Router } from '../api/router';
import { EventBus } from '../services/eventBus';
import type { ServiceHost } from './serviceHost';

export interface StartupState {
  state: 'opening' | 'ready' | 'failed';
  /** What the opening is doing now (or did last). */
  step: string;
  /** Milliseconds since the opening began (its whole duration once it is done). */
  elapsedMs: number;
  /** Why the workspace could not be opened (state 'failed'). */
  error?: string;
}

export interface OpeningContext {
  /** The host is running (its events flow from now on; close() closes it). */
  started(host: ServiceHost): void;
  /** Progress shown by `app.startup`. */
  step(step: string): void;
}

export interface OpeningHost extends ServiceHost {
  readonly startup: StartupState;
  /** Resolves once the workspace is open and set up; rejects with why it could not be. */
  readonly opened: Promise<ServiceHost>;
}

export function openingHost(workspacePath: string, open: (ctx: OpeningContext) => Promise<void>, now: () => number = () => performance.now()): OpeningHost {
  const events = new EventBus();
  const began = now();
  let inner: ServiceHost | undefined;
  let state: StartupState['state'] = 'opening';
  let step = 'starting the services';
  let error: string | undefined;
  let doneAt: number | undefined;
  let closing: Promise<void> | undefined;
  let markStarted: () => void = () => {};
  /** Settles when the host has started or the opening has ended (either way). */
  const startSettled = new Promise<void>((r) => (markStarted = r));

  const opened: Promise<ServiceHost> = (async () => {
    await open({
      started(host) {
        inner = host;
        markStarted();
        host.events.subscribe((e) => events.emit(e.event, e.payload as never));
      },
      step(s) {
        step = s;
      },
    });
    if (!inner) throw new Error('the services host did not start');
    return inner;
  })().then(
    (host) => {
      state = 'ready';
      step = 'ready';
      doneAt = now();
      return host;
    },
    (err: unknown) => {
      state = 'failed';
      error = (err as Error)?.message ?? String(err);
      doneAt = now();
      throw err;
    },
  );
  // Callers that never wait (the page only polls app.startup) must not see an unhandled rejection.
  opened.catch(() => {});
  void opened.then(markStarted, markStarted);

  const startup = (): StartupState => ({ state, step, elapsedMs: Math.round((doneAt ?? now()) - began), ...(error !== undefined ? { error } : {}) });

  const router: Router = {
    async call(method, input) {
      if (method === 'app.startup') return { ok: true, data: startup() } as Envelope<unknown>;
      let host: ServiceHost;
      try {
        host = await opened;
      } catch {
        return { ok: false, error: { code: 'workspace', message: `the workspace could not be opened: ${error ?? 'unknown error'}` } };
      }
      return host.router.call(method, input);
    },
  };

  return {
    router,
    events,
    get startup() {
      return startup();
    },
    opened,
    get workspacePath() {
      return inner?.workspacePath ?? workspacePath;
    },
    grant: async (path, kind) => (await opened).grant(path, kind),
    ensureDemo: async (log) => (await opened).ensureDemo(log),
    close() {
      closing ??= (async () => {
        // A start in progress finishes (or fails) first: a half-started host is never left running.
        // A host that started but whose demo set-up is still running is closed at once (its jobs are cancelled).
        await startSettled;
        await inner?.close();
      })();
      return closing;
    },
  };
}
