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
import { createRouter, type Handlers } from '../../src-main/api/router';
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
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 256, checkIntervalMs: 1_000 });
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

  it(`at most ${LIMITS.maxConnections} connections are held; the rest are closed on arrival, and the server serves again after`, async () => {
    // A server of its own with long timeouts, so that no held connection is closed by a timeout during the count.
    const capped = await startHttpServer({ router: createRouter({} as Handlers), events: new EventBus(), staticDir: dir, limits: { maxConnections: LIMITS.maxConnections } });
    try {
      const held = await Promise.all(Array.from({ length: 60 }, () => open(undefined, capped.port)));
      const early = await Promise.all(held.map((h) => within(h.closedAt, 1_000)));
      const stillOpen = early.filter((c) => c === 'timeout').length;
      expect(stillOpen).toBeLessThanOrEqual(LIMITS.maxConnections);
      expect(stillOpen).toBeGreaterThanOrEqual(LIMITS.maxConnections - 2);
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closedAt));
      await new Promise((r) => setTimeout(r, 50));
      expect(await get('/', capped.port)).toBe(200);
    } finally {
      await capped.close();
    }
  });
});
