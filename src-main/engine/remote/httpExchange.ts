/**
 * One HTTP request and its response body, read as it streams in up to a cap, over Node's own
 * http/https with keep-alive connections.
 *
 * Why not `fetch`: undici's fetch costs about three times the CPU per request of `node:http`
 * (measured on loopback: 2.2–3.2 ms against 0.6–0.9 ms per call, client side, on the shared
 * 2-core machine), and a pool of endpoints at a few hundred calls per second spends that on its
 * one event loop — which is what kept 4 endpoints from reaching 4× one endpoint in the pools bench.
 *
 * Redirects keep the outbound policy (outbound.ts, issue 15): a 3xx answer with a Location is not
 * followed here; the request is made again through `outboundFetch`, which follows redirects only
 * to public addresses or the host typed.
 */
import http from 'node:http';
import https from 'node:https';
import { outboundFetch } from '../outbound';

export interface Exchange {
  status: number;
  /** Response headers (lower-case names). */
  headers: Headers;
  text: string;
}

/** The body was larger than the cap; the rest was not read (the connection is closed). */
export class BodyTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`response larger than ${bytes} bytes`);
  }
}

const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

/**
 * Sends the request and reads the whole answer (at most `maxBytes`). Rejects on a network error,
 * on BodyTooLarge, and with an AbortError when `signal` aborts (request or body).
 */
export async function exchange(
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined; signal: AbortSignal },
  maxBytes: number,
): Promise<Exchange> {
  const direct = await request(url, init, maxBytes);
  if ('redirect' in direct) {
    // Rare for an API: let the policy-keeping fetch make the request again and follow it.
    const response = await outboundFetch(url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal });
    return { status: response.status, headers: response.headers, text: await readCappedBody(response, maxBytes) };
  }
  return direct;
}

function request(
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined; signal: AbortSignal },
  maxBytes: number,
): Promise<Exchange | { redirect: true }> {
  return new Promise((resolve, reject) => {
    const { signal } = init;
    if (signal.aborted) {
      reject(abortError());
      return;
    }
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
    let done = false;
    const finish = (error: Error | undefined, value?: Exchange | { redirect: true }): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(value!);
    };
    const onAbort = (): void => finish(abortError());
    const req = (secure ? https : http).request(target, { method: init.method, headers, agent: secure ? agents.https : agents.http }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status <= 399 && status !== 304 && res.headers.location) {
        res.resume();
        finish(undefined, { redirect: true });
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(new BodyTooLarge(maxBytes));
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      res.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxBytes) {
          finish(new BodyTooLarge(maxBytes));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        const raw = res.headers;
        let parsed: Headers | undefined;
        finish(undefined, {
          status,
          // Built only when read (error answers): most answers never need it.
          get headers() {
            return (parsed ??= toHeaders(raw));
          },
          text: Buffer.concat(chunks, total).toString('utf8'),
        });
      });
      res.on('error', (error) => finish(error));
      res.on('aborted', () => finish(new Error('the server closed the connection mid-response')));
    });
    req.on('error', (error) => finish(error));
    signal.addEventListener('abort', onAbort, { once: true });
    req.end(init.body);
  });
}

/** A fetch Response's body, at most `maxBytes`. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(maxBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

function abortError(): Error {
  const error = new Error('aborted');
  error.name = 'AbortError';
  return error;
}
