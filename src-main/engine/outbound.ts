/**
 * Outbound HTTP as the user typed it (issue 15 item 3): `outboundFetch` follows redirects itself
 * and refuses one that leads to a loopback, private, link-local or otherwise non-public address
 * the user did not type — so a model URL or a remote server cannot bounce a request onto
 * 127.0.0.1, the LAN or a cloud metadata endpoint (169.254.169.254). The URL the user typed is
 * fetched even when it is local (a llama.cpp server on 127.0.0.1 is a normal setup).
 *
 * A redirect to another host is checked twice: its name's addresses before it is followed (for a
 * clear error), and again by the connection itself, whose address lookup refuses a non-public
 * answer — so a DNS answer that changes between the check and the connection (rebinding) cannot
 * reach a private address either.
 */
import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import { BlockList, isIP } from 'node:net';
import type { Agent } from 'undici';

const nonPublic = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  nonPublic.addSubnet(net, bits, 'ipv6');
}

/** True for an IP address that is not on the public internet (loopback, private, link-local, CGNAT, multicast, reserved). */
export function isNonPublicAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const v = isIP(a);
  if (v === 4) return nonPublic.check(a, 'ipv4');
  if (v === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
    if (mapped) return nonPublic.check(mapped[1]!, 'ipv4');
    return nonPublic.check(a, 'ipv6');
  }
  return false;
}

export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export type Resolver = (host: string) => Promise<string[]>;

const dnsResolver: Resolver = async (host) => (await lookup(host, { all: true })).map((r) => r.address);

/**
 * A connection pool whose every connection looks its host up with `resolve` and refuses to
 * connect when an answer is not public: the check and the connection use the same answer.
 */
function publicOnlyAgent(resolve: Resolver): Agent {
  // undici is loaded here, by the first redirect off the typed host: a command that never follows
  // one (every local run) does not load it at start-up.
  const { Agent } = createRequire(import.meta.url)('undici') as typeof import('undici');
  return new Agent({
    connect: {
      lookup: (hostname: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
        resolve(hostname).then(
          (addresses) => {
            const bad = addresses.find(isNonPublicAddress);
            if (addresses.length === 0) callback(new Error(`${hostname}: no address`), []);
            else if (bad !== undefined) callback(new OutboundRefusedError(`a redirect to ${hostname} resolved to ${bad} when connecting, a local or private address that was not typed; refused`), []);
            else if (options.all) callback(null, addresses.map((address) => ({ address, family: isIP(address) })));
            else callback(null, addresses[0]!, isIP(addresses[0]!));
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), []),
        );
      },
    },
  });
}

let defaultAgent: Agent | undefined;

export interface OutboundOptions {
  /** At most this many redirects (default 5). */
  maxRedirects?: number;
  /** Name resolution (tests). */
  resolve?: Resolver;
}

/** Whether a redirect target may be fetched: the host the user typed always; another host only if every address it resolves to is public. */
export async function checkRedirectTarget(target: URL, typed: URL, resolve: Resolver = dnsResolver): Promise<void> {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new OutboundRefusedError(`${typed.href} redirected to a ${target.protocol} URL, which is not fetched`);
  if (target.hostname === typed.hostname) return;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else if (host === 'localhost' || host.endsWith('.localhost')) addresses = ['127.0.0.1'];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return; // fetch itself will fail to connect, with its own message
    }
  }
  const bad = addresses.find(isNonPublicAddress);
  if (bad !== undefined) {
    throw new OutboundRefusedError(`${typed.href} redirected to ${target.origin} (${bad}), a local or private address that was not typed; refused`);
  }
}

/** `fetch` that follows redirects only to public addresses (or to the host typed). */
export async function outboundFetch(input: string | URL, init: RequestInit = {}, options: OutboundOptions = {}): Promise<Response> {
  const typed = new URL(String(input));
  const max = options.maxRedirects ?? 5;
  let url = typed;
  let current: RequestInit = { ...init, redirect: 'manual' };
  for (let hop = 0; ; hop++) {
    // Off the host typed, the connection itself refuses a non-public address (rebinding).
    const dispatcher = url.hostname === typed.hostname ? undefined : options.resolve ? publicOnlyAgent(options.resolve) : (defaultAgent ??= publicOnlyAgent(dnsResolver));
    let response: Response;
    try {
      response = await fetch(url, dispatcher ? ({ ...current, dispatcher } as RequestInit) : current);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      throw cause instanceof OutboundRefusedError ? cause : error;
    }
    if (response.status < 300 || response.status > 399 || response.status === 304) return response;
    const location = response.headers.get('location');
    if (!location) return response;
    await response.body?.cancel();
    if (hop >= max) throw new OutboundRefusedError(`${typed.href}: more than ${max} redirects`);
    const next = new URL(location, url);
    await checkRedirectTarget(next, typed, options.resolve);
    // 303, and 301/302 after a POST, become a GET without a body (as fetch does).
    const method = (current.method ?? 'GET').toUpperCase();
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      const { body: _body, ...rest } = current;
      current = { ...rest, method: 'GET' };
    }
    // Credentials go only to the host the user typed them for.
    if (next.origin !== url.origin && current.headers) {
      const headers = new Headers(current.headers);
      headers.delete('authorization');
      current = { ...current, headers };
    }
    url = next;
  }
}
