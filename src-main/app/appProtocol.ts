/**
 * The renderer is served from `app://fairground/…` instead of `file://` (checklist item 18):
 * only files whose real path (symlinks resolved) is inside the built renderer folder, with real
 * status codes, the app's CSP and `nosniff` on every response.
 */
import { realpathSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { mimeType } from '../io/mimeTypes';

export const APP_SCHEME = 'app';
export const APP_HOST = 'fairground';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** Maps an `app://fairground/...` URL to a path inside `rendererRoot` (lexically), or null if it is outside or malformed. */
export function resolveAppUrl(requestUrl: string, rendererRoot: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  if (path === '/' || path === '') path = '/index.html';
  const root = resolve(rendererRoot);
  const file = resolve(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return null;
  return file;
}

/** What the app:// handler answers: a file to stream with its headers, or a status with no body worth reading. */
export type AppResponse = { status: 200; file: string; headers: Record<string, string> } | { status: 400 | 403 | 404 | 405; headers: Record<string, string> };

/**
 * The whole decision of the app:// handler, without Electron: the method must be GET or HEAD, the
 * URL must map inside the renderer folder, and the file's real path (a symlink resolved) must
 * still be inside the folder's real path and be a regular file.
 */
export function appResponse(requestUrl: string, method: string, rendererRoot: string): AppResponse {
  const base = { 'Content-Security-Policy': APP_CSP, 'X-Content-Type-Options': 'nosniff' };
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { ...base, Allow: 'GET, HEAD' } };
  const file = resolveAppUrl(requestUrl, rendererRoot);
  if (!file) return { status: 400, headers: base };
  let root: string;
  let real: string;
  try {
    root = realpathSync(rendererRoot);
    real = realpathSync(file);
  } catch {
    return { status: 404, headers: base };
  }
  if (real !== root && !real.startsWith(root + sep)) return { status: 403, headers: base };
  if (!statSync(real).isFile()) return { status: 404, headers: base };
  return { status: 200, file: real, headers: { ...base, 'Content-Type': mimeType(real) } };
}

/** One media-type table for app:// and browser mode (io/mimeTypes). */
export { mimeType };

/** True for URLs that belong to the app itself (navigation within the app is allowed). */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}
