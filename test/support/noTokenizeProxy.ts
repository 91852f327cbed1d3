/**
 * A forwarding proxy in front of a real server that answers 404 to /tokenize and /detokenize (as a
 * server with its tokenizer off would) and passes everything else through unchanged: the remote
 * engine behind it cannot tokenize, so it calibrates its token estimate (issue 35 item 7).
 */
import { createServer, request as httpRequest } from 'node:http';

export interface NoTokenizeProxy {
  /** The proxy's API root (…/v1). */
  baseUrl: string;
  close(): Promise<void>;
}

/** Start one in front of `target` (a base URL); each request's `METHOD /path` is pushed to `log`. */
export async function startNoTokenizeProxy(target: string, log: string[] = []): Promise<NoTokenizeProxy> {
  const up = new URL(target);
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    log.push(`${req.method} ${path}`);
    if (/\/(de)?tokenize$/.test(path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }));
      return;
    }
    const fwd = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    fwd.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(fwd);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
