/**
 * A remote server's API key (issue 10, issue 17 item 8). Policy: the key given to `remotes.add`
 * is sealed before it is stored (services/secrets.ts: the OS keychain in the desktop app, a
 * per-user key file outside the workspace otherwise, or only the name of an environment variable)
 * — never plain text in the workspace file — and sent only to that server in the Authorization header. It never comes back: not in any API response (every
 * method of the contract is called, with the remote's id), not in pushed events, job rows,
 * exports or manifests, not in a remote error message that echoes it, not in log lines.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { contract, type Envelope } from '../../src-main/api/contract/index';
import { redactSecrets } from '../../src-main/io/manifest/redactSecrets';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { repaired } from './contractInputs';

const KEY = 'sk-fairground-TEST-7d2c9e41b0a8-do-not-leak';

let dir: string;
let app: BrowserMode;
let fake: FakeOpenAiServer;
const events: string[] = [];
let ws: WebSocket;
const logged: string[] = [];

async function api(method: string, input: unknown): Promise<{ status: number; text: string; body: Envelope<unknown> }> {
  const res = await fetch(`http://127.0.0.1:${app.server.port}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Envelope<unknown> };
}

beforeAll(async () => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' ')));
  }
  dir = mkdtempSync(join(tmpdir(), 'fg-sec-secrets-'));
  // The per-user key that seals API keys, here in the test's folder (not the user's config folder).
  process.env.FAIRGROUND_KEY_FILE = join(dir, 'keys', 'secret.key');
  fake = await FakeOpenAiServer.start({ apiKey: KEY });
  app = await startBrowserMode({ workspacePath: join(dir, 'w.fairground'), staticDir: dir, onInternalError: (err) => logged.push(`internal ${(err as Error).stack ?? String(err)}`) });
  ws = new WebSocket(`ws://127.0.0.1:${app.server.port}/api/events?token=${app.server.token}`, { origin: `http://127.0.0.1:${app.server.port}` });
  ws.on('message', (data) => events.push(String(data)));
  await new Promise((r) => ws.on('open', r));
});
afterAll(async () => {
  ws?.close();
  await app?.close();
  await fake?.close();
  vi.restoreAllMocks();
  delete process.env.FAIRGROUND_KEY_FILE;
  rmSync(dir, { recursive: true, force: true });
});

describe('a remote API key', () => {
  let remoteId: number;

  it('is accepted by remotes.add, which answers without it', async () => {
    const r = await api('remotes.add', { name: 'server', baseUrl: fake.baseUrl, model: 'fake-model', apiKey: KEY });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(KEY);
    expect(r.body).toMatchObject({ ok: true, data: { hasApiKey: true } });
    remoteId = (r.body as { data: { id: number } }).data.id;
  });

  it('is sent to the server as a bearer token, and the reply carries no trace of it', async () => {
    const r = await api('remotes.try', { id: remoteId, request: { prompt: 'hello there', maxTokens: 4 } });
    expect(r.body.ok, r.text).toBe(true);
    expect(r.text).not.toContain(KEY);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('is redacted from a server error that echoes it', async () => {
    fake.failNext(1, { status: 401, message: `Incorrect API key provided: ${KEY}. You can find your API key at https://example.invalid` });
    const r = await api('remotes.try', { id: remoteId, request: { prompt: 'again', maxTokens: 4, temperature: 0.5, seed: 1 } });
    expect(r.body.ok).toBe(false);
    expect(r.text).toContain('Incorrect API key provided');
    expect(r.text).not.toContain(KEY);
  });

  it('never comes back from any method of the contract', async () => {
    const leaks: string[] = [];
    for (const method of Object.keys(contract).sort()) {
      if (/delete|remove|clear/i.test(method)) continue;
      const schema = contract[method as keyof typeof contract].input;
      const seen = new Set<string>();
      for (let variant = 0; variant < 6; variant++) {
        const { input } = repaired(schema, { variant, id: remoteId, pathValue: () => undefined });
        const text = JSON.stringify(input);
        if (seen.has(text)) continue;
        seen.add(text);
        const r = await api(method, input);
        if (r.text.includes(KEY)) leaks.push(`${method}: ${r.text.slice(0, 200)}`);
      }
    }
    // Job rows (params, results, errors), as the job list and the event stream carry them.
    const jobs = await api('jobs.list', {});
    if (jobs.text.includes(KEY)) leaks.push('jobs.list');
    expect(leaks).toEqual([]);
  }, 120_000);

  it('is not in pushed events or log lines', async () => {
    await new Promise((r) => setTimeout(r, 200));
    expect(events.filter((e) => e.includes(KEY))).toEqual([]);
    expect(logged.filter((l) => l.includes(KEY))).toEqual([]);
  });

  it('is not in the workspace file (sealed, issue 17 item 8), and is removed with the remote', async () => {
    const bytes = () => Buffer.concat(['', '-wal'].filter((s) => existsSync(join(dir, `w.fairground${s}`))).map((s) => readFileSync(join(dir, `w.fairground${s}`))));
    expect(bytes().includes(Buffer.from(KEY))).toBe(false);
    const stored = app.services.workspace.db.prepare(`SELECT api_key FROM remote_endpoints WHERE id = ?`).get(remoteId) as { api_key: string };
    expect(stored.api_key).toMatch(/^local:[A-Za-z0-9+/=]+$/);
    expect((await api('remotes.remove', { id: remoteId })).body).toMatchObject({ ok: true, data: { removed: true } });
    const rows = app.services.workspace.db.prepare(`SELECT count(*) AS n FROM remote_endpoints WHERE id = ?`).get(remoteId) as { n: number };
    expect(rows.n).toBe(0);
  });

  it('manifests are redacted once more at the last moment', () => {
    const redacted = JSON.stringify(redactSecrets({ engine: { apiKey: KEY, authorization: `Bearer ${KEY}`, headers: { Authorization: `Bearer ${KEY}` }, token: KEY } }));
    expect(redacted).not.toContain(KEY);
  });
});
