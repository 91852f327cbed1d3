/**
 * Navigation and window-opening rules (checklist items 5, 13-15): no web contents ever leaves the
 * app (top frame or sub-frame), opens another window, or is granted a permission or a device; only
 * https links go to the OS browser. `guardContents` is applied to every web contents the app
 * creates (`web-contents-created`), `guardSession` once to the session they share.
 */
import { isAppUrl } from './appProtocol';

type Preventable = { preventDefault(): void };

/** The part of webContents this module needs (so tests can pass a recording fake). */
export interface GuardableContents {
  on(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', listener: (event: Preventable, url: string) => void): unknown;
  on(event: 'will-frame-navigate', listener: (details: Preventable & { url: string }) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/** The part of a session this module needs. */
export interface GuardableSession {
  setPermissionRequestHandler(handler: (wc: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (wc: unknown, permission: string) => boolean): void;
  setDevicePermissionHandler(handler: (details: unknown) => boolean): void;
}

export function isAllowedExternalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

export function guardContents(contents: GuardableContents, openExternal: (url: string) => void): void {
  const block = (event: Preventable, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  };
  contents.on('will-navigate', block);
  contents.on('will-redirect', block);
  // Sub-frames too (Electron ≥ 25): 'will-navigate' only covers the main frame.
  contents.on('will-frame-navigate', (details) => {
    if (!isAppUrl(details.url)) details.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalUrl(url)) openExternal(url);
    return { action: 'deny' };
  });
}

/** No permission (camera, notifications, clipboard-read, …) is granted or reported granted; no device (USB, HID, serial) either. */
export function guardSession(session: GuardableSession): void {
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}
