import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { DownloadError } from '../../../src-main/engine/download/downloadError';
import { downloadModel, type DownloadProgress } from '../../../src-main/engine/download/downloadModel';
import { FakeDownloadServer, generatedFile, sha256Of, type FakeDownloadOptions } from '../../support/fakeDownloadServer';

const size = 300_000;
const content = generatedFile(size, 7);
const sha = sha256Of(content);

let server: FakeDownloadServer;
let dir: string;

/** The most bytes any download of this test reported on disk (its progress events). */
let receivedMost = 0;
const trackReceived = (p: DownloadProgress): void => {
  receivedMost = Math.max(receivedMost, p.receivedBytes);
};

/**
 * The server cuts only once the client reported holding every byte sent (at most 10 s), so what
 * a test asserts of the partial file does not depend on the machine's load. (A fixed 50 ms grace
 * failed once at load 20: the client had kept nothing, and rightly asked again without Range.)
 */
async function clientHolds(sentUpTo: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (receivedMost < sentUpTo && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
}

async function startServer(options: Partial<FakeDownloadOptions> = {}): Promise<FakeDownloadServer> {
  await server?.close();
  server = await FakeDownloadServer.start({ beforeCut: clientHolds, ...options });
  server.addFile('/models/tiny.gguf', content);
  return server;
}

/** Options every test shares: quick reconnects, every progress event, warnings kept out of the log. */
const quick = { retryDelayMs: 1, progressIntervalMs: 0, onWarning: () => undefined, onProgress: trackReceived };

async function downloadError(promise: Promise<unknown>): Promise<DownloadError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return error as DownloadError;
}

beforeEach(async () => {
  receivedMost = 0;
  dir = await mkdtemp(path.join(tmpdir(), 'fairground-download-'));
  await startServer();
});

afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('downloadModel', () => {
  it('downloads the whole file, verifies the SHA-256 and reports progress', async () => {
    const events: DownloadProgress[] = [];
    const result = await downloadModel({
      ...quick,
      url: `${server.origin}/models/tiny.gguf`,
      destDir: dir,
      expectedSha256: sha.toUpperCase(),
      onProgress: (p) => events.push(p),
    });
    expect(result).toEqual({ path: path.join(dir, 'tiny.gguf'), sizeBytes: size, sha256: sha, resumedFromBytes: 0, alreadyPresent: false });
    expect(sha256Of(await readFile(result.path))).toBe(sha);
    expect(await readdir(dir)).toEqual(['tiny.gguf']);
    expect(events[0]).toEqual({ receivedBytes: 0, totalBytes: size });
    expect(events.at(-1)).toEqual({ receivedBytes: size, totalBytes: size });
    expect(events.map((e) => e.receivedBytes)).toEqual([...events.map((e) => e.receivedBytes)].sort((a, b) => a - b));
    expect(server.requests[0]!.range).toBeUndefined();
  });

  it('reports the computed SHA-256 when none is expected, and names the file as asked', async () => {
    const result = await downloadModel({ ...quick, url: `${server.origin}/models/tiny.gguf`, destDir: path.join(dir, 'nested'), fileName: 'renamed.gguf' });
    expect(result.sha256).toBe(sha);
    expect(result.path).toBe(path.join(dir, 'nested', 'renamed.gguf'));
  });

  it('resumes an interrupted download with a Range request', async () => {
    await startServer({ cutAfterBytes: 100_000, cutCount: 1 });
    const url = `${server.origin}/models/tiny.gguf`;
    const first = await downloadError(downloadModel({ ...quick, url, destDir: dir, expectedSha256: sha, retries: 0 }));
    expect(first.code).toBe('network');
    const kept = (await stat(path.join(dir, 'tiny.gguf.partial'))).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(100_000);

    const result = await downloadModel({ ...quick, url, destDir: dir, expectedSha256: sha });
    expect(server.requests.map((r) => [r.range, r.status])).toEqual([
      [undefined, 200],
      [`bytes=${kept}-`, 206],
    ]);
    expect(server.requests[1]!.ifRange).toMatch(/^"[0-9a-f]{16}"$/);
    expect(result.resumedFromBytes).toBe(kept);
    expect(sha256Of(await readFile(result.path))).toBe(sha);
    expect(await readdir(dir)).toEqual(['tiny.gguf']);
  });

  it('reconnects by itself after a dropped connection, resuming each time', async () => {
    await startServer({ cutAfterBytes: 50_000, cutCount: 2 });
    const result = await downloadModel({ ...quick, url: `${server.origin}/models/tiny.gguf`, destDir: dir, expectedSha256: sha, retries: 3 });
    expect(result.sha256).toBe(sha);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.slice(1).every((r) => r.range !== undefined && r.status === 206)).toBe(true);
  });

  it('starts over when the server does not support Range', async () => {
    await startServer({ rangeSupport: false, cutAfterBytes: 100_000, cutCount: 1 });
    const result = await downloadModel({ ...quick, url: `${server.origin}/models/tiny.gguf`, destDir: dir, expectedSha256: sha, retries: 1 });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
    expect(server.requests[1]!.range).toMatch(/^bytes=\d+-$/); // asked, but got the whole file
    expect(result.resumedFromBytes).toBe(0);
    expect(sha256Of(await readFile(result.path))).toBe(sha);
  });

  it('starts over when the file changed since the partial download (If-Range)', async () => {
    await startServer({ cutAfterBytes: 100_000, cutCount: 1 });
    const url = `${server.origin}/models/tiny.gguf`;
    await downloadError(downloadModel({ ...quick, url, destDir: dir, retries: 0 }));
    const changed = generatedFile(size, 8);
    server.addFile('/models/tiny.gguf', changed);
    const result = await downloadModel({ ...quick, url, destDir: dir, expectedSha256: sha256Of(changed) });
    expect(server.requests[1]!.status).toBe(200);
    expect(result.sha256).toBe(sha256Of(changed));
  });

  it('fails on a checksum mismatch and leaves no file behind', async () => {
    const wrong = 'a'.repeat(64);
    const error = await downloadError(downloadModel({ ...quick, url: `${server.origin}/models/tiny.gguf`, destDir: dir, expectedSha256: wrong }));
    expect(error.code).toBe('checksum-mismatch');
    expect(error.message).toContain(`SHA-256 is ${sha}, expected ${wrong}`);
    expect(await readdir(dir)).toEqual([]);
  });

  it('reports a 404 clearly', async () => {
    const error = await downloadError(downloadModel({ ...quick, url: `${server.origin}/models/missing.gguf`, destDir: dir }));
    expect(error).toMatchObject({ code: 'not-found', status: 404 });
    expect(error.message).toContain('/models/missing.gguf: not found (HTTP 404)');
    expect(await readdir(dir)).toEqual([]);
  });

  it('reports a destination it cannot write as a disk error', async () => {
    const blocker = path.join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const error = await downloadError(downloadModel({ ...quick, url: `${server.origin}/models/tiny.gguf`, destDir: path.join(blocker, 'models') }));
    expect(error.code).toBe('disk');
    expect(error.message).toMatch(/ENOTDIR|EEXIST/);
  });

  it('maps hf:<owner>/<repo>/<file> to <hub>/<owner>/<repo>/resolve/main/<file>, following the redirect', async () => {
    server.redirect('/acme/tiny-llm/resolve/main/quant/tiny.gguf', '/cdn/blobs/abc123');
    server.addFile('/cdn/blobs/abc123', content);
    const result = await downloadModel({ ...quick, url: 'hf:acme/tiny-llm/quant/tiny.gguf', hubBaseUrl: server.origin, destDir: dir, expectedSha256: sha });
    expect(result.path).toBe(path.join(dir, 'tiny.gguf'));
    expect(server.requests.map((r) => [r.path, r.status])).toEqual([
      ['/acme/tiny-llm/resolve/main/quant/tiny.gguf', 302],
      ['/cdn/blobs/abc123', 200],
    ]);
  });

  it('cancels mid-transfer, keeps the partial file, and a later call resumes from it', async () => {
    await startServer({ chunkSize: 8192, chunkDelayMs: 2 });
    const url = `${server.origin}/models/tiny.gguf`;
    const controller = new AbortController();
    const error = await downloadError(
      downloadModel({
        ...quick,
        url,
        destDir: dir,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.receivedBytes >= 60_000) controller.abort();
        },
      }),
    );
    expect(error.code).toBe('aborted');
    const kept = (await stat(path.join(dir, 'tiny.gguf.partial'))).size;
    expect(kept).toBeGreaterThanOrEqual(60_000);
    expect(kept).toBeLessThan(size);
    expect(existsSync(path.join(dir, 'tiny.gguf'))).toBe(false);

    server.options.chunkDelayMs = 0;
    const result = await downloadModel({ ...quick, url, destDir: dir, expectedSha256: sha });
    expect(result.resumedFromBytes).toBe(kept);
    expect(server.requests.at(-1)!.range).toBe(`bytes=${kept}-`);
  });

  it('skips the download when the file is already there with the expected hash', async () => {
    await writeFile(path.join(dir, 'tiny.gguf'), content);
    const result = await downloadModel({ ...quick, url: `${server.origin}/models/tiny.gguf`, destDir: dir, expectedSha256: sha });
    expect(result.alreadyPresent).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('treats a partial file that is already complete (416) as done', async () => {
    const url = `${server.origin}/models/tiny.gguf`;
    await writeFile(path.join(dir, 'tiny.gguf.partial'), content);
    await writeFile(path.join(dir, 'tiny.gguf.partial.json'), JSON.stringify({ url, totalBytes: size }));
    const result = await downloadModel({ ...quick, url, destDir: dir, expectedSha256: sha });
    expect(server.requests.map((r) => r.status)).toEqual([416]);
    expect(result.resumedFromBytes).toBe(size);
    expect(await readdir(dir)).toEqual(['tiny.gguf']);
  });

  it('rejects bad input as data errors', async () => {
    await expect(downloadModel({ url: 'ftp://x/y.gguf', destDir: dir })).rejects.toThrow(DataError);
    await expect(downloadModel({ url: 'hf:only-owner/file.gguf', destDir: dir })).rejects.toThrow(/hf:<owner>\/<repo>\/<file>/);
    await expect(downloadModel({ url: `${server.origin}/models/tiny.gguf`, destDir: dir, fileName: '../escape.gguf' })).rejects.toThrow(DataError);
    await expect(downloadModel({ url: `${server.origin}/models/tiny.gguf`, destDir: dir, expectedSha256: 'abc' })).rejects.toThrow(DataError);
    expect(server.requests).toHaveLength(0);
  });
});
