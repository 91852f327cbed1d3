/**
 * The service host: one open workspace's services, the API router and the event stream, run on a
 * thread of their own (issue 17 item 6) so that SQLite commits, imports, metrics and exports never
 * stall the thread that serves windows, menus, IPC and HTTP. The client (hostClient.ts) sends API
 * calls, path grants and the demo set-up; the host answers each with the router's envelope and
 * forwards every event. Transport-neutral: hostMain.ts binds it to a worker thread's port.
 */
import { createApiRouter } from '../handlers/index';
import { setWorkerSpawner } from '../engine/local/workerChild';
import { createAppServices } from '../services/appServices';
import { userFoldersFile } from '../services/workspaces/userFolders';
import { WorkspaceSession } from '../services/workspaces/workspaceSession';
import { ensureDemo } from '../services/demoSetup';
import { RotatingLog } from '../services/logging/rotatingLog';
import { SecretStore } from '../services/secrets';
import { relaySpawner } from './engineRelay';
import { proxiedCipher } from './osCipherProxy';
import { toHostError, type FromHost, type HostInit, type ToHost } from './protocol';

export interface HostPort {
  post(message: FromHost): void;
  onMessage(listener: (message: ToHost) => void): void;
}

export function runServiceHost(port: HostPort, init: HostInit): void {
  const post = (m: FromHost): void => port.post(m);
  const relay = init.relayEngine ? relaySpawner(post) : undefined;
  if (relay) setWorkerSpawner(relay.spawner);
  const log = init.logFolder !== undefined ? new RotatingLog(init.logFolder) : undefined;
  const secrets = init.cipher ? new SecretStore(proxiedCipher(init.cipher, post)) : undefined;
  const onInternalError = (err: unknown): void => {
    const stack = (err as Error)?.stack ?? String(err);
    log?.write('error', 'api', stack);
    post({ type: 'internalError', stack });
  };
  // The open workspace, switchable without restarting (workspaces.open/create, issue 17 item 5).
  let session: WorkspaceSession;
  try {
    session = WorkspaceSession.open(init.workspacePath, {
      open: (path) =>
        createAppServices(path, {
          transport: init.transport,
          userFoldersFile: userFoldersFile(),
          ...(init.nativeBinding !== undefined ? { nativeBinding: init.nativeBinding } : {}),
          ...(log ? { log } : {}),
          ...(secrets ? { secrets } : {}),
        }),
      routerFor: (s, switcher) => createApiRouter(s, onInternalError, switcher),
    });
  } catch (err) {
    post({ type: 'startFailed', error: toHostError(err) });
    return;
  }
  const router = session.router;
  session.events.subscribe((event) => post({ type: 'event', event }));
  let closing = false;

  port.onMessage((m) => {
    switch (m.type) {
      case 'call':
        void router.call(m.method, m.input).then((envelope) => {
          try {
            post({ type: 'result', id: m.id, envelope });
          } catch (err) {
            // Not structured-clone data (a contract output never is that): an API error, not a hang.
            post({ type: 'result', id: m.id, envelope: { ok: false, error: { code: 'internal', message: `${m.method}: the answer could not be sent (${(err as Error).message})` } } });
          }
        });
        return;
      case 'grant':
        try {
          post({ type: 'granted', id: m.id, path: m.kind === 'folder' ? session.services.paths.grantFolder(m.path) : session.services.paths.grant(m.path) });
        } catch (err) {
          post({ type: 'failed', id: m.id, error: toHostError(err) });
        }
        return;
      case 'ensureDemo':
        ensureDemo(session.services, (message) => post({ type: 'demoLog', message })).then(
          () => post({ type: 'done', id: m.id }),
          (err: unknown) => post({ type: 'failed', id: m.id, error: toHostError(err) }),
        );
        return;
      case 'close':
        if (closing) return;
        closing = true;
        // Running jobs are cancelled and awaited (their work so far is kept and resumable).
        void session.close().then(
          () => post({ type: 'closed' }),
          (err: unknown) => {
            log?.write('error', 'app', `closing the workspace failed: ${(err as Error)?.stack ?? String(err)}`);
            post({ type: 'closed' });
          },
        );
        return;
      default:
        relay?.deliver(m);
    }
  });
  post({ type: 'ready', workspacePath: session.services.workspace.path });
}
