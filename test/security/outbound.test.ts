/**
 * Outbound URLs only as typed (issue 15 item 3): a redirect may not bounce a model download or a
 * remote-server call onto a loopback, private or link-local address the user did not type; the
 * typed URL itself may be local (a llama.cpp server on 127.0.0.1).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRedirectTarget, isNonPublicAddress, outboundFetch, OutboundRefusedError } from '../../src-main/engine/outbound';

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(`${req.headers.host} ${req.url} auth=${req.headers.authorization ?? ''}`);
    const to = (location: string) => {
      res.writeHead(302, { location });
      res.end();
    };
    if (req.url === '/same') return to('/final');
    if (req.url === '/to-metadata') return to('http://169.254.169.254/latest/meta-data/');
    if (req.url === '/to-other-loopback') return to(`http://127.0.0.2:${(server.address() as AddressInfo).port}/final`);
    if (req.url === '/to-localhost') return to(`http://localhost:${(server.address() as AddressInfo).port}/final`);
    if (req.url === '/to-file') return to('file:///etc/passwd');
    if (req.url === '/to-rebind') return to(`http://rebind.test:${(server.address() as AddressInfo).port}/final`);
    if (req.url === '/loop') return to('/loop');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('final');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe('outbound requests', () => {
  it('classifies addresses: loopback, private, link-local, CGNAT, ULA and mapped IPv4 are not public', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '[::1]', '224.0.0.1']) {
      expect(isNonPublicAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', 'example.org']) expect(isNonPublicAddress(a), a).toBe(false);
  });

  it('fetches the typed loopback URL and follows a redirect on the same host', async () => {
    const r = await outboundFetch(`${base}/same`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('final');
  });

  it('refuses redirects to an address the user did not type: cloud metadata, another loopback address, localhost, file:', async () => {
    hits.length = 0;
    for (const path of ['/to-metadata', '/to-other-loopback', '/to-localhost', '/to-file']) {
      await expect(outboundFetch(`${base}${path}`), path).rejects.toThrow(OutboundRefusedError);
    }
    // Only the typed server was contacted.
    expect(hits.every((h) => h.startsWith('127.0.0.1:'))).toBe(true);
    await expect(outboundFetch(`${base}/loop`)).rejects.toThrow(/more than 5 redirects/);
  });

  it('checks names by what they resolve to: a public name resolving to a private address is refused', async () => {
    const typed = new URL('https://huggingface.co/x/resolve/main/m.gguf');
    await expect(checkRedirectTarget(new URL('https://cdn.example/m.gguf'), typed, async () => ['10.0.0.5'])).rejects.toThrow(/10\.0\.0\.5/);
    await expect(checkRedirectTarget(new URL('https://cdn.example/m.gguf'), typed, async () => ['93.184.216.34', 'fd00::2'])).rejects.toThrow(/fd00::2/);
    await expect(checkRedirectTarget(new URL('https://cdn.example/m.gguf'), typed, async () => ['93.184.216.34'])).resolves.toBeUndefined();
    await expect(checkRedirectTarget(new URL('https://huggingface.co/other'), typed, async () => ['10.0.0.5'])).resolves.toBeUndefined();
  });

  it('a name that resolves to a public address when checked and to loopback when connecting (DNS rebinding) is refused at the connection', async () => {
    hits.length = 0;
    const answers: string[] = [];
    // First answer (the check): public; every later one (the connection's own lookup): loopback.
    const rebinding = async (host: string) => {
      answers.push(host);
      return answers.length === 1 ? ['93.184.216.34'] : ['127.0.0.1'];
    };
    const refused = await outboundFetch(`${base}/to-rebind`, {}, { resolve: rebinding }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(OutboundRefusedError);
    expect(String(refused)).toContain('a redirect to rebind.test resolved to 127.0.0.1 when connecting');
    expect(answers).toEqual(['rebind.test', 'rebind.test']);
    // The redirect never reached the server behind the rebound name.
    expect(hits).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+ \/to-rebind /)]);
  });
});
