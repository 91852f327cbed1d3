/**
 * The renderer's one API client. Two transports of the same contract:
 * - Electron: the preload exposes `window.fairground` (IPC), nothing else;
 * - browser mode: HTTP POST /api/<method> with the launch token, events over a WebSocket.
 * Screens call `api.call(...)` and never know which one is in use.
 */
import type { ApiClient, ApiEvent, ApiInput, ApiMethod, ApiOutput, ApiErrorBody, Envelope } from '$contract';

/** Shape of what the Electron preload exposes (kept in sync with src-main/app/preload.ts). */
export interface PreloadBridge {
  call(method: string, input: unknown): Promise<Envelope<unknown>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
  pickFile?(request: { title?: string; filters?: { name: string; extensions: string[] }[]; kind?: 'file' | 'folder' }): Promise<Envelope<string | null>>;
  /** A File from a drop event → its path on this computer, granted to the API (issue 15). */
  droppedFile?(file: File): Promise<Envelope<string>>;
}

declare global {
  interface Window {
    fairground?: PreloadBridge;
  }
}

/** An API error as the UI shows it: the server's message, verbatim. */
export class ApiCallError extends Error {
  readonly code: ApiErrorBody['code'];
  readonly field: string | undefined;
  constructor(readonly method: string, readonly body: ApiErrorBody) {
    super(body.message);
    this.name = 'ApiCallError';
    this.code = body.code;
    this.field = body.field;
  }
}

const TOKEN_KEY = 'fairground.token';

function takeToken(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    // Keep the token out of history, bookmarks and screenshots.
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

function unwrap<T>(method: string, envelope: Envelope<unknown>): T {
  if (envelope.ok) return envelope.data as T;
  throw new ApiCallError(method, envelope.error);
}

function ipcClient(bridge: PreloadBridge): ApiClient {
  return {
    async call(method, input) {
      return unwrap(method, await bridge.call(method, input));
    },
    onEvent: (listener) => bridge.onEvent(listener),
  };
}

function httpClient(): ApiClient {
  const token = takeToken();
  const listeners = new Set<(e: ApiEvent) => void>();
  let socket: WebSocket | null = null;
  let retryMs = 500;

  const connect = () => {
    if (!token || socket) return;
    const proto = window.location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${window.location.host}/api/events?token=${encodeURIComponent(token)}`);
    socket = ws;
    ws.onopen = () => {
      retryMs = 500;
    };
    ws.onmessage = (msg) => {
      const event = JSON.parse(String(msg.data)) as ApiEvent;
      for (const l of listeners) l(event);
    };
    ws.onclose = () => {
      socket = null;
      if (listeners.size > 0) setTimeout(connect, (retryMs = Math.min(retryMs * 2, 10_000)));
    };
  };

  return {
    async call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>> {
      if (!token) {
        throw new ApiCallError(method, { code: 'unauthorized', message: 'No access token: open the URL that `fairground serve` printed.' });
      }
      let res: Response;
      try {
        res = await fetch(`/api/${method}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify(input ?? {}),
        });
      } catch {
        throw new ApiCallError(method, { code: 'internal', message: 'Cannot reach the Fairground server. Is `fairground serve` still running?' });
      }
      const envelope = (await res.json()) as Envelope<unknown>;
      return unwrap(method, envelope);
    },
    onEvent(listener) {
      listeners.add(listener);
      connect();
      return () => listeners.delete(listener);
    },
  };
}

export const api: ApiClient = window.fairground ? ipcClient(window.fairground) : httpClient();
export const transport: 'electron' | 'http' = window.fairground ? 'electron' : 'http';

/** The native open-file dialog (desktop app only); undefined in browser mode, where paths are typed. */
export const pickFile: ((title: string, filters?: { name: string; extensions: string[] }[]) => Promise<string | null>) | undefined = window.fairground?.pickFile
  ? async (title, filters) => unwrap<string | null>('pickFile', await window.fairground!.pickFile!({ title, ...(filters ? { filters } : {}) }))
  : undefined;

/**
 * The native folder dialog (desktop app only): the chosen folder becomes an allowed folder (issue 26;
 * the main process grants it, no API call can). Its real path, or null when cancelled.
 */
export const pickFolder: ((title: string) => Promise<string | null>) | undefined = window.fairground?.pickFile
  ? async (title) => unwrap<string | null>('pickFile', await window.fairground!.pickFile!({ title, kind: 'folder' }))
  : undefined;

/**
 * The path of a file dropped on the window, granted for imports (desktop app only: no size limit,
 * nothing uploaded); undefined in browser mode, where a dropped file has no path and is uploaded.
 */
export const droppedFile: ((file: File) => Promise<string>) | undefined = window.fairground?.droppedFile
  ? async (file) => unwrap<string>('droppedFile', await window.fairground!.droppedFile!(file))
  : undefined;
