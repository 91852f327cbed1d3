/**
 * Browser mode is the attack surface a web page in the user's browser can reach (issue 10):
 * - every /api method of the contract refuses a request without the token, with a wrong token,
 *   from another Origin, or for another Host (DNS rebinding), and such a request changes nothing;
 * - the server listens on 127.0.0.1 only: other local addresses (127.0.0.2, ::1, this machine's
 *   interface addresses) refuse connections;
 * - static files never come from outside the renderer folder, whatever the encoding of `..`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { contract } from '../../src-main/api/contract/index';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';

let dir: string;
let app: BrowserMode;
let port: number;
let token: string;
const SECRET = 'TOP-SECRET-OUTSIDE-THE-RENDERER-FOLDER';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-sec-http-'));
  const staticDir = join(dir, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Fairground</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), SECRET);
  writeFileSync(join(dir, 'renderer-secret.txt'), SECRET); // a sibling whose name starts like the folder
  app = await startBrowserMode({ workspacePath: join(dir, 'ws', 'w.fairground'), staticDir });
  port = app.server.port;
  token = app.server.token;
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Raw {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/** One HTTP/1.1 request with free Host and Origin headers (fetch forbids setting Host). */
function raw(path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...opts.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.setTimeout(5000, () => req.destroy(new Error(`timeout: ${path}`)));
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** A request line as written, for paths an HTTP client would normalise. */
function rawLine(target: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`timeout: ${target}`)));
    socket.on('data', (c) => (text += c.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const methods = Object.keys(contract).sort();

async function counts(): Promise<Record<string, number>> {
  const r = await raw('/api/workspace.info', { method: 'POST', headers: { ...JSON_TYPE, authorization: `Bearer ${token}` }, body: '{}' });
  return (JSON.parse(r.body) as { data: { counts: Record<string, number> } }).data.counts;
}

describe('every API method needs the token, our Origin and our Host', () => {
  it(`refuses all ${methods.length} methods without a valid token (401), and nothing changes`, async () => {
    const before = await counts();
    const bad: string[] = [];
    const variants: [string, Record<string, string>, string][] = [
      ['no token', {}, ''],
      ['wrong bearer', { authorization: 'Bearer wrong' }, ''],
      ['token with one character changed', { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` }, ''],
      ['token prefix', { authorization: `Bearer ${token.slice(0, 10)}` }, ''],
      ['lower-case scheme', { authorization: `bearer ${token}x` }, ''],
      ['wrong header token', { 'x-fairground-token': 'nope' }, ''],
      ['wrong query token', {}, '?token=nope'],
      ['empty query token', {}, '?token='],
    ];
    for (const m of methods) {
      for (const [label, headers, query] of variants) {
        // A body that would be valid for many methods, so a missing check would show as a change.
        const r = await raw(`/api/${m}${query}`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify({ name: 'attack', id: 1 }) });
        if (r.status !== 401 || !/"code":"unauthorized"/.test(r.body)) bad.push(`${m} (${label}): ${r.status} ${r.body.slice(0, 120)}`);
      }
      const get = await raw(`/api/${m}`);
      if (get.status !== 401) bad.push(`${m} (GET, no token): ${get.status}`);
    }
    expect(bad).toEqual([]);
    expect(await counts()).toEqual(before);
  });

  it('refuses other Origins and Hosts even with the token (403), for every method', async () => {
    const port_ = String(port);
    const hosts = [`evil.com:${port_}`, `127.0.0.1.evil.com:${port_}`, '127.0.0.1.evil.com', `localhost.evil.com:${port_}`, '127.0.0.1', `127.0.0.1:${port + 1}`, `0.0.0.0:${port_}`, `[::ffff:127.0.0.1]:${port_}`, `127.1:${port_}`, `2130706433:${port_}`];
    const origins = ['https://evil.com', `http://127.0.0.1.evil.com:${port_}`, `http://evil.com:${port_}`, 'null', `http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port_}`, 'file://'];
    const bad: string[] = [];
    for (const m of methods) {
      for (const host of hosts) {
        const r = await raw(`/api/${m}`, { method: 'POST', headers: { ...JSON_TYPE, authorization: `Bearer ${token}`, host }, body: '{}' });
        if (r.status !== 403) bad.push(`${m} Host ${JSON.stringify(host)}: ${r.status}`);
      }
      for (const origin of origins) {
        const r = await raw(`/api/${m}`, { method: 'POST', headers: { ...JSON_TYPE, authorization: `Bearer ${token}`, origin }, body: '{}' });
        if (r.status !== 403) bad.push(`${m} Origin ${origin}: ${r.status}`);
        if (r.headers['access-control-allow-origin'] !== undefined) bad.push(`${m} Origin ${origin}: sends CORS headers`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('refuses a request without a Host header or with an empty one', async () => {
    const send = (headerLines: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
        socket.on('data', (c) => (text += c.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.write(`POST /api/app.info HTTP/1.1\r\n${headerLines}Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
      });
    // HTTP/1.1 requires Host: Node answers 400 without one; an empty one is not ours (403).
    expect(await send('')).toMatch(/^HTTP\/1\.1 (400|403) /);
    expect(await send('Host: \r\n')).toMatch(/^HTTP\/1\.1 403 /);
    expect(await send(`Host: 127.0.0.1:${port}\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
    // Two Host headers (ours first, or another first) or two Origins: ambiguous, refused (issue 15 item 6).
    expect(await send(`Host: 127.0.0.1:${port}\r\nHost: evil.example\r\n`)).toMatch(/^HTTP\/1\.1 400 /);
    expect(await send(`Host: evil.example\r\nHost: 127.0.0.1:${port}\r\n`)).toMatch(/^HTTP\/1\.1 (400|403) /);
    expect(await send(`Host: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nOrigin: https://evil.example\r\n`)).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('refuses a cross-site "simple" request (text/plain or form body) even with the token in the URL', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await raw(`/api/collections.create?token=${token}`, { method: 'POST', headers: { 'content-type': type }, body: '{"name":"csrf"}' });
      expect(r.status, type).toBe(415);
    }
    const list = await raw('/api/collections.list', { method: 'POST', headers: { ...JSON_TYPE, authorization: `Bearer ${token}` }, body: '{}' });
    expect(list.body).not.toContain('csrf');
  });

  it('refuses the event WebSocket without the token, from another Origin or for another Host', async () => {
    const status = (url: string, opts: WebSocket.ClientOptions = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { ...opts, handshakeTimeout: 5000 });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => resolve(-1));
      });
    const base = `ws://127.0.0.1:${port}/api/events`;
    expect(await status(base)).toBe(401);
    expect(await status(`${base}?token=wrong`)).toBe(401);
    expect(await status(`${base}?token=${token}`, { origin: 'https://evil.com' })).toBe(403);
    expect(await status(`${base}?token=${token}`, { headers: { host: `evil.com:${port}` } })).toBe(403);
    expect(await status(`${base}?token=${token}`, { headers: { host: `127.0.0.1.evil.com:${port}` } })).toBe(403);
    expect(await status(`ws://127.0.0.1:${port}/not-events?token=${token}`)).toBe(404);
    expect(await status(`${base}?token=${token}`, { origin: `http://127.0.0.1:${port}` })).toBe(101);
  });
});

describe('the server listens on 127.0.0.1 only', () => {
  const refused = (host: string) =>
    new Promise<string>((resolve) => {
      const s = connect({ host, port });
      s.setTimeout(3000, () => {
        s.destroy();
        resolve('timeout');
      });
      s.on('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });

  it('is bound to 127.0.0.1', () => {
    expect(app.server.url).toBe(`http://127.0.0.1:${port}/`);
  });

  it('refuses connections on other loopback addresses (127.0.0.2, ::1)', async () => {
    expect(await refused('127.0.0.1')).toBe('connected');
    expect(await refused('127.0.0.2')).toBe('ECONNREFUSED');
    const v6 = await refused('::1');
    // A machine without IPv6 loopback answers EADDRNOTAVAIL (or ENETUNREACH); never a connection.
    expect(v6).not.toBe('connected');
  });

  it("refuses connections on this machine's other interface addresses", async (ctx) => {
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((a): a is NonNullable<typeof a> => !!a && !a.internal)
      .map((a) => a.address.split('%')[0]!);
    if (addresses.length === 0) {
      ctx.skip(); // no non-loopback interface here: nothing to try
      return;
    }
    for (const a of addresses) expect([a, await refused(a)]).not.toEqual([a, 'connected']);
  });
});

describe('static files never come from outside the renderer folder', () => {
  const attempts = [
    '/../secret.txt',
    '/../../secret.txt',
    '/..%2fsecret.txt',
    '/..%2Fsecret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/%252e%252e/secret.txt',
    '/%252e%252e%252fsecret.txt',
    '/..%252fsecret.txt',
    '/..%5csecret.txt',
    '/..\\secret.txt',
    '/%5c..%5csecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/.%2e/secret.txt',
    '/%c0%ae%c0%ae/secret.txt',
    '/%uff0e%uff0e/secret.txt',
    '/..%00/secret.txt',
    '/secret.txt%00.html',
    '/%00',
    '/..;/secret.txt',
    `/${encodeURIComponent(join(dir ?? '/tmp', 'secret.txt'))}`,
    '/%2fetc%2fpasswd',
    '//etc/passwd',
    '/../renderer-secret.txt',
    '/%2e%2e/renderer-secret.txt',
    '/assets/../../renderer-secret.txt',
    '/.%2e/.%2e/.%2e/.%2e/.%2e/.%2e/.%2e/.%2e/etc/passwd',
  ];

  it(`${attempts.length} traversal attempts through an HTTP client and as raw request lines`, async () => {
    const leaks: string[] = [];
    for (const p of attempts.map((a) => a.replace('/tmp', dir))) {
      for (const res of [await raw(p).then((r) => ({ status: r.status, text: r.body })), await rawLine(p)]) {
        if (res.text.includes(SECRET) || /root:.*:0:0:/.test(res.text)) leaks.push(`${p}: ${res.status}`);
        if (![200, 400, 404].includes(res.status)) leaks.push(`${p}: status ${res.status}`);
        // A 200 may only be the app shell (client-side routes fall back to index.html).
        if (res.status === 200 && !res.text.includes('<title>Fairground</title>')) leaks.push(`${p}: 200 with other content`);
      }
    }
    for (const target of ['../secret.txt', '..%2fsecret.txt', `http://127.0.0.1:${port}/../secret.txt`, '*', join(dir, 'secret.txt')]) {
      const res = await rawLine(target);
      if (res.text.includes(SECRET)) leaks.push(`request target ${target}: ${res.status}`);
    }
    expect(leaks).toEqual([]);
  });

  it('serves the app shell and its assets', async () => {
    expect((await raw('/')).body).toContain('<title>Fairground</title>');
    expect((await raw('/assets/app.js')).body).toBe('console.log(1)');
    expect((await raw('/assets/missing.js')).status).toBe(404);
  });
});
