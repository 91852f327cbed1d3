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
}): () => void {
  const { ipcMain, router, events } = options;
  ipcMain.handle(CALL_CHANNEL, async (event, method, input): Promise<Envelope<unknown>> => {
    if (!isTrustedSender(event, options.isOurContents)) {
      return { ok: false, error: { code: 'forbidden', message: 'IPC from an unexpected sender was refused' } };
    }
    if (typeof method !== 'string') return { ok: false, error: { code: 'validation', message: 'method must be a string' } };
    return router.call(method, input);
  });
  const unsubscribe = events.subscribe((event) => {
    for (const t of options.targets()) if (!t.isDestroyed()) t.send(EVENT_CHANNEL, event);
  });
  return () => {
    unsubscribe();
    ipcMain.removeHandler(CALL_CHANNEL);
  };
}
