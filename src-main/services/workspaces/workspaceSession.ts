/**
 * The open workspace of a running app, switchable without restarting (issue 17 item 5): New, Open
 * and Recent. The session owns the current AppServices and presents a stable router and event bus to
 * the transports (HTTP/WebSocket, Electron IPC), so a switch is invisible to them: requests go to the
 * services of the workspace open now, events of the old workspace stop and the new one's flow.
 *
 * A switch opens the new workspace first (any failure leaves the current one open and untouched),
 * then closes the old one. It is refused while jobs of this workspace are running (cancel or let them
 * finish: they resume where they stopped the next time that workspace is open). Paths follow the
 * API's file policy (issue 15 item 3): Open names an existing file the transport may read (a grant
 * in Electron, an allowed folder in browser mode); New names a `.fairground` file to create in a
 * folder it may write. Every workspace opened is put first in the app's recent list.
 */
import { isAbsolute, resolve } from 'node:path';
import { ApiFailure, type Router } from '../../api/router';
import type { AppServices } from '../appServices';
import { EventBus } from '../eventBus';
import { RecentWorkspaces, workspaceName, type RecentWorkspace } from './recentWorkspaces';

export interface WorkspaceSwitcher {
  current(): { path: string; name: string };
  recent(): RecentWorkspace[];
  forget(path: string): RecentWorkspace[];
  open(path: string): Promise<{ path: string; name: string }>;
  create(path: string): Promise<{ path: string; name: string }>;
}

export interface WorkspaceSessionOptions {
  /** Open (or create) the services of a workspace file. */
  open: (path: string) => AppServices;
  /** The API router over one workspace's services (with this session as its switcher). */
  routerFor: (services: AppServices, switcher: WorkspaceSwitcher) => Router;
  /** Runs after a workspace is opened (e.g. the demo for the first workspace); `created` for New. */
  onOpened?: (services: AppServices, created: boolean) => Promise<void>;
  recent?: RecentWorkspaces;
}

export class WorkspaceSession implements WorkspaceSwitcher {
  /** Stable for the transports: forwards the current workspace's events. */
  readonly events = new EventBus();
  /** Stable for the transports: calls the current workspace's router. */
  readonly router: Router;
  private currentServices: AppServices;
  private currentRouter: Router;
  private unsubscribe: () => void;
  private switching = false;
  private readonly recentList: RecentWorkspaces;

  private constructor(
    private readonly options: WorkspaceSessionOptions,
    services: AppServices,
  ) {
    this.recentList = options.recent ?? new RecentWorkspaces();
    this.currentServices = services;
    this.currentRouter = options.routerFor(services, this);
    this.unsubscribe = services.events.subscribe((e) => this.events.emit(e.event, e.payload as never));
    this.router = { call: (method, input) => this.currentRouter.call(method, input) };
  }

  /** Open the first workspace (without `onOpened`: the caller sets it up, e.g. the demo on request). */
  static open(path: string, options: WorkspaceSessionOptions): WorkspaceSession {
    const session = new WorkspaceSession(options, options.open(path));
    session.remember(session.currentServices.workspace.path);
    return session;
  }

  static async start(path: string, options: WorkspaceSessionOptions): Promise<WorkspaceSession> {
    const services = options.open(path);
    try {
      await options.onOpened?.(services, false);
    } catch (err) {
      await services.close();
      throw err;
    }
    const session = new WorkspaceSession(options, services);
    session.remember(services.workspace.path);
    return session;
  }

  get services(): AppServices {
    return this.currentServices;
  }

  current(): { path: string; name: string } {
    const path = this.currentServices.workspace.path;
    return { path, name: workspaceName(path) };
  }

  recent(): RecentWorkspace[] {
    return this.recentList.list();
  }

  forget(path: string): RecentWorkspace[] {
    return this.recentList.remove(path);
  }

  async open(path: string): Promise<{ path: string; name: string }> {
    // A workspace the user opened before (Settings → Recent) reopens wherever it is: the recent list
    // is the app's own (config folder), not a request's (issue 26 item 3). Any other path follows
    // the file policy.
    const real = this.isRecent(path) ? this.currentServices.paths.grant(path) : this.currentServices.paths.checkFile(path, 'path');
    if (real === this.currentServices.workspace.path) return this.current();
    return this.switchTo(real, false);
  }

  async create(path: string): Promise<{ path: string; name: string }> {
    if (!/\.fairground$/i.test(path)) throw new ApiFailure('validation', `path: a workspace file ends in .fairground, got '${path}'`, 'path');
    const target = this.currentServices.paths.checkNewFile(path, 'path');
    return this.switchTo(target, true);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.currentServices.close();
  }

  private async switchTo(path: string, created: boolean): Promise<{ path: string; name: string }> {
    if (this.switching) throw new ApiFailure('conflict', 'another workspace is being opened');
    const running = this.currentServices.jobs.list(undefined, 100).filter((j) => j.status === 'running' || j.status === 'queued');
    if (running.length > 0) {
      throw new ApiFailure(
        'conflict',
        `${running.length} job(s) are running in this workspace (${running.map((j) => `'${j.title}'`).join(', ')}); cancel them or wait before switching — they resume the next time it is open`,
      );
    }
    this.switching = true;
    try {
      const next = this.options.open(path);
      try {
        await this.options.onOpened?.(next, created);
      } catch (err) {
        await next.close();
        throw err;
      }
      const old = this.currentServices;
      this.unsubscribe();
      this.currentServices = next;
      this.currentRouter = this.options.routerFor(next, this);
      this.unsubscribe = next.events.subscribe((e) => this.events.emit(e.event, e.payload as never));
      await old.close();
      this.remember(next.workspace.path);
      return this.current();
    } finally {
      this.switching = false;
    }
  }

  private isRecent(path: string): boolean {
    if (!isAbsolute(path)) return false;
    const abs = resolve(path);
    return this.recentList.list().some((r) => r.path === abs);
  }

  private remember(path: string): void {
    if (path === ':memory:') return;
    try {
      this.recentList.touch(path);
    } catch {
      // The recent list is a convenience: an unwritable config folder must not stop the app.
    }
  }
}
