/**
 * The service host: one open workspace's services, the API router and the event stream, run on a
 * thread of their own (issue 17 item 6) so that SQLite commits, imports, metrics and exports never
 * stall the thread that serves windows, menus, IPC and HTTP. The client (hostClient.ts) sends API
 * calls, path grants and the demo set-up; the host answers each with the router's envelope and
 * forwards every event. Transport-neutral: hostMain.ts binds it to a worker thread's port.
 */
import { createApiRouter } from '../handlers/index';
import { setWorkerSpawner } from '../engine/local/workerChild';
import { createAppServices, type AppServices } from '../services/appServices';
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
  let services: AppServices;
  try {
    services = createAppServices(init.workspacePath, {
      transport: init.transport,
      ...(init.nativeBinding !== undefined ? { nativeBinding: init.nativeBinding } : {}),
      ...(log ? { log } : {}),
      ...(init.cipher ? { secrets: new SecretStore(proxiedCipher(init.cipher, post)) } : {}),
    });
  } catch (err) {
    post({ type: 'startFailed', error: toHostError(err) });
    return;
  }
  const router = createApiRouter(services, (err) => {
    const stack = (err as Error)?.stack ?? String(err);
    log?.write('error', 'api', stack);
    post({ type: 'internalError', stack });
  });
  services.events.subscribe((event) => post({ type: 'event', event }));
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
          post({ type: 'granted', id: m.id, path: services.paths.grant(m.path) });
        } catch (err) {
          post({ type: 'failed', id: m.id, error: toHostError(err) });
        }
        return;
      case 'ensureDemo':
        ensureDemo(services, (message) => post({ type: 'demoLog', message })).then(
          () => post({ type: 'done', id: m.id }),
          (err: unknown) => post({ type: 'failed', id: m.id, error: toHostError(err) }),
        );
        return;
      case 'close':
        if (closing) return;
        closing = true;
        // Running jobs are cancelled and awaited (their work so far is kept and resumable).
        void services.close().then(
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
  post({ type: 'ready', workspacePath: services.workspace.path });
}
