/**
 * Sealing remote API keys (issue 17 item 8; services/secrets.ts): a key typed is stored sealed
 * (OS keychain in Electron, else a per-user key file with mode 0600), or only an environment
 * variable's name is; plain keys an older version stored are sealed when the workspace opens and
 * keep working; a key sealed by another user fails with a message saying to add it again.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { SecretStore, type OsCipher } from '../../src-main/services/secrets';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';

const KEY = 'sk-plain-5b1e-old-version';
let dir: string;
let fake: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-sec-seal-'));
  fake = await FakeOpenAiServer.start({ apiKey: KEY });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SecretStore', () => {
  it('seals with a per-user key file (0600), opens with it, and not with another user’s', () => {
    const env = { FAIRGROUND_KEY_FILE: join(dir, 'a', 'secret.key') };
    const a = new SecretStore(null, env);
    const sealed = a.seal(KEY)!;
    expect(sealed).toMatch(/^local:/);
    expect(sealed).not.toContain(KEY);
    expect(a.seal(KEY)).not.toBe(sealed); // a fresh IV each time
    expect(a.open(sealed, 'lab')).toBe(KEY);
    expect(new SecretStore(null, env).open(sealed, 'lab')).toBe(KEY);
    if (process.platform !== 'win32') expect(statSync(env.FAIRGROUND_KEY_FILE).mode & 0o777).toBe(0o600);
    const other = new SecretStore(null, { FAIRGROUND_KEY_FILE: join(dir, 'b', 'secret.key') });
    expect(() => other.open(sealed, 'lab')).toThrow(/API key of 'lab' was sealed for another user or machine \(no key at .*\): add the key again/);
    other.seal('x'); // b now has a key of its own: still not a's
    expect(() => other.open(sealed, 'lab')).toThrow(/sealed for another user or machine: add the key again/);
  });

  it('uses the OS keychain when there is one, and stores only a name for apiKeyEnv', () => {
    const os: OsCipher = {
      isEncryptionAvailable: () => true,
      encryptString: (p) => Buffer.from(`sealed(${p})`),
      decryptString: (b) => /^sealed\((.*)\)$/.exec(b.toString())![1]!,
    };
    const s = new SecretStore(os, { LAB_KEY: 'sk-from-env' });
    const sealed = s.seal(KEY)!;
    expect(sealed).toBe(`safe:${Buffer.from(`sealed(${KEY})`).toString('base64')}`);
    expect(s.open(sealed, 'lab')).toBe(KEY);
    expect(s.seal(undefined, 'LAB_KEY')).toBe('env:LAB_KEY');
    expect(s.open('env:LAB_KEY', 'lab')).toBe('sk-from-env');
    expect(() => s.open('env:MISSING_KEY', 'lab')).toThrow(`the API key of 'lab' is read from the environment variable MISSING_KEY, which is not set`);
    expect(() => s.seal(undefined, 'NOT A NAME')).toThrow(/not an environment variable name/);
    // A keychain seal read where no keychain is reachable (the CLI): a clear error.
    expect(() => new SecretStore(null, {}).open(sealed, 'lab')).toThrow(/OS keychain, which this process cannot reach/);
  });
});

describe('keys in a workspace', () => {
  it('a plain key written by an older version is sealed when the workspace opens, and still reaches the server', async () => {
    process.env.FAIRGROUND_KEY_FILE = join(dir, 'c', 'secret.key');
    try {
      const path = join(dir, 'old.fairground');
      const first = createAppServices(path, { transport: 'http' });
      first.workspace.db
        .prepare(`INSERT INTO remote_endpoints(name, base_url, model, api_key, settings, added_at) VALUES ('old', ?, 'fake-model', ?, '{}', '2026-01-01T00:00:00Z')`)
        .run(fake.baseUrl, KEY);
      await first.close();
      expect(readFileSync(path).includes(Buffer.from(KEY))).toBe(true);

      const s = createAppServices(path, { transport: 'http' });
      try {
        const row = s.workspace.db.prepare(`SELECT id, api_key FROM remote_endpoints WHERE name = 'old'`).get() as { id: number; api_key: string };
        expect(row.api_key).toMatch(/^local:/);
        const reply = await s.models.try({ kind: 'remote', endpointId: row.id }, { prompt: 'hello', maxTokens: 2, temperature: 0, chat: false });
        expect(reply.text.length).toBeGreaterThan(0);
        expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
        // Added with an environment variable's name: nothing secret stored, the key read at use.
        process.env.FG_TEST_LAB_KEY = KEY;
        const viaEnv = await s.models.addRemote({ name: 'env', baseUrl: fake.baseUrl, model: 'fake-model', apiKeyEnv: 'FG_TEST_LAB_KEY', serverKind: 'openai', maxConcurrency: 1, probe: false });
        expect((s.workspace.db.prepare(`SELECT api_key FROM remote_endpoints WHERE id = ?`).get(viaEnv.id) as { api_key: string }).api_key).toBe('env:FG_TEST_LAB_KEY');
        await s.models.try({ kind: 'remote', endpointId: viaEnv.id }, { prompt: 'hi', maxTokens: 2, temperature: 0, chat: false });
        expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
      } finally {
        delete process.env.FG_TEST_LAB_KEY;
        await s.close();
      }
      // Checkpointed and closed: the old plain text is gone from the file's live pages.
      const db = (await import('better-sqlite3')).default;
      const ro = new db(path, { readonly: true });
      expect((ro.prepare(`SELECT count(*) AS n FROM remote_endpoints WHERE api_key = ?`).get(KEY) as { n: number }).n).toBe(0);
      ro.close();
    } finally {
      delete process.env.FAIRGROUND_KEY_FILE;
    }
  });
});
