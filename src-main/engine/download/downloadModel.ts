import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataError } from '../../core/errors';
import { DownloadError } from './downloadError';
import { isInsecureRemote, resolveModelUrl } from './modelUrl';
import { OutboundRefusedError, outboundFetch } from '../outbound';
import {
  discardPartial,
  downloadPaths,
  onDisk,
  fileSize,
  readMeta,
  sha256File,
  writeMeta,
  type DownloadPaths,
} from './partialFile';

/**
 * Model download with resume, written on fetch rather than node-llama-cpp's `createModelDownloader`:
 * that one (via ipull) keeps its own partial-file format instead of `<dest>.partial`, verifies no
 * SHA-256, and resolves `hf:` URIs with its own rules (quantization tags, API lookups); here every
 * step — Range/If-Range, the partial file, the checksum, the errors — is ours to test offline
 * against a loopback server.
 *
 * Not guarded: two downloads of the same file into the same folder at once.
 */

export interface DownloadProgress {
  receivedBytes: number;
  /** Unknown when the server sends no length. */
  totalBytes: number | undefined;
}

export interface DownloadModelOptions {
  /** `https://…`, `http://…` (warned about unless loopback) or `hf:<owner>/<repo>/<file>`. */
  url: string;
  destDir: string;
  /** Defaults to the URL's last path segment. */
  fileName?: string;
  /** Hex SHA-256; without it the computed hash is reported in the result. */
  expectedSha256?: string;
  onProgress?: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Stands in for https://huggingface.co (mirrors, tests). */
  hubBaseUrl?: string;
  /** Reconnects after a dropped connection or a 429/5xx, each resuming where the last stopped. */
  retries?: number;
  /** First reconnect delay; doubles each time. */
  retryDelayMs?: number;
  /** A connection that delivers nothing for this long counts as dropped. */
  stallTimeoutMs?: number;
  /** At most one progress event per interval (plus the first and the last). */
  progressIntervalMs?: number;
  /** Defaults to `process.emitWarning`. */
  onWarning?: (message: string) => void;
}

export interface DownloadResult {
  path: string;
  sizeBytes: number;
  sha256: string;
  /** Bytes already on disk when the request that completed the file started (0: downloaded whole). */
  resumedFromBytes: number;
  /** The file was already there with the expected hash: nothing was downloaded. */
  alreadyPresent: boolean;
}

interface TransferContext {
  url: URL;
  paths: DownloadPaths;
  signal: AbortSignal | undefined;
  stallTimeoutMs: number;
  report: (progress: DownloadProgress, force?: boolean) => void;
}

export async function downloadModel(options: DownloadModelOptions): Promise<DownloadResult> {
  const { url, fileName: suggested } = resolveModelUrl(options.url, options.hubBaseUrl);
  if (isInsecureRemote(url)) {
    const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, 'InsecureDownloadWarning'));
    warn(`downloading ${url.href} over plain http: the file can be altered on the way; prefer https or give expectedSha256`);
  }
  const fileName = checkFileName(options.fileName ?? suggested);
  const expected = checkSha256(options.expectedSha256);
  const paths = downloadPaths(path.join(options.destDir, fileName));
  await onDisk(options.destDir, () => mkdir(options.destDir, { recursive: true }));

  if (expected !== undefined && (await fileSize(paths.final)) > 0 && (await onDisk(paths.final, () => sha256File(paths.final))) === expected) {
    const { size } = await stat(paths.final);
    return { path: paths.final, sizeBytes: size, sha256: expected, resumedFromBytes: 0, alreadyPresent: true };
  }

  const context: TransferContext = {
    url,
    paths,
    signal: options.signal,
    stallTimeoutMs: options.stallTimeoutMs ?? 60_000,
    report: throttled(options.onProgress, options.progressIntervalMs ?? 200),
  };
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  let resumedFromBytes = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      resumedFromBytes = await transfer(context);
      break;
    } catch (error) {
      if (!(error instanceof DownloadError) || !error.transient || attempt >= retries) throw error;
      try {
        await sleep(retryDelayMs * 2 ** attempt, undefined, { signal: options.signal });
      } catch {
        throw await aborted(paths);
      }
    }
  }

  // Hash what is on disk, not what was received: that also catches a bad write.
  const sha256 = await onDisk(paths.partial, () => sha256File(paths.partial));
  if (expected !== undefined && sha256 !== expected) {
    await discardPartial(paths);
    throw new DownloadError(
      'checksum-mismatch',
      `${url.href}: SHA-256 is ${sha256}, expected ${expected}; the downloaded file was deleted`,
    );
  }
  const { size } = await stat(paths.partial);
  await onDisk(paths.final, () => rename(paths.partial, paths.final));
  await rm(paths.meta, { force: true });
  return { path: paths.final, sizeBytes: size, sha256, resumedFromBytes, alreadyPresent: false };
}

/**
 * One HTTP request that brings `<final>.partial` to its full length. Returns the offset it
 * started from (bytes reused from the partial file).
 */
async function transfer(context: TransferContext): Promise<number> {
  const { url, paths, signal } = context;
  const have = await fileSize(paths.partial);
  const meta = have > 0 ? await readMeta(paths.meta) : undefined;
  const resuming = meta !== undefined && meta.url === url.href;

  // Identity encoding: byte ranges and lengths must refer to the file itself, not a gzip of it.
  const headers: Record<string, string> = { 'accept-encoding': 'identity' };
  if (resuming) {
    headers.range = `bytes=${have}-`;
    if (meta.validator !== undefined) headers['if-range'] = meta.validator;
  }

  const stall = new AbortController();
  const requestSignal = signal ? AbortSignal.any([signal, stall.signal]) : stall.signal;
  const timer = setTimeout(() => stall.abort(), context.stallTimeoutMs);
  const failure = async (error: unknown): Promise<DownloadError> => {
    if (error instanceof DownloadError) return error;
    if (signal?.aborted) return aborted(paths);
    if (stall.signal.aborted) return new DownloadError('network', `${url.href}: no data for ${context.stallTimeoutMs} ms`);
    // A redirect to a local or private address: refused, not worth another try.
    if (error instanceof OutboundRefusedError) return new DownloadError('http-error', error.message);
    return new DownloadError('network', `${url.href}: ${describeNetworkError(error)}`);
  };

  try {
    let response: Response;
    try {
      // Redirects (Hugging Face → its CDN) are followed only to public addresses (issue 15).
      response = await outboundFetch(url, { headers, signal: requestSignal });
    } catch (error) {
      throw await failure(error);
    }

    if (response.status === 416 && resuming) {
      await response.body?.cancel();
      // "Range not satisfiable" for a partial file as long as the file: it was complete already.
      const total = parseContentRange(response.headers.get('content-range'))?.total ?? meta.totalBytes;
      if (total === have) return have;
      await discardPartial(paths);
      return transfer(context);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw httpError(url, response.status);
    }

    let offset = 0;
    let total = contentLength(response);
    if (response.status === 206) {
      const range = parseContentRange(response.headers.get('content-range'));
      if (!resuming || range === undefined || range.start !== have) {
        // Not the range asked for: start over rather than guess.
        await response.body?.cancel();
        await discardPartial(paths);
        return transfer(context);
      }
      offset = have;
      total = range.total;
    }
    // A 200 means the server ignored Range, or If-Range found the file changed: start from zero.
    if (offset === 0) await writeMeta(paths.meta, { url: url.href, validator: validatorOf(response), totalBytes: total });

    const file = await onDisk(paths.partial, () => open(paths.partial, offset === 0 ? 'w' : 'a'));
    let received = offset;
    context.report({ receivedBytes: received, totalBytes: total }, true);
    try {
      if (response.body) {
        for await (const chunk of response.body) {
          timer.refresh();
          await onDisk(paths.partial, () => writeAll(file, chunk));
          received += chunk.byteLength;
          context.report({ receivedBytes: received, totalBytes: total });
        }
      }
      await onDisk(paths.partial, () => file.sync());
    } catch (error) {
      throw await failure(error);
    } finally {
      await file.close();
    }
    if (total !== undefined && received !== total) {
      throw new DownloadError('network', `${url.href}: connection closed after ${received} of ${total} bytes`);
    }
    context.report({ receivedBytes: received, totalBytes: total }, true);
    return offset;
  } finally {
    clearTimeout(timer);
  }
}

/** FileHandle.write may write less than asked; loop until the chunk is on its way to disk. */
async function writeAll(file: FileHandle, chunk: Uint8Array): Promise<void> {
  let written = 0;
  while (written < chunk.byteLength) {
    const { bytesWritten } = await file.write(chunk, written, chunk.byteLength - written);
    written += bytesWritten;
  }
}

async function aborted(paths: DownloadPaths): Promise<DownloadError> {
  const kept = await fileSize(paths.partial);
  return new DownloadError('aborted', `download cancelled; ${kept} bytes kept in ${paths.partial} for resuming`);
}

function httpError(url: URL, status: number): DownloadError {
  if (status === 404 || status === 410) return new DownloadError('not-found', `${url.href}: not found (HTTP ${status})`, status);
  if (status === 401 || status === 403) {
    return new DownloadError('http-error', `${url.href}: access denied (HTTP ${status}); the repository may be gated or private`, status);
  }
  return new DownloadError('http-error', `${url.href}: HTTP ${status}`, status);
}

// `bytes 100-199/1000` gives start 100, total 1000; `bytes */1000` (from a 416) gives the total only.
function parseContentRange(header: string | null): { start: number | undefined; total: number | undefined } | undefined {
  const match = header?.match(/^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/);
  if (!match) return undefined;
  return {
    start: match[1] === undefined ? undefined : Number(match[1]),
    total: match[2] === '*' ? undefined : Number(match[2]),
  };
}

function contentLength(response: Response): number | undefined {
  const header = response.headers.get('content-length');
  return header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
}

/** If-Range needs a strong validator: a strong ETag, else Last-Modified. */
function validatorOf(response: Response): string | undefined {
  const etag = response.headers.get('etag');
  if (etag !== null && !etag.startsWith('W/')) return etag;
  return response.headers.get('last-modified') ?? undefined;
}

function throttled(onProgress: ((p: DownloadProgress) => void) | undefined, intervalMs: number) {
  let last = -Infinity;
  return (progress: DownloadProgress, force = false): void => {
    if (!onProgress) return;
    const now = performance.now();
    if (!force && now - last < intervalMs) return;
    last = now;
    onProgress(progress);
  };
}

function checkFileName(name: string): string {
  if (!name || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new DataError(`not a plain file name: ${JSON.stringify(name)}`, { field: 'fileName' });
  }
  return name;
}

function checkSha256(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const hex = value.trim().toLowerCase().replace(/^sha256:/, '');
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new DataError(`not a hex SHA-256: ${JSON.stringify(value)}`, { field: 'expectedSha256' });
  return hex;
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return `${error.message} (${cause.code})`;
  if (cause && typeof cause.message === 'string') return `${error.message} (${cause.message})`;
  return error.message;
}
