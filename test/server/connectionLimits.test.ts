/**
 * Issue 26: a slow-loris of 1,000 half-sent requests held 1,000 connections for 70 s, and 5,000 idle connections were
 * accepted. The server now bounds header time, request time and idle keep-alive, and the number of connections.
 * Real sockets on loopback, small limits so the loops are short and bounded.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouter, type Handlers, type Router } from '../../src-main/api/router';
import { DEFAULT_CONNECTION_LIMITS, startHttpServer, type RunningServer } from '../../src-main/server/httpServer';
import { EventBus } from '../../src-main/services/eventBus';

let dir: string;
let server: RunningServer;
const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300, maxConnections: 20, checkIntervalMs: 100 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-conn-limits-'));
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Fairground</title>');
  // No API method is called here: the router's handlers are never reached.
  server = await startHttpServer({ router: createRouter({} as Handlers), events: new EventBus(), staticDir: dir, limits: LIMITS });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Held {
  socket: Socket;
  closedAt: Promise<number>;
  data: () => string;
}

function open(first?: string, port = server.port): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    const closedAt = new Promise<number>((r) => socket.on('close', () => r(Date.now())));
    socket.on('error', () => {});
    socket.once('connect', () => {
      if (first !== undefined) socket.write(first);
      resolve({ socket, closedAt, data: () => text });
    });
    socket.once('error', reject);
  });
}

const host = () => `Host: 127.0.0.1:${server.port}\r\n`;
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);

async function get(path: string, port = server.port): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  await res.arrayBuffer();
  return res.status;
}

describe('connection limits', () => {
  it('the defaults bound header time, request time, idle keep-alive and connections', () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 256,
      maxUntrustedConnections: 64,
      untrustedIdleMs: 3_000,
      checkIntervalMs: 1_000,
    });
  });

  it('half-sent requests and silent connections are closed after the header timeout', async () => {
    const start = Date.now();
    const half = await Promise.all(Array.from({ length: 10 }, () => open(`GET / HTTP/1.1\r\n${host()}X-Slow: `)));
    const silent = await Promise.all(Array.from({ length: 5 }, () => open()));
    const closed = await within(Promise.all([...half, ...silent].map((h) => h.closedAt)), 15_000);
    expect(closed).not.toBe('timeout');
    const last = Math.max(...(closed as number[])) - start;
    expect(last).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(last).toBeLessThan(LIMITS.headersTimeoutMs + 10_000); // Node's default: 60 s
    expect(half[0]!.data()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await get('/')).toBe(200);
  });

  it('a request whose body never completes is closed after the request timeout', async () => {
    const start = Date.now();
    const h = await open(`POST /api/x HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`);
    // Keep the headers' clock happy: the body dribbles in, but never all of it.
    const drip = setInterval(() => h.socket.write(' '), 100);
    const closedAt = await within(h.closedAt, 15_000);
    clearInterval(drip);
    expect(closedAt).not.toBe('timeout');
    expect((closedAt as number) - start).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const h = await open(`GET / HTTP/1.1\r\n${host()}\r\n`);
    while (!/<title>Fairground/.test(h.data())) await new Promise((r) => setTimeout(r, 10));
    const answered = Date.now();
    const closedAt = await within(h.closedAt, 4_500);
    expect(closedAt).not.toBe('timeout'); // Node's default keep-alive is 5 s
    expect((closedAt as number) - answered).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs - 50);
  });

  it('at most maxUntrustedConnections connections without the token are held: the oldest are closed, the newest kept, and the server serves again after', async () => {
    // A server of its own with long timeouts, so that no held connection is closed by a timeout during the count.
    const capped = await startHttpServer({
      router: createRouter({} as Handlers),
      events: new EventBus(),
      staticDir: dir,
      limits: { maxUntrustedConnections: LIMITS.maxConnections },
    });
    try {
      const held: Held[] = [];
      for (let i = 0; i < 60; i++) held.push(await open(undefined, capped.port));
      // The 40 oldest are closed when the later ones arrive; wait for exactly those closes (no wall-clock guess).
      await Promise.all(held.slice(0, 60 - LIMITS.maxConnections).map((h) => h.closedAt));
      const stillOpen = held.filter((h) => !h.socket.destroyed && h.socket.readyState === 'open');
      expect(stillOpen).toEqual(held.slice(60 - LIMITS.maxConnections));
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closedAt));
      expect(await get('/', capped.port)).toBe(200);
    } finally {
      await capped.close();
    }
  });

  it('untrusted connections that hold nothing in flight are closed after untrustedIdleMs, trusted ones are not', async () => {
    const token = 't'.repeat(43);
    const router: Router = { call: (method) => Promise.resolve({ ok: true, data: { method } }) };
    const s = await startHttpServer({ router, events: new EventBus(), staticDir: dir, token, limits: { untrustedIdleMs: 300, checkIntervalMs: 50 } });
    try {
      const start = Date.now();
      const idle = await open(undefined, s.port);
      const trusted = await open(`POST /api/x HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`, s.port);
      while (!/"method":"x"/.test(trusted.data())) await new Promise((r) => setTimeout(r, 10));
      const closedAt = await within(idle.closedAt, 5_000); // the 10 s header timeout would come far later
      expect(closedAt).not.toBe('timeout');
      expect((closedAt as number) - start).toBeGreaterThanOrEqual(300 - 50);
      // The tokened connection is still open well past the untrusted clock (its keep-alive is 5 s).
      expect(await within(trusted.closedAt, 1_000)).toBe('timeout');
      trusted.socket.destroy();
    } finally {
      await s.close();
    }
  });

  it('with 256 idle connections held by a process without the token, a request with the token is answered at once (issue 36 item 4)', async () => {
    const token = 'k'.repeat(43);
    const router: Router = { call: (method) => Promise.resolve({ ok: true, data: { method } }) };
    // The default limits: 256 tokened connections, 64 untrusted ones.
    const s = await startHttpServer({ router, events: new EventBus(), staticDir: dir, token });
    const held: Held[] = [];
    try {
      for (let i = 0; i < 256; i++) held.push(await open(undefined, s.port));
      const t0 = Date.now();
      const res = await within(
        fetch(`http://127.0.0.1:${s.port}/api/app.info`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' }),
        2_000,
      );
      expect(res).not.toBe('timeout');
      const r = res as Response;
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ ok: true, data: { method: 'app.info' } });
      expect(Date.now() - t0).toBeLessThan(2_000);
      // And without the token the holder gets no more than its own budget: the 192 oldest were closed.
      await Promise.all(held.slice(0, 256 - 64).map((h) => h.closedAt));
      // The user's connection evicted one more of the holder's.
      expect(held.filter((h) => h.socket.readyState === 'open').length).toBeLessThanOrEqual(64);
    } finally {
      for (const h of held) h.socket.destroy();
      await s.close();
    }
  });
});
