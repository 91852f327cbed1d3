/**
 * Browser mode: the API over HTTP + WebSocket on 127.0.0.1 only.
 *
 * - A random per-launch token guards every `/api/` request (header `Authorization: Bearer …`,
 *   or `?token=` for WebSocket upgrades and download links, which cannot set headers).
 * - The Host header must name this loopback server (defeats DNS rebinding) and an Origin, when
 *   present, must be this server's own; no CORS headers are ever sent, so other sites get nothing.
 * - Static files are served only from the built renderer folder.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ApiErrorBody, ApiErrorCode, Envelope } from '../api/contract/index';
import type { Router } from '../api/router';
import { checkJsonDepth } from '../io/jsonText';
import type { EventBus } from '../services/eventBus';
import { mimeType } from '../io/mimeTypes';

export interface HttpServerOptions {
  router: Router;
  events: EventBus;
  /** Folder with the built renderer (index.html, assets/). */
  staticDir: string;
  /** 0 = any free port. */
  port?: number;
  /** Fixed token (tests); random 32 bytes otherwise. */
  token?: string;
  /** Largest accepted request body. */
  maxBodyBytes?: number;
  /** Connection limits (defaults: DEFAULT_CONNECTION_LIMITS). */
  limits?: Partial<ConnectionLimits>;
}

/**
 * Bounds that keep a slow-loris (requests sent a byte at a time, or connections that send nothing) from holding the
 * server: Node's own defaults let 1,000 half-sent requests hold 1,000 connections for 70 s and accepted 5,000 idle ones.
 */
export interface ConnectionLimits {
  /** A request's headers must arrive within this (counted from the connection or the previous response). */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /**
   * Connections held at once that have shown the token (HTTP and WebSocket). A connection counts as untrusted until a
   * request on it carries the valid token (header or `?token=`); from then on it counts here.
   */
  maxConnections: number;
  /**
   * Connections held at once that have not (yet) shown the token: a budget of their own, so that any local process
   * holding connections cannot lock the user out (issue 36 item 4). When a new connection arrives with this budget
   * full, the oldest untrusted connection is closed, so the newest (the user's, about to send its token) gets a slot.
   */
  maxUntrustedConnections: number;
  /** An untrusted connection with no request in flight is closed after this (from its arrival or last response). */
  untrustedIdleMs: number;
  /** How often the timeouts above are checked (their precision). */
  checkIntervalMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  maxUntrustedConnections: 64,
  untrustedIdleMs: 3_000,
  checkIntervalMs: 1_000,
};

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** The URL with the token, as printed to the user. */
  readonly launchUrl: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

const STATUS: Record<ApiErrorCode, number> = {
  validation: 400,
  'invalid-data': 422,
  'not-found': 404,
  conflict: 409,
  workspace: 409,
  engine: 502,
  cancelled: 409,
  unauthorized: 401,
  forbidden: 403,
  internal: 500,
};

export async function startHttpServer(options: HttpServerOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const tokenBytes = Buffer.from(token);
  const staticRoot = resolve(options.staticDir);
  const maxBody = options.maxBodyBytes ?? 16 * 1024 * 1024;
  let port = 0;

  const allowedHosts = (): Set<string> => new Set([`${HOST}:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const allowedOrigins = (): Set<string> => new Set([`http://${HOST}:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);

  const tokenMatches = (candidate: string | undefined | null): boolean => {
    if (!candidate) return false;
    const b = Buffer.from(candidate);
    return b.length === tokenBytes.length && timingSafeEqual(b, tokenBytes);
  };

  /** Host and Origin checks shared by HTTP requests and WebSocket upgrades. Returns a refusal or null. */
  const refuse = (req: IncomingMessage): { status: number; code: ApiErrorCode; message: string } | null => {
    // Node keeps the first of two Host (or Origin) headers and drops the rest: a request that
    // sends two is ambiguous (a proxy may have read the other one), so it is refused (issue 15 item 6).
    for (const name of ['host', 'origin', 'authorization']) {
      let n = 0;
      for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === name) n++;
      if (n > 1) return { status: 400, code: 'validation', message: `the request has ${n} ${name} headers; send one` };
    }
    const host = req.headers.host;
    if (!host || !allowedHosts().has(host.toLowerCase())) {
      return { status: 403, code: 'forbidden', message: `Host '${host ?? ''}' is not this Fairground server` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin.toLowerCase())) {
      return { status: 403, code: 'forbidden', message: `Origin '${origin}' may not use this Fairground server` };
    }
    return null;
  };

  const requestToken = (req: IncomingMessage, url: URL): string | null => {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
    const header = req.headers['x-fairground-token'];
    if (typeof header === 'string') return header;
    return url.searchParams.get('token');
  };

  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const serverOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  };
  const server: Server = createServer(serverOptions, (req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: (err as Error).message } });
      else res.destroy();
    });
  });

  /** Per connection: whether it has shown the token, when it arrived, its requests in flight, when it last answered. */
  interface ConnectionState {
    trusted: boolean;
    inFlight: number;
    lastActive: number;
  }
  const connections = new Map<Socket, ConnectionState>();
  /** Untrusted connections in arrival order (a Map keeps insertion order): the first is the oldest. */
  const untrusted = new Map<Socket, ConnectionState>();
  server.on('connection', (socket: Socket) => {
    while (untrusted.size >= limits.maxUntrustedConnections) {
      const [oldest] = untrusted.keys();
      if (!oldest) break;
      untrusted.delete(oldest);
      oldest.destroy();
    }
    const state: ConnectionState = { trusted: false, inFlight: 0, lastActive: Date.now() };
    connections.set(socket, state);
    untrusted.set(socket, state);
    socket.once('close', () => {
      connections.delete(socket);
      untrusted.delete(socket);
    });
  });
  /** A request on this connection carried the valid token: from now on it counts against the trusted budget. */
  const trust = (socket: Socket): void => {
    const state = connections.get(socket);
    if (!state || state.trusted) return;
    state.trusted = true;
    untrusted.delete(socket);
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = connections.get(req.socket);
    if (!state) return;
    state.inFlight++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      state.inFlight--;
      state.lastActive = Date.now();
    };
    res.once('finish', finish);
    res.once('close', finish);
  });
  const sweep = setInterval(() => {
    const cutoff = Date.now() - limits.untrustedIdleMs;
    for (const [socket, state] of untrusted) {
      if (state.inFlight === 0 && state.lastActive <= cutoff) {
        untrusted.delete(socket);
        socket.destroy();
      }
    }
  }, limits.checkIntervalMs);
  sweep.unref();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = refuse(req);
    if (refusal) return sendJson(res, refusal.status, { ok: false, error: { code: refusal.code, message: refusal.message } });
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
    } catch {
      return sendJson(res, 400, { ok: false, error: { code: 'validation', message: 'malformed request URL' } });
    }
    if (tokenMatches(requestToken(req, url))) trust(req.socket);

    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      if (!tokenMatches(requestToken(req, url))) {
        return sendJson(res, 401, { ok: false, error: { code: 'unauthorized', message: 'missing or wrong token: open the URL that `fairground serve` printed' } });
      }
      const methodName = url.pathname.slice('/api/'.length);
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        return sendJson(res, 405, { ok: false, error: { code: 'validation', message: 'API calls are POST requests with a JSON body' } });
      }
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('application/json')) {
        // Also blocks "simple" cross-site form posts, which cannot set this content type.
        return sendJson(res, 415, { ok: false, error: { code: 'validation', message: 'Content-Type must be application/json' } });
      }
      let body: unknown;
      try {
        const raw = await readBody(req, maxBody);
        const text = raw.toString('utf8');
        // A depth limit, not a 500 from a stack overflow in validation (issue 15 item 6).
        checkJsonDepth(text, undefined);
        body = raw.length === 0 ? {} : JSON.parse(text);
      } catch (err) {
        return sendJson(res, 400, { ok: false, error: { code: 'validation', message: (err as Error).message } });
      }
      const envelope = await options.router.call(methodName, body);
      return sendJson(res, envelope.ok ? 200 : STATUS[envelope.error.code], envelope);
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, { ok: false, error: { code: 'validation', message: 'method not allowed' } });
    }
    return serveStatic(url.pathname, res);
  }

  function serveStatic(pathname: string, res: ServerResponse): void {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return sendJson(res, 400, { ok: false, error: { code: 'validation', message: 'malformed path' } });
    }
    if (rel.includes('\0')) return sendJson(res, 400, { ok: false, error: { code: 'validation', message: 'malformed path' } });
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = resolve(join(staticRoot, rel));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      return sendJson(res, 404, { ok: false, error: { code: 'not-found', message: 'not found' } });
    }
    let target = file;
    if (!existsSync(target) || !statSync(target).isFile()) {
      // Client-side routes fall back to the app shell; missing assets are 404.
      if (extname(rel) === '') target = join(staticRoot, 'index.html');
      if (!existsSync(target)) {
        return sendJson(res, 404, {
          ok: false,
          error: { code: 'not-found', message: existsSync(staticRoot) ? `not found: ${rel}` : `the UI is not built (${staticRoot} missing): run 'npm run build'` },
        });
      }
    }
    res.writeHead(200, {
      'Content-Type': mimeType(target),
      'Cache-Control': target.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
      ...securityHeaders(port),
    });
    const stream = createReadStream(target);
    // The file can vanish between the stat and the read (a rebuild): end the response, not the process.
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req, socket, head) => {
    const deny = (status: number, text: string) => {
      socket.write(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    socket.on('error', () => socket.destroy());
    if (refuse(req)) return deny(403, 'Forbidden');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
    } catch {
      // A malformed path must be refused, never thrown from an event listener (that ends the process).
      return deny(400, 'Bad Request');
    }
    if (url.pathname !== '/api/events') return deny(404, 'Not Found');
    if (!tokenMatches(url.searchParams.get('token'))) return deny(401, 'Unauthorized');
    trust(socket as Socket);
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      const unsubscribe = options.events.subscribe((event) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
      });
      ws.on('close', () => {
        unsubscribe();
        sockets.delete(ws);
      });
      ws.on('error', () => ws.close());
      // Clients never send anything meaningful; ignore messages.
    });
  });

  // A hard ceiling on arrival; the untrusted budget is kept below it by closing the oldest untrusted connection.
  server.maxConnections = limits.maxConnections + limits.maxUntrustedConnections;

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  port = (server.address() as AddressInfo).port;
  const base = `http://${HOST}:${port}`;

  return {
    url: `${base}/`,
    port,
    token,
    launchUrl: `${base}/?token=${token}`,
    async close() {
      clearInterval(sweep);
      for (const ws of sockets) ws.terminate();
      wss.close();
      // Stop accepting, then end every connection at once (a browser's keep-alive or an
      // in-flight request would otherwise hold the close open; issue 15 item 4).
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function securityHeaders(port: number): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      // plotly.js injects <style> elements at run time
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      `connect-src 'self' ws://${HOST}:${port} ws://localhost:${port}`,
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function sendJson(res: ServerResponse, status: number, body: Envelope<unknown> | { ok: false; error: ApiErrorBody }): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error(`request body larger than ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
