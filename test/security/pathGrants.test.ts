/**
 * Path grants probed over HTTP (issue 15 items 3 and 4): in browser mode a request may name only
 * regular files under the allowed folders (the workspace's folder by default, more through
 * Settings → Add folder and the code printed in the server's terminal), resolved through symlinks; never /etc, /proc, /dev, a folder, a FIFO
 * or a relative path. Refusals come back at once (a /dev/zero preview used to never return).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import type { Envelope } from '../../src-main/api/contract/index';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { allowFolderByCode } from '../support/folderGesture';

let dir: string;
let ws: string;
let outside: string;
let app: BrowserMode;
const SECRET = 'SECRET-OUTSIDE-c0ffee';

interface Answer {
  status: number;
  body: { ok: boolean; data?: unknown; error?: { code: string; message: string; field?: string } };
  ms: number;
}

async function api(method: string, input: unknown): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(`${app.server.url}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'], ms: performance.now() - t0 };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-sec-grants-'));
  ws = join(dir, 'ws');
  outside = join(dir, 'outside');
  mkdirSync(ws, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'corpus.jsonl'), `{"id": "s1", "text": "${SECRET}"}\n`);
  writeFileSync(join(ws, 'corpus.jsonl'), '{"id": "d1", "text": "tidal power"}\n');
  await writeTinyGguf(join(outside, 'tiny.gguf'), { preset: 'tiny', seed: 3 });
  symlinkSync(join(outside, 'corpus.jsonl'), join(ws, 'link-out.jsonl'));
  symlinkSync(outside, join(ws, 'dir-link'));
  symlinkSync('/dev/zero', join(ws, 'zero.jsonl'));
  execFileSync('mkfifo', [join(ws, 'fifo.jsonl')]);
  mkdirSync(join(ws, 'sub'));
  app = await startBrowserMode({ workspacePath: join(ws, 'w.fairground'), staticDir: join(dir, 'no-ui') });
  await app.services.collections.importContents({ collectionName: 'c' }, 'corpus', [{ name: 'c.jsonl', content: '{"id": "d1", "text": "wind"}\n' }]);
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every path-taking request of the API with `path` in its path field. */
const probes: [string, (path: string) => unknown][] = [
  ['collections.previewFile', (path) => ({ path, kind: 'corpus' })],
  ['collections.import', (path) => ({ collectionName: 'probe', kind: 'corpus', files: [path] })],
  ['models.add', (path) => ({ path, name: `probe-${Math.random().toString(36).slice(2)}` })],
  ['retrieval.dense.build', (path) => ({ collectionId: 1, model: path })],
];

describe('path grants over HTTP (browser mode)', () => {
  it('refuses every file outside the allowed folders, system files, devices, FIFOs, folders, links out and relative paths — at once', async () => {
    const refused: Record<string, string> = {
      '/etc/passwd': 'forbidden',
      '/proc/self/environ': 'forbidden',
      '/proc/self/cmdline': 'forbidden',
      '/dev/zero': 'forbidden',
      '/dev/urandom': 'forbidden',
      [join(outside, 'corpus.jsonl')]: 'forbidden',
      [join(outside, 'tiny.gguf')]: 'forbidden',
      [join(ws, 'link-out.jsonl')]: 'forbidden',
      [join(ws, 'dir-link', 'corpus.jsonl')]: 'forbidden',
      [join(ws, 'zero.jsonl')]: 'forbidden',
      [join(ws, 'fifo.jsonl')]: 'forbidden',
      [join(ws, 'sub')]: 'validation',
      [join(ws, 'sub', '..', '..', 'outside', 'corpus.jsonl')]: 'forbidden',
      'corpus.jsonl': 'validation',
    };
    for (const [method, input] of probes) {
      for (const [path, code] of Object.entries(refused)) {
        // retrieval.dense.build: a relative "model" is a library name, not a path.
        if (method === 'retrieval.dense.build' && path === 'corpus.jsonl') continue;
        const r = await api(method, input(path));
        const text = JSON.stringify(r.body);
        expect(text, `${method} ${path}`).not.toContain(SECRET);
        if (method === 'retrieval.dense.build') {
          // A job: the path is checked when the engine opens, and the refusal is the job's error.
          const job = r.body.data as { id: string };
          const done = await app.services.jobs.wait(job.id);
          expect(done.status, `${method} ${path}`).toBe('failed');
          expect(JSON.stringify(done.error), `${method} ${path}`).toMatch(code === 'forbidden' ? /system file|not a regular file|outside the folders/ : /folder, not a file|must be absolute/);
          continue;
        }
        expect(r.body.ok, `${method} ${path}: ${text}`).toBe(false);
        expect(r.body.error!.code, `${method} ${path}: ${text}`).toBe(code);
        expect(r.status, `${method} ${path}`).toBe(code === 'forbidden' ? 403 : 400);
        expect(r.ms, `${method} ${path} answered in ${r.ms} ms`).toBeLessThan(5000);
      }
    }
    // Nothing was imported or registered.
    expect((await api('collections.list', {})).body.data).toMatchObject([{ name: 'c', counts: { documents: 1 } }]);
    expect((await api('models.list', {})).body.data).toEqual([]);
  });

  it('reads a regular file inside the workspace folder, and outside folders only once the user allows them', async () => {
    const inside = await api('collections.previewFile', { path: join(ws, 'corpus.jsonl'), kind: 'corpus' });
    expect(inside.body.ok).toBe(true);
    expect(JSON.stringify(inside.body.data)).toContain('tidal power');

    expect((await api('files.allowedFolders', {})).body.data).toEqual({ mode: 'folders', folders: [join(ws)], userFolders: [] });
    // A bare request cannot add the folder (issue 26): refused, nothing stored, its files still unreadable.
    const bare = await api('files.setAllowedFolders', { folders: [outside] });
    expect(bare.status).toBe(403);
    expect(bare.body.error).toMatchObject({ code: 'forbidden', field: 'folders[0]', message: expect.stringContaining(`${outside} was not confirmed with the code printed in the terminal`) });
    expect((await api('files.allowedFolders', {})).body.data).toMatchObject({ userFolders: [] });
    expect((await api('collections.previewFile', { path: join(outside, 'corpus.jsonl'), kind: 'corpus' })).body.error!.code).toBe('forbidden');
    // The user's gesture: Settings → Add folder, and the code from the server's terminal.
    const set = await allowFolderByCode(async (m, i) => (await api(m, i)).body as Envelope<unknown>, outside);
    expect(set).toEqual({ ok: true, data: { mode: 'folders', folders: [join(ws), realpathSync(outside)], userFolders: [realpathSync(outside)] } });
    const now = await api('collections.previewFile', { path: join(outside, 'corpus.jsonl'), kind: 'corpus' });
    expect(JSON.stringify(now.body.data)).toContain(SECRET);
    const model = await api('models.add', { path: join(outside, 'tiny.gguf'), name: 'tiny' });
    expect(model.body).toMatchObject({ ok: true, data: { name: 'tiny' } });
    // Still never a system file or device, wherever it is linked from.
    expect((await api('collections.previewFile', { path: '/dev/zero', kind: 'corpus' })).body.error!.code).toBe('forbidden');
    expect((await api('collections.previewFile', { path: join(ws, 'zero.jsonl'), kind: 'corpus' })).body.error!.code).toBe('forbidden');
    await api('files.setAllowedFolders', { folders: [] });
    expect((await api('collections.previewFile', { path: join(outside, 'corpus.jsonl'), kind: 'corpus' })).body.error!.code).toBe('forbidden');
  });

  it('never allows the filesystem root, system folders, relative or missing folders', async () => {
    for (const [folder, code] of [
      ['/', 'forbidden'],
      ['/etc', 'forbidden'],
      ['/proc', 'forbidden'],
      ['/dev', 'forbidden'],
      ['/sys/kernel', 'forbidden'],
      ['relative/folder', 'validation'],
      [join(dir, 'missing'), 'not-found'],
      [join(ws, 'corpus.jsonl'), 'validation'],
    ] as const) {
      const r = await api('files.setAllowedFolders', { folders: [folder] });
      expect(r.body.ok, folder).toBe(false);
      expect(r.body.error!.code, folder).toBe(code);
    }
    expect((await api('files.allowedFolders', {})).body.data).toMatchObject({ userFolders: [] });
  });

  it('browses allowed folders only: regular files and folders, no link out, no parent above the root', async () => {
    const top = await api('files.browse', {});
    const listing = top.body.data as { path: string; parent: string | null; entries: { name: string; kind: string }[] };
    expect(listing.path).toBe(realpathSync(ws));
    expect(listing.parent).toBeNull();
    const names = listing.entries.map((e) => `${e.kind}:${e.name}`);
    expect(names).toEqual(expect.arrayContaining(['folder:sub', 'file:corpus.jsonl', 'file:w.fairground']));
    for (const hidden of ['file:link-out.jsonl', 'folder:dir-link', 'file:zero.jsonl', 'file:fifo.jsonl']) expect(names).not.toContain(hidden);
    const sub = (await api('files.browse', { path: join(ws, 'sub') })).body.data as { parent: string };
    expect(sub.parent).toBe(realpathSync(ws));
    for (const p of [outside, '/', '/etc', '/proc/self', join(ws, 'dir-link')]) {
      const r = await api('files.browse', { path: p });
      expect(r.body.error?.code, p).toBe('forbidden');
    }
  });
});
