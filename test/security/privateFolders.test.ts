/**
 * The app's settings and keys are never readable through a request (issue 26): a token holder used
 * to read the key that seals stored API keys with two requests — allow its folder
 * (`files.setAllowedFolders`), then preview it as TSV. Now the config folder, the key file's folder
 * and the user's SSH / GnuPG folders cannot be allowed, and no file under them is read even inside an
 * allowed folder (or through a symlink from one). Probed over HTTP in browser mode.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-main/api/contract/index';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { allowFolderByCode } from '../support/folderGesture';

let dir: string;
let app: BrowserMode;
let config: string;
let keyFile: string;
const saved = { config: process.env.FAIRGROUND_CONFIG_DIR, key: process.env.FAIRGROUND_KEY_FILE };

async function api(method: string, input: unknown): Promise<{ status: number; body: { ok: boolean; error?: { code: string; message: string; field?: string } } }> {
  const res = await fetch(`${app.server.url}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as { ok: boolean; error?: { code: string; message: string; field?: string } } };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-sec-private-'));
  config = join(dir, 'config');
  keyFile = join(dir, 'keys', 'secret.key');
  mkdirSync(config);
  mkdirSync(join(dir, 'keys'));
  mkdirSync(join(dir, 'data'));
  mkdirSync(join(dir, 'ws'));
  writeFileSync(keyFile, 'a\tsecret-key-material\n');
  writeFileSync(join(config, 'notes.tsv'), 'a\tb\n');
  writeFileSync(join(dir, 'data', 'corpus.tsv'), 'id\ttext\nd1\twind power\n');
  symlinkSync(keyFile, join(dir, 'data', 'innocent.tsv'));
  process.env.FAIRGROUND_CONFIG_DIR = config;
  process.env.FAIRGROUND_KEY_FILE = keyFile;
  app = await startBrowserMode({ workspacePath: join(dir, 'ws', 'w.fairground'), staticDir: join(dir, 'no-ui') });
});
afterAll(async () => {
  await app?.close();
  for (const [k, v] of [['FAIRGROUND_CONFIG_DIR', saved.config], ['FAIRGROUND_KEY_FILE', saved.key]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("the app's settings and keys", () => {
  it('cannot be allowed as a folder', async () => {
    for (const folder of [config, join(dir, 'keys')]) {
      const r = await api('files.setAllowedFolders', { folders: [folder] });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'forbidden', field: 'folders[0]', message: expect.stringContaining("which holds the app's settings or keys and cannot be allowed") });
    }
  });

  it('are not read inside an allowed folder, directly or through a symlink; data files beside them are', async () => {
    expect(await allowFolderByCode(async (m, i) => (await api(m, i)).body as Envelope<unknown>, dir)).toMatchObject({ ok: true });
    expect((await api('collections.previewFile', { path: join(dir, 'data', 'corpus.tsv'), kind: 'corpus' })).body.ok).toBe(true);
    for (const path of [keyFile, join(config, 'notes.tsv'), join(dir, 'data', 'innocent.tsv')]) {
      const r = await api('collections.previewFile', { path, kind: 'corpus' });
      expect(r.status, path).toBe(403);
      expect(r.body.error?.message, path).toContain('not a data file');
      expect(JSON.stringify(r.body)).not.toContain('secret-key-material');
    }
  });
});
