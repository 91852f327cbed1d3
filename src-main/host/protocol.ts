/**
 * The messages between the service host (services + SQLite, off the UI thread) and its client (the
 * thread that serves HTTP/WebSocket in browser mode, or IPC in Electron's main process). Every
 * message is structured-clone data: API inputs are parsed JSON, envelopes are validated contract
 * outputs (plain data), events are the EventBus's plain payloads.
 */
import type { ApiEvent, Envelope } from '../api/contract/index';
import type { ParentMessage, WorkerMessage } from '../engine/local/protocol';
import type { WorkerLaunch } from '../engine/local/workerLaunch';

/**
 * What a grant gives (issue 26): `file` — that one file becomes readable (picked in a dialog,
 * dropped); `folder` — the folder becomes an allowed folder (the desktop app's folder dialog).
 */
export type GrantKind = 'file' | 'folder';

/** What the host is started with (the Worker's workerData). */
export interface HostInit {
  workspacePath: string;
  transport: 'electron' | 'http';
  /** The better-sqlite3 binary to load (Electron picks the one built for its ABI). */
  nativeBinding?: string;
  /** Write the app's log file here (issue 17 item 7); none when left out. */
  logFolder?: string;
  /**
   * The OS keychain lives in the client's thread (Electron's safeStorage is main-process only) and
   * SecretStore's cipher is synchronous: the host asks over its port and waits on these shared
   * buffers (see osCipherProxy.ts). Absent: the per-user key file seals keys.
   */
  cipher?: { control: SharedArrayBuffer; data: SharedArrayBuffer };
  /** Engine workers are started by the client (Electron: utility processes) and relayed (engineRelay.ts). */
  relayEngine?: boolean;
}

/** Client → host. */
export type ToHost =
  | { type: 'call'; id: number; method: string; input: unknown }
  | { type: 'grant'; id: number; path: string; kind?: GrantKind }
  | { type: 'ensureDemo'; id: number }
  | { type: 'close' }
  | { type: 'engine.message'; child: number; message: WorkerMessage }
  | { type: 'engine.spawned'; child: number; pid: number | undefined }
  | { type: 'engine.exit'; child: number; code: number | null; signal: NodeJS.Signals | null }
  | { type: 'engine.error'; child: number; message: string }
  | { type: 'engine.output'; child: number; chunk: Uint8Array };

/** A failure carried over the port: the error's name and message (and ApiFailure's code). */
export interface HostError {
  name: string;
  message: string;
  code?: string;
}

/** Host → client. */
export type FromHost =
  | { type: 'ready'; workspacePath: string }
  | { type: 'startFailed'; error: HostError }
  | { type: 'result'; id: number; envelope: Envelope<unknown> }
  | { type: 'granted'; id: number; path: string }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; error: HostError }
  | { type: 'event'; event: ApiEvent }
  | { type: 'internalError'; stack: string }
  | { type: 'demoLog'; message: string }
  | { type: 'closed' }
  | { type: 'cipher'; op: 'encrypt' | 'decrypt'; input: string }
  | { type: 'engine.spawn'; child: number; launch: WorkerLaunch }
  | { type: 'engine.send'; child: number; message: ParentMessage }
  | { type: 'engine.kill'; child: number };

export function toHostError(err: unknown): HostError {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) };
}

export function fromHostError(e: HostError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  if (e.code !== undefined) (err as Error & { code?: string }).code = e.code;
  return err;
}
