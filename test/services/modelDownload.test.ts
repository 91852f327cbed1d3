/**
 * Downloading a model into the library: a loopback file server with HTTP ranges, a job that is
 * cancelled mid-transfer and resumed (continuing the partial file), the SHA-256 check, hf: URLs
 * and the CLI.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { runCliCaptured } from '../support/cli';
import { FakeDownloadServer, sha256Of } from '../support/fakeDownloadServer';

let dir: string;
let server: FakeDownloadServer;
let services: AppServices;
let gguf: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-dl-'));
  await writeTinyGguf(join(dir, 'src.gguf'), { preset: 'tiny', seed: 11 });
  gguf = readFileSync(join(dir, 'src.gguf'));
  server = await FakeDownloadServer.start({ chunkSize: 16 * 1024, chunkDelayMs: 15 });
  server.addFile('/files/tiny-dl.gguf', gguf);
  server.addFile('/acme/tiny-repo/resolve/main/tiny-hf.gguf', gguf);
  services = createAppServices(join(dir, 'lab', 'w.fairground'), { transport: 'http' });
});

afterAll(async () => {
  await services.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('models.download', () => {
  it('resumes a cancelled download from its partial file and adds the checked model', async () => {
    const job = services.models.startDownload({ url: `${server.origin}/files/tiny-dl.gguf`, sha256: sha256Of(gguf) });
    await expect.poll(() => services.jobs.get(job.id).progress, { timeout: 10_000, interval: 20 }).toBeGreaterThan(64 * 1024);
    services.jobs.cancel(job.id);
    expect((await services.jobs.wait(job.id)).status).toBe('cancelled');
    expect(services.models.list()).toHaveLength(0);

    server.options.chunkDelayMs = 0;
    services.jobs.resume(job.id);
    const done = await services.jobs.wait(job.id);
    expect(done.status).toBe('succeeded');
    const result = done.result as { modelId: number; sha256: string; resumedFromBytes: number };
    expect(result.sha256).toBe(sha256Of(gguf));
    expect(result.resumedFromBytes).toBeGreaterThan(0);
    expect(server.requests.some((r) => r.range?.startsWith('bytes=') && r.status === 206)).toBe(true);
    const model = services.models.get(result.modelId);
    expect(model).toMatchObject({ name: 'tiny-dl', status: 'ready', sha256: sha256Of(gguf), metadata: { architecture: 'llama' } });
    expect(model.path).toBe(join(dir, 'lab', 'models', 'tiny-dl.gguf'));
  });

  it('refuses a wrong checksum and keeps nothing', async () => {
    const job = services.models.startDownload({ url: `${server.origin}/files/tiny-dl.gguf`, sha256: '0'.repeat(64), name: 'bad-sum' });
    const done = await services.jobs.wait(job.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/SHA-256|checksum/i);
    expect(services.models.list().map((m) => m.name)).not.toContain('bad-sum');
  });

  it('downloads an hf: URL through the CLI', async () => {
    const r = await runCliCaptured(['model', 'download', 'hf:acme/tiny-repo/tiny-hf.gguf', '--workspace', join(dir, 'lab', 'w.fairground')], {
      cwd: dir,
      env: { FAIRGROUND_HF_BASE_URL: server.origin },
    });
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Added 'tiny-hf'");
    expect(r.stdout).toContain(sha256Of(gguf));
    const bad = await runCliCaptured(['model', 'download', 'ftp://x/y.gguf', '--workspace', join(dir, 'lab', 'w.fairground')], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("fairground model download: not a download URL: 'ftp://x/y.gguf' (use https://… or hf:<owner>/<repo>/<file>)\n");
  });
});
