/**
 * The client of the service host: starts hostMain in a worker thread and gives the transports a
 * ServiceHost whose router, events and grants are answered there. The thread that serves HTTP or
 * IPC only passes messages, so it stays responsive while the host commits a large import.
 *
 * Failures: an error inside a call is the router's API error, as in-process. A host that stops
 * without being asked (an uncaught exception, a native crash of the thread) is reported through
 * `onExit`, every pending call answers an `internal` error naming why, and later calls answer the
 * same at once: nothing waits forever. `close()` asks the host to cancel its jobs and close the
 * workspace, and ends the thread after `closeGraceMs` if it has not finished.
 */
import { Worker } from 'node:worker_threads';
import type { Envelope } from '../api/contract/index';
import type { Router } from '../api/router';
import type { WorkerSpawner } from '../engine/local/workerChild';
import { EventBus } from '../services/eventBus';
import type { OsCipher } from '../services/secrets';
import { engineRelay } from './engineRelay';
import { resolveHostEntry } from './hostEntry';
import { answerCipher, cipherBuffers } from './osCipherProxy';
import { fromHostError, type FromHost, type HostInit, type ToHost } from './protocol';
import type { ServiceHost } from './serviceHost';

export interface ServiceHostOptions {
  workspacePath: string;
  transport: 'electron' | 'http';
  nativeBinding?: string;
  logFolder?: string;
  /** The OS keychain (Electron's safeStorage), used by the host through osCipherProxy.ts. */
  osCipher?: OsCipher;
  /** Start the host's engine workers here (Electron: utility processes) instead of in the host. */
  engineSpawner?: WorkerSpawner;
  /** An API call failed with an internal error (its stack, from the host). */
  onInternalError?: (err: Error) => void;
  /** The host stopped without being asked to; `reason` says how. */
  onExit?: (reason: string) => void;
  /** The worker script (tests); default: resolveHostEntry(). */
  entry?: string;
  /** How long close() waits for the host to cancel its jobs and close the workspace (default 15 s). */
  closeGraceMs?: number;
}

export interface HostedServices extends ServiceHost {
  /** Ends the host's thread at once (a second Ctrl-C); pending calls answer an error. */
  kill(): Promise<void>;
  /** Null while the host runs; why it stopped otherwise. */
  readonly stopped: string | null;
}

type Pending = { resolve: (v: never) => void; reject: (err: Error) => void; kind: 'call' | 'grant' | 'demo' };

export async function startServiceHost(options: ServiceHostOptions): Promise<HostedServices> {
  const entry = resolveHostEntry(options.entry);
  const cipher = options.osCipher ? cipherBuffers() : undefined;
  const init: HostInit = {
    workspacePath: options.workspacePath,
    transport: options.transport,
    ...(options.nativeBinding !== undefined ? { nativeBinding: options.nativeBinding } : {}),
    ...(options.logFolder !== undefined ? { logFolder: options.logFolder } : {}),
    ...(cipher ? { cipher } : {}),
    ...(options.engineSpawner ? { relayEngine: true } : {}),
  };
  const worker = new Worker(entry.script, { eval: entry.eval, workerData: init, name: 'fairground-services' });
  const send = (m: ToHost): void => worker.postMessage(m);
  const relay = options.engineSpawner ? engineRelay(options.engineSpawner, send) : undefined;
  const events = new EventBus();
  const pending = new Map<number, Pending>();
  const demoLogs: ((m: string) => void)[] = [];
  let nextId = 1;
  let stopped: string | null = null;
  let closing = false;
  let workspacePath = options.workspacePath;
  let onClosed: (() => void) | undefined;
  let closed: Promise<void> | undefined;

  const ready = new Promise<void>((resolve, reject) => {
    const stop = (reason: string, err?: Error): void => {
      if (stopped !== null) return;
      stopped = reason;
      relay?.killAll();
      reject(err ?? new Error(`the services host stopped before it was ready: ${reason}`));
      for (const [id, p] of pending) {
        pending.delete(id);
        if (p.kind === 'call') (p.resolve as (v: Envelope<unknown>) => void)({ ok: false, error: { code: 'internal', message: `the services host stopped (${reason}); restart Fairground` } });
        else p.reject(new Error(`the services host stopped (${reason})`));
      }
      onClosed?.();
      if (!closing) options.onExit?.(reason);
    };
    worker.on('message', (m: FromHost) => {
      switch (m.type) {
        case 'ready':
          workspacePath = m.workspacePath;
          resolve();
          return;
        case 'startFailed':
          closing = true; // not a crash: the caller gets the error
          stop(`could not open the workspace: ${m.error.message}`, fromHostError(m.error));
          void worker.terminate();
          return;
        case 'result':
        case 'granted':
        case 'done':
        case 'failed': {
          const p = pending.get(m.id);
          if (!p) return;
          pending.delete(m.id);
          if (m.type === 'failed') p.reject(fromHostError(m.error));
          else (p.resolve as (v: unknown) => void)(m.type === 'result' ? m.envelope : m.type === 'granted' ? m.path : undefined);
          return;
        }
        case 'event':
          events.emit(m.event.event, m.event.payload);
          return;
        case 'internalError': {
          const err = new Error(m.stack.split('\n')[0] ?? m.stack);
          err.stack = m.stack;
          options.onInternalError?.(err);
          return;
        }
        case 'demoLog':
          for (const l of demoLogs) l(m.message);
          return;
        case 'closed':
          void worker.terminate();
          return;
        case 'cipher':
          if (cipher && options.osCipher) answerCipher(cipher, options.osCipher, m.op, m.input);
          return;
        default:
          relay?.handle(m);
      }
    });
    worker.on('error', (err) => stop(`${err.name}: ${err.message}`));
    worker.on('exit', (code) => stop(closing ? 'closed' : `its thread exited with code ${code}`));
  });
  await ready;

  const request = <T>(kind: Pending['kind'], make: (id: number) => ToHost): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (stopped !== null) {
        if (kind === 'call') return (resolve as (v: Envelope<unknown>) => void)({ ok: false, error: { code: 'internal', message: `the services host stopped (${stopped}); restart Fairground` } });
        return reject(new Error(`the services host stopped (${stopped})`));
      }
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: never) => void, reject, kind });
      send(make(id));
    });

  const router: Router = { call: (method, input) => request<Envelope<unknown>>('call', (id) => ({ type: 'call', id, method, input })) };

  return {
    router,
    events,
    get workspacePath() {
      return workspacePath;
    },
    get stopped() {
      return stopped;
    },
    grant: (path, kind) => request<string>('grant', (id) => ({ type: 'grant', id, path, ...(kind ? { kind } : {}) })),
    async ensureDemo(log) {
      demoLogs.push(log);
      try {
        await request<void>('demo', (id) => ({ type: 'ensureDemo', id }));
      } finally {
        demoLogs.splice(demoLogs.indexOf(log), 1);
      }
    },
    close() {
      if (stopped !== null) return Promise.resolve();
      if (!closed) {
        closing = true;
        closed = new Promise<void>((r) => (onClosed = r));
        send({ type: 'close' });
        const timer = setTimeout(() => void worker.terminate(), options.closeGraceMs ?? 15_000);
        void closed.then(() => clearTimeout(timer));
      }
      return closed;
    },
    kill() {
      if (stopped !== null) return Promise.resolve();
      closing = true;
      closed ??= new Promise<void>((r) => (onClosed = r));
      void worker.terminate();
      return closed;
    },
  };
}
