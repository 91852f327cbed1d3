/**
 * A file server on 127.0.0.1 for download tests, speaking the HTTP range protocol (RFC 9110):
 * `Accept-Ranges`, `Range: bytes=a-` / `a-b` → 206 with `Content-Range`, past the end → 416 with
 * `Content-Range: bytes *\/total`, `If-Range` against a strong ETag, redirects (as Hugging Face's
 * `resolve/` URLs redirect to a CDN).
 *
 * Knobs: range support off (always 200, whole file), cutting the connection after N body bytes
 * for the next M responses (an interrupted download), and throttling (chunk size + delay) so a
 * test can cancel mid-transfer. Every request is recorded with its Range and If-Range headers.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const cutGraceMs = 50;

export interface FakeDownloadOptions {
  rangeSupport: boolean;
  /** Destroy the socket after this many body bytes… */
  cutAfterBytes: number | undefined;
  /** …for this many responses. */
  cutCount: number;
  chunkSize: number;
  chunkDelayMs: number;
  /**
   * Awaited before a cut, with the file offset the client has been sent up to. A test that
   * knows what the client took in (its progress events) waits for that, so the cut lands after
   * the client holds the bytes whatever the machine's load; without it the server waits a grace time.
   */
  beforeCut: ((sentUpTo: number) => Promise<void>) | undefined;
}

export interface RecordedDownloadRequest {
  method: string;
  path: string;
  range: string | undefined;
  ifRange: string | undefined;
  status: number;
}

/** Deterministic pseudo-random bytes (so a test can know the SHA-256 without storing a file). */
export function generatedFile(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out[i] = state & 0xff;
  }
  return out;
}

export function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export class FakeDownloadServer {
  readonly options: FakeDownloadOptions;
  readonly requests: RecordedDownloadRequest[] = [];
  private readonly files = new Map<string, Buffer>();
  private readonly redirects = new Map<string, string>();
  private readonly server: http.Server;
  private port = 0;

  private constructor(options: Partial<FakeDownloadOptions>) {
    this.options = { rangeSupport: true, cutAfterBytes: undefined, cutCount: 1, chunkSize: 16 * 1024, chunkDelayMs: 0, beforeCut: undefined, ...options };
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(options: Partial<FakeDownloadOptions> = {}): Promise<FakeDownloadServer> {
    const fake = new FakeDownloadServer(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Serve `content` at `path` (replacing what was there: a changed file gets a new ETag). */
  addFile(path: string, content: Buffer): void {
    this.files.set(path, content);
  }

  /** Answer `from` with a 302 to `to`. */
  redirect(from: string, to: string): void {
    this.redirects.set(from, to);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const record: RecordedDownloadRequest = {
      method: req.method ?? '',
      path,
      range: header(req, 'range'),
      ifRange: header(req, 'if-range'),
      status: 0,
    };
    this.requests.push(record);
    const reply = (status: number, headers: Record<string, string | number> = {}): void => {
      record.status = status;
      res.writeHead(status, headers);
    };

    const target = this.redirects.get(path);
    if (target !== undefined) {
      reply(302, { location: target, 'content-length': 0 });
      res.end();
      return;
    }
    const file = this.files.get(path);
    if (file === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) {
      reply(404, { 'content-type': 'text/plain', 'content-length': 9 });
      res.end('Not Found');
      return;
    }

    const etag = `"${sha256Of(file).slice(0, 16)}"`;
    const common: Record<string, string | number> = { 'content-type': 'application/octet-stream', etag };
    if (this.options.rangeSupport) common['accept-ranges'] = 'bytes';

    let start = 0;
    let end = file.length - 1;
    let status = 200;
    const range = this.options.rangeSupport ? record.range : undefined;
    // If-Range: honour the Range only if the client's copy is of this very file.
    const sameFile = record.ifRange === undefined || record.ifRange === etag;
    if (range !== undefined && sameFile) {
      const match = /^bytes=(\d+)-(\d*)$/.exec(range);
      if (match) {
        start = Number(match[1]);
        if (match[2]) end = Math.min(Number(match[2]), file.length - 1);
        if (start >= file.length || start > end) {
          reply(416, { ...common, 'content-range': `bytes */${file.length}`, 'content-length': 0 });
          res.end();
          return;
        }
        status = 206;
        common['content-range'] = `bytes ${start}-${end}/${file.length}`;
      }
    }
    const body = file.subarray(start, end + 1);
    reply(status, { ...common, 'content-length': body.length });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await this.send(res, body, start);
  }

  /** Writes the body in chunks; may throttle, and may cut the connection part-way. */
  private async send(res: http.ServerResponse, body: Buffer, start: number): Promise<void> {
    let limit = body.length;
    let cut = false;
    if (this.options.cutAfterBytes !== undefined && this.options.cutCount > 0 && this.options.cutAfterBytes < body.length) {
      this.options.cutCount--;
      limit = this.options.cutAfterBytes;
      cut = true;
    }
    for (let at = 0; at < limit && !res.destroyed; at += this.options.chunkSize) {
      const chunk = body.subarray(at, Math.min(at + this.options.chunkSize, limit));
      await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
      if (this.options.chunkDelayMs > 0) await new Promise((r) => setTimeout(r, this.options.chunkDelayMs));
    }
    if (!cut) {
      res.end();
      return;
    }
    // Cutting: let the client take in the bytes sent so far, then drop the connection mid-body.
    // (Dropped at once, the client's fetch would discard chunks still queued in its body stream,
    // and how many depends on timing.)
    if (this.options.beforeCut) await this.options.beforeCut(start + limit);
    else await new Promise((r) => setTimeout(r, cutGraceMs));
    res.socket?.destroy();
  }
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
