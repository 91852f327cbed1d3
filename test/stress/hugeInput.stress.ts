/**
 * Endless and huge input ends cleanly (issue 15 item 4). Through the CLI: importing /dev/zero or a
 * 1 GB single-line file, and `eval ir --run` of either, ends with one line naming the file and
 * line, in bounded time and memory. Through the API (browser mode):
 * /dev/zero is refused at once (not a regular file); a 1 GB single-line file in the workspace
 * folder fails its preview and its import job with the line-length error, the server's memory
 * bounded. `fairground serve` stops within seconds of SIGTERM while an import job is running.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode } from '../../src-main/server/browserMode';
import { cli } from '../fuzz/cliHarness';
import { inspectWorkspace, killAll, startCli, writeCorpus } from './support';

const GB = 1024 ** 3;
let dir: string;
let ws: string;
let huge: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-stress-huge-'));
  ws = join(dir, 'ws', 'w.fairground');
  mkdirSync(join(dir, 'ws'));
  // A sparse 1 GB file: one line of NUL bytes, no newline (no disk space used).
  huge = join(dir, 'ws', 'huge.jsonl');
  writeFileSync(huge, '');
  truncateSync(huge, GB);
  writeFileSync(join(dir, 'qrels.txt'), 'q1 0 d1 1\n');
});
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('endless and huge input through the CLI', () => {
  const cases: [string, () => string[], RegExp][] = [
    ['collection import /dev/zero', () => ['collection', 'import', '--kind', 'corpus', '--name', 'z', '-w', ws, '/dev/zero'], /\/dev\/zero:1: line longer than \d+ bytes/],
    ['collection import of a 1 GB line', () => ['collection', 'import', '--kind', 'corpus', '--name', 'h', '-w', ws, huge], /huge\.jsonl:1: line longer than \d+ bytes/],
    ['eval ir --run /dev/zero', () => ['eval', 'ir', '--run', '/dev/zero', '--qrels', join(dir, 'qrels.txt'), '-m', 'AP'], /\/dev\/zero:1: line longer than \d+ bytes/],
    ['eval ir --run of a 1 GB line', () => ['eval', 'ir', '--run', huge, '--qrels', join(dir, 'qrels.txt'), '-m', 'AP'], /huge\.jsonl:1: line longer than \d+ bytes/],
  ];
  for (const [name, argv, message] of cases) {
    // In-process (runCli, as bin/fairground.js runs it): four process start-ups would cost more than the reads.
    it(`${name}: one line naming file and line, in bounded time and memory`, async () => {
      const rss0 = process.memoryUsage().rss;
      const r = await cli(argv(), dir);
      const grownMb = (process.memoryUsage().rss - rss0) / 1024 / 1024;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.ms).toBeLessThan(30_000);
      expect(grownMb).toBeLessThan(400);
      console.log(`${name}: ${Math.round(r.ms)} ms, RSS grew ${Math.round(grownMb)} MB`);
    }, 120_000);
  }
});

describe('endless and huge input through the API', () => {
  it('/dev/zero is refused at once; a 1 GB line fails preview and import with its line, memory bounded', async () => {
    const app = await startBrowserMode({ workspacePath: ws, staticDir: join(dir, 'no-ui') });
    try {
      const api = async (method: string, input: unknown) => {
        const res = await fetch(`${app.server.url}api/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
          body: JSON.stringify(input),
          signal: AbortSignal.timeout(60_000),
        });
        return (await res.json()) as { ok: boolean; data?: { id: string }; error?: { code: string; message: string } };
      };
      const rss0 = process.memoryUsage().rss;
      const t0 = performance.now();
      expect(await api('collections.previewFile', { path: '/dev/zero', kind: 'corpus' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await api('collections.import', { collectionName: 'z', kind: 'corpus', files: ['/dev/zero'] })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(performance.now() - t0).toBeLessThan(2000);
      const preview = await api('collections.previewFile', { path: huge, kind: 'corpus' });
      expect(preview).toMatchObject({ ok: false, error: { code: 'invalid-data' } });
      expect(preview.error!.message).toMatch(/huge\.jsonl:1: line longer than \d+ bytes/);
      const job = await api('collections.import', { collectionName: 'h', kind: 'corpus', files: [huge] });
      expect(job.ok).toBe(true);
      const done = await app.services.jobs.wait(job.data!.id);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/huge\.jsonl:1: line longer than \d+ bytes/);
      const ms = performance.now() - t0;
      const grownMb = (process.memoryUsage().rss - rss0) / 1024 / 1024;
      console.log(`API: 1 GB line refused in ${Math.round(ms)} ms, RSS grew ${Math.round(grownMb)} MB`);
      expect(ms).toBeLessThan(60_000);
      expect(grownMb).toBeLessThan(400);
      expect(await api('collections.list', {})).toMatchObject({ ok: true, data: [] });
    } finally {
      await app.close();
    }
  }, 120_000);
});

describe('SIGTERM stops the server within seconds', () => {
  it('with an import job running: exits 0 in under 10 s, the job cancelled (resumable), the file healthy', async () => {
    const sws = join(dir, 'serve', 'w.fairground');
    mkdirSync(join(dir, 'serve'));
    writeCorpus(join(dir, 'serve', 'corpus.jsonl'), 30_000, 31);
    const server = startCli(['serve', '--no-open', '--no-demo', '--port', '0', '-w', sws]);
    let printed = '';
    server.process.stdout!.on('data', (c: Buffer) => (printed += c.toString()));
    let url = '';
    for (let i = 0; i < 600 && !url; i++) {
      await new Promise((r) => setTimeout(r, 100));
      url = /Fairground is running at (\S+)/.exec(printed)?.[1] ?? '';
    }
    expect(url).not.toBe('');
    const u = new URL(url);
    const res = await fetch(`${u.origin}/api/collections.import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${u.searchParams.get('token')}` },
      body: JSON.stringify({ collectionName: 'big', kind: 'corpus', files: [join(dir, 'serve', 'corpus.jsonl')] }),
    });
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 1500));
    const t0 = performance.now();
    server.process.kill('SIGTERM');
    const exit = await server.exit;
    const ms = performance.now() - t0;
    console.log(`serve stopped ${Math.round(ms)} ms after SIGTERM`);
    expect(exit.code, exit.stderr).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(existsSync(sws)).toBe(true);
    const state = inspectWorkspace(sws);
    expect(state.integrity).toBe('ok');
    // The import was cancelled by the stop (resumable from its parameters) or had finished: never half written.
    expect(state.jobs.map((j) => j.kind)).toEqual(['collections.import']);
    expect(['cancelled', 'succeeded']).toContain(state.jobs[0]!.status);
    if (state.collections.big) expect(state.collections.big.documents).toBe(30_000);
  }, 180_000);
});
