/**
 * Audit of issue 26 ("bound header time"): test/server/connectionLimits.test.ts sets the header timeout (400 ms) below
 * the request timeout (800 ms) and only asserts that half-sent requests close within 10 s, so a server that dropped
 * `headersTimeout` still passed (Node then uses min(60 s, requestTimeout) = 800 ms). Here the request timeout is far
 * above the header timeout (300 ms against 20 s): half-sent headers must close on the header clock, not the request
 * clock, with a 408.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouter, type Handlers } from '../../src-main/api/router';
import { startHttpServer, type RunningServer } from '../../src-main/server/httpServer';
import { EventBus } from '../../src-main/services/eventBus';

const LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 300, maxConnections: 20, checkIntervalMs: 100 };
let dir: string;
let server: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-audit-headers-'));
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Fairground</title>');
  server = await startHttpServer({ router: createRouter({} as Handlers), events: new EventBus(), staticDir: dir, limits: LIMITS });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('header timeout distinct from the request timeout', () => {
  it('a request whose headers never end is answered 408 and closed on the header clock (300 ms), long before the 20 s request clock', async () => {
    const start = Date.now();
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: `);
    const closed = await Promise.race([
      new Promise<number>((r) => socket.on('close', () => r(Date.now()))),
      new Promise<'open'>((r) => setTimeout(() => r('open'), 8_000)),
    ]);
    socket.destroy();
    expect(closed).not.toBe('open');
    const after = (closed as number) - start;
    expect(after).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(after).toBeLessThan(8_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });
});
