import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';

let dir: string;
let app: BrowserMode;
let base: string;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-http-'));
  const staticDir = join(dir, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Fairground</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'top secret');
  app = await startBrowserMode({ workspacePath: join(dir, 'w.fairground'), staticDir });
  base = `http://127.0.0.1:${app.server.port}`;
  token = app.server.token;
});

afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Raw HTTP request so Host and Origin can be set freely (fetch forbids changing Host). */
function raw(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: app.server.port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${app.server.port}`, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

const json = { 'content-type': 'application/json' };

describe('browser-mode HTTP API', () => {
  it('prints a launch URL with the token on 127.0.0.1', () => {
    expect(app.server.launchUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('refuses API calls without the token or with a wrong one (401)', async () => {
    const none = await raw('/api/app.info', { method: 'POST', headers: json, body: '{}' });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    const wrong = await raw('/api/app.info', { method: 'POST', headers: { ...json, authorization: 'Bearer nope' }, body: '{}' });
    expect(wrong.status).toBe(401);
  });

  it('answers with the token', async () => {
    const res = await raw('/api/app.info', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: '{}' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ok: true, data: { name: 'Fairground', transport: 'http' } });
  });

  it('refuses a foreign Origin (403) and never sends CORS headers', async () => {
    const res = await raw('/api/app.info', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}`, origin: 'https://evil.example' }, body: '{}' });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await raw('/api/app.info', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(403);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('accepts its own Origin', async () => {
    const res = await raw('/api/app.info', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}`, origin: base }, body: '{}' });
    expect(res.status).toBe(200);
  });

  it('refuses a foreign Host even with the token (DNS rebinding)', async () => {
    const res = await raw('/api/app.info', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}`, host: `attacker.example:${app.server.port}` }, body: '{}' });
    expect(res.status).toBe(403);
    const page = await raw('/', { headers: { host: 'attacker.example' } });
    expect(page.status).toBe(403);
  });

  it('returns a typed validation error naming the field', async () => {
    const res = await raw('/api/settings.update', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: JSON.stringify({ pageSize: 5 }) });
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ ok: false, error: { code: 'validation', field: 'pageSize' } });
    expect(body.error.message).toMatch(/^pageSize: /);
    const extra = await raw('/api/settings.update', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: JSON.stringify({ colour: 'red' }) });
    expect(JSON.parse(extra.body).error.code).toBe('validation');
  });

  it('rejects malformed JSON, wrong content type, unknown methods and GET on the API', async () => {
    const auth = { authorization: `Bearer ${token}` };
    expect((await raw('/api/app.info', { method: 'POST', headers: { ...json, ...auth }, body: '{oops' })).status).toBe(400);
    expect((await raw('/api/app.info', { method: 'POST', headers: { 'content-type': 'text/plain', ...auth }, body: '{}' })).status).toBe(415);
    expect((await raw('/api/no.such', { method: 'POST', headers: { ...json, ...auth }, body: '{}' })).status).toBe(404);
    expect((await raw(`/api/app.info?token=${token}`)).status).toBe(405);
  });

  it('serves the UI with a strict CSP and never a file outside the renderer folder', async () => {
    const page = await raw('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>Fairground</title>');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    expect((await raw('/assets/app.js')).body).toBe('console.log(1)');
    for (const p of ['/../secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/%2e%2e/secret.txt']) {
      const res = await raw(p);
      expect(res.body).not.toContain('top secret');
    }
    expect((await raw('/assets/missing.js')).status).toBe(404);
  });

  it('pushes job progress over the WebSocket only with the token and our Origin', async () => {
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${app.server.port}/api/events?token=wrong`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(200));
    });
    expect(refused).toBe(401);
    const foreign = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${app.server.port}/api/events?token=${token}`, { origin: 'https://evil.example' });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(200));
    });
    expect(foreign).toBe(403);

    const ws = new WebSocket(`ws://127.0.0.1:${app.server.port}/api/events?token=${token}`, { origin: base });
    await new Promise((r) => ws.on('open', r));
    const statuses: string[] = [];
    const finished = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const e = JSON.parse(String(data));
        statuses.push(e.payload.status);
        if (e.payload.status === 'succeeded') resolve();
      });
    });
    const res = await raw('/api/workspace.check', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: '{}' });
    expect(JSON.parse(res.body)).toMatchObject({ ok: true, data: { kind: 'workspace.check', status: 'running' } });
    await finished;
    ws.close();
    expect(statuses[0]).toBe('running');
    expect(statuses.at(-1)).toBe('succeeded');
  });
});

describe('malformed requests', () => {
  it('refuses a WebSocket upgrade with an unparsable path instead of crashing the server', async () => {
    const { connect } = await import('node:net');
    const status = await new Promise<string>((resolve, reject) => {
      const sock = connect(app.server.port, '127.0.0.1', () => {
        sock.write(
          `GET //[ HTTP/1.1\r\nHost: 127.0.0.1:${app.server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
      let got = '';
      sock.on('data', (d) => (got += d.toString()));
      sock.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
      sock.on('error', reject);
    });
    expect(status).toBe('HTTP/1.1 400 Bad Request');
    // the server is still alive and answering
    const res = await raw('/api/app.info', { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: '{}' });
    expect(res.status).toBe(200);
  });
});
