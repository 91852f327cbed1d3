import { DataError } from '../../core/errors';

export const huggingFaceHub = 'https://huggingface.co';

export interface ModelSource {
  url: URL;
  /** The file name the URL suggests (last path segment). */
  fileName: string;
}

/**
 * Turns what the user typed into the URL to fetch.
 * - `hf:<owner>/<repo>/<path/to/file>` → `<hub>/<owner>/<repo>/resolve/main/<path/to/file>`, the
 *   Hugging Face download URL of the file on the main branch (it redirects to a CDN).
 * - `https://…` and `http://…` as they are.
 * The hub is configurable so that tests (and mirrors) can stand in for huggingface.co.
 */
export function resolveModelUrl(input: string, hubBaseUrl: string = huggingFaceHub): ModelSource {
  const text = input.trim();
  if (text.startsWith('hf:')) return huggingFaceUrl(text.slice(3), hubBaseUrl, input);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DataError(`not a URL or hf:<owner>/<repo>/<file>: ${JSON.stringify(input)}`, { field: 'url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new DataError(`only https:, http: and hf: URLs can be downloaded, got ${url.protocol}`, { field: 'url' });
  }
  if (url.username || url.password) throw new DataError('credentials in download URLs are not supported', { field: 'url' });
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  return { url, fileName: last ? safeDecode(last) : '' };
}

function huggingFaceUrl(spec: string, hubBaseUrl: string, input: string): ModelSource {
  const parts = spec.replace(/^\/+/, '').split('/');
  if (parts.length < 3 || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new DataError(`expected hf:<owner>/<repo>/<file>, got ${JSON.stringify(input)}`, { field: 'url' });
  }
  const [owner, repo, ...file] = parts as [string, string, ...string[]];
  const hub = hubBaseUrl.replace(/\/+$/, '');
  const path = [owner, repo, 'resolve', 'main', ...file].map(encodeURIComponent).join('/');
  return { url: new URL(`${hub}/${path}`), fileName: file.at(-1)! };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Plain http to another machine can be tampered with on the way; loopback cannot. */
export function isInsecureRemote(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
}
