/**
 * What a transport (the HTTP/WebSocket server, Electron's IPC bridge) needs of the services: the
 * API router, the event stream, path grants and the first-start demo. Two implementations: the
 * services on a thread of their own (hostClient.ts, what the app runs) and in the caller's thread
 * (inProcessSessionHost below: the CLI's `--in-process`, tests that reach into the services, and the
 * bench's baseline).
 */
import type { Router } from '../api/router';
import type { GrantKind } from './protocol';
import { ensureDemo } from '../services/demoSetup';
import type { EventBus } from '../services/eventBus';
import type { WorkspaceSession } from '../services/workspaces/workspaceSession';

export interface ServiceHost {
  readonly router: Router;
  readonly events: EventBus;
  /** The open workspace's file (as the store resolved it). */
  readonly workspacePath: string;
  /**
   * Path grants (issue 15 item 3): the file becomes readable by API requests; its real path. With
   * kind 'folder' (issue 26: the desktop app's folder dialog) the folder becomes an allowed folder.
   * Only the shell calls this, for the user's own gesture: never an API request.
   */
  grant(path: string, kind?: GrantKind): Promise<string>;
  /** First start on a fresh workspace: the demo model, collection and conversations. */
  ensureDemo(log: (message: string) => void): Promise<void>;
  /** Cancels running jobs (resumable), then closes the workspace. */
  close(): Promise<void>;
}

/** In this thread, over a switchable workspace session (workspaces.open/create reach `session`). */
export function inProcessSessionHost(session: WorkspaceSession): ServiceHost {
  return {
    router: session.router,
    events: session.events,
    get workspacePath() {
      return session.services.workspace.path;
    },
    grant: async (path, kind) => (kind === 'folder' ? session.services.paths.grantFolder(path) : session.services.paths.grant(path)),
    ensureDemo: async (log) => void (await ensureDemo(session.services, log)),
    close: () => session.close(),
  };
}
