/**
 * The renderer is served from `app://fairground/…` instead of `file://` (checklist item 18):
 * only files inside the built renderer folder, with the app's CSP on every response.
 */
import { extname, join, resolve, sep } from 'node:path';

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

/** Maps an `app://fairground/...` URL to a file inside `rendererRoot`, or null if it is outside or malformed. */
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

export function mimeType(file: string): string {
  const types: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.woff2': 'font/woff2',
    '.map': 'application/json',
  };
  return types[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** True for URLs that belong to the app itself (navigation within the app is allowed). */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}
