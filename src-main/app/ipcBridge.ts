/**
 * Electron IPC transport of the API: one invoke channel for calls and one push channel for events.
 * Every message's sender frame is checked (checklist item 17): it must be the top frame of one of
 * our windows and show an `app://fairground` page; anything else gets a `forbidden` error.
 */
import type { Envelope } from '../api/contract/index';
import type { Router } from '../api/router';
import type { EventBus } from '../services/eventBus';
import { isAppUrl } from './appProtocol';

export const CALL_CHANNEL = 'fairground:call';
export const EVENT_CHANNEL = 'fairground:event';
export const PICK_FILE_CHANNEL = 'fairground:pickFile';
/** The preload reports a file dropped on the window (its path from `webUtils.getPathForFile`, which a page cannot forge). */
export const DROPPED_FILE_CHANNEL = 'fairground:droppedFile';

/**
 * What the renderer may ask of the native dialog: a title, extension filters, and whether a file
 * (default) or a folder is chosen. A chosen folder becomes an allowed folder (issue 26: adding one
 * is this gesture, never a plain API call).
 */
export interface PickFileRequest {
  title?: string;
  filters?: { name: string; extensions: string[] }[];
  kind?: 'file' | 'folder';
}

/** The options of Electron's `dialog.showOpenDialog` for a request (main.ts passes them as they are). */
export function openDialogOptions(request: PickFileRequest): { properties: ['openFile'] | ['openDirectory']; title?: string; filters?: { name: string; extensions: string[] }[] } {
  if (request.kind === 'folder') return { properties: ['openDirectory'], ...(request.title ? { title: request.title } : {}) };
  return { properties: ['openFile'], ...(request.title ? { title: request.title } : {}), ...(request.filters ? { filters: request.filters } : {}) };
}

function parsePickFileRequest(raw: unknown): PickFileRequest | null {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const out: PickFileRequest = {};
  if (r.kind !== undefined) {
    if (r.kind !== 'file' && r.kind !== 'folder') return null;
    out.kind = r.kind;
  }
  if (r.title !== undefined) {
    if (typeof r.title !== 'string' || r.title.length > 200) return null;
    out.title = r.title;
  }
  if (r.filters !== undefined) {
    if (!Array.isArray(r.filters) || r.filters.length > 10) return null;
    const filters: { name: string; extensions: string[] }[] = [];
    for (const f of r.filters as unknown[]) {
      const ff = f as { name?: unknown; extensions?: unknown };
      if (typeof ff?.name !== 'string' || !Array.isArray(ff.extensions) || !ff.extensions.every((e) => typeof e === 'string' && /^[A-Za-z0-9*]{1,16}$/.test(e))) return null;
      filters.push({ name: ff.name.slice(0, 100), extensions: ff.extensions as string[] });
    }
    out.filters = filters;
  }
  return out;
}

export interface SenderFrameLike {
  url: string;
  parent: unknown;
}

export interface InvokeEventLike {
  sender: unknown;
  senderFrame: SenderFrameLike | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface PushTarget {
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
}

export function isTrustedSender(event: InvokeEventLike, isOurContents: (sender: unknown) => boolean): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  if (frame.parent !== null) return false; // sub-frames never talk to main
  if (!isAppUrl(frame.url)) return false;
  return isOurContents(event.sender);
}

export function registerIpc(options: {
  ipcMain: IpcMainLike;
  router: Router;
  events: EventBus;
  isOurContents: (sender: unknown) => boolean;
  targets: () => PushTarget[];
  /** The native open dialog (`openDialogOptions(request)`); returns the chosen path or null when cancelled. */
  pickFile?: (sender: unknown, request: PickFileRequest) => Promise<string | null>;
  /**
   * Path grants (issue 15): a file the user picked in the dialog or dropped on the window becomes
   * readable by API requests; returns its real path, throws (or rejects) when it is not a readable
   * regular file. Asynchronous when the services run off this thread (src-main/host). With kind
   * 'folder' (a folder chosen in the dialog, issue 26) the folder becomes an allowed folder.
   */
  grant?: (path: string, kind?: 'file' | 'folder') => string | Promise<string>;
}): () => void {
  const { ipcMain, router, events } = options;
  ipcMain.handle(CALL_CHANNEL, async (event, method, input): Promise<Envelope<unknown>> => {
    if (!isTrustedSender(event, options.isOurContents)) {
      return { ok: false, error: { code: 'forbidden', message: 'IPC from an unexpected sender was refused' } };
    }
    if (typeof method !== 'string') return { ok: false, error: { code: 'validation', message: 'method must be a string' } };
    return router.call(method, input);
  });
  if (options.pickFile) {
    const pick = options.pickFile;
    ipcMain.handle(PICK_FILE_CHANNEL, async (event, raw) => {
      if (!isTrustedSender(event, options.isOurContents)) return { ok: false, error: { code: 'forbidden', message: 'IPC from an unexpected sender was refused' } };
      const request = parsePickFileRequest(raw);
      if (!request) return { ok: false, error: { code: 'validation', message: 'bad file dialog request' } };
      if (request.kind === 'folder' && !options.grant) return { ok: false, error: { code: 'forbidden', message: 'folders cannot be added here' } };
      const picked = await pick(event.sender, request);
      if (picked === null || !options.grant) return { ok: true, data: picked };
      try {
        return { ok: true, data: await (request.kind === 'folder' ? options.grant(picked, 'folder') : options.grant(picked)) };
      } catch (err) {
        return { ok: false, error: { code: 'forbidden', message: (err as Error).message } };
      }
    });
  }
  if (options.grant) {
    const grant = options.grant;
    ipcMain.handle(DROPPED_FILE_CHANNEL, async (event, raw) => {
      if (!isTrustedSender(event, options.isOurContents)) return { ok: false, error: { code: 'forbidden', message: 'IPC from an unexpected sender was refused' } };
      if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) return { ok: false, error: { code: 'validation', message: 'a dropped file has no path (only files from this computer can be dropped)' } };
      try {
        return { ok: true, data: await grant(raw) };
      } catch (err) {
        return { ok: false, error: { code: 'forbidden', message: (err as Error).message } };
      }
    });
  }
  const unsubscribe = events.subscribe((event) => {
    for (const t of options.targets()) if (!t.isDestroyed()) t.send(EVENT_CHANNEL, event);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(CALL_CHANNEL);
    if (options.pickFile) ipcMain.removeHandler(PICK_FILE_CHANNEL);
    if (options.grant) ipcMain.removeHandler(DROPPED_FILE_CHANNEL);
  };
}
