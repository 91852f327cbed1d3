/**
 * Ctrl-C ends a run within seconds whatever the endpoints do (issue 24 item 7): `fairground run` on a
 * remote model whose only endpoint hangs, trickles a huge answer, or is down (the client retrying with
 * back-off) exits 130 soon after SIGINT, with the cancellation message, and the same command resumes.
 * The endpoint is the loopback stand-in (test/support/fakeOpenAiServer.ts): faults cannot be asked of
 * a real server. The CLI runs as its own process, as a user runs it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeDemoWorkspace, tinySpec } from '../experiments/fixture';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer, type InjectedFailure } from '../support/fakeOpenAiServer';

const ROOT = process.cwd();
let dir: string;
const servers: FakeOpenAiServer[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-int-remote-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A workspace with the demo collection and a remote server 'srv' added (and probed) while healthy. */
async function setUp(name: string): Promise<{ ws: string; spec: string; server: FakeOpenAiServer }> {
  const server = await FakeOpenAiServer.start();
  servers.push(server);
  const ws = await makeDemoWorkspace(dir, `${name}.fairground`);
  const added = await runCliCaptured(['remote', 'add', 'srv', '--model', 'fake-model', '--url', server.baseUrl, '--timeout', '300', '--workspace', ws], { cwd: dir });
  expect(added.code, added.stderr).toBe(0);
  const spec = join(dir, `${name}.json`);
  writeFileSync(spec, JSON.stringify(tinySpec({ name, queries: 'all', tasks: ['movie-tag'], samples: 10, alphas: [0, 2, 8], generator: { remote: 'srv' }, decoding: { maxTokens: 6 } })));
  return { ws, spec, server };
}

async function interrupt(ws: string, spec: string, server: FakeOpenAiServer | undefined): Promise<{ code: number | null; afterKillMs: number; stderr: string }> {
  const since = Date.now();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'fairground.js'), 'run', spec, '--workspace', ws], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let alive = true;
  void exited.then(() => (alive = false));
  // The run is under way once its progress line is printed and the endpoint (when up) has been asked
  // something: the weights check or a call.
  const underWay = (): boolean => stderr.includes(' LLM calls') && (server === undefined || server.requests.some((r) => r.at >= since));
  while (alive && !underWay()) await new Promise((r) => setTimeout(r, 50));
  expect(alive, `the run ended before it could be interrupted: ${stderr}`).toBe(true);
  await new Promise((r) => setTimeout(r, 500)); // let requests be in flight (or in back-off)
  const killedAt = Date.now();
  child.kill('SIGINT');
  const code = await exited;
  return { code, afterKillMs: Date.now() - killedAt, stderr };
}

const faults: Array<[string, InjectedFailure | 'down']> = [
  ['hangs (never answers)', { hang: true }],
  ['trickles a 400 MB answer', { hugeBytes: 400 * 1024 * 1024, trickleMs: 20 }],
  ['keeps failing with 503 (retried with back-off)', { status: 503, message: 'overloaded' }],
  ['is down (connections refused)', 'down'],
];

describe('Ctrl-C during a run on a remote model', () => {
  it.each(faults)('exits 130 within seconds when the only endpoint %s, and the run resumes', async (label, fault) => {
    const name = label.split(' ')[0]!;
    const { ws, spec, server } = await setUp(name);
    if (fault === 'down') {
      // Down after the run has started would race the first request; down from the start, the run's
      // first request (its weights check or a call) is refused and retried.
      await server.stop();
    } else {
      server.options.failAll = fault;
    }
    const started = Date.now();
    const result = await interrupt(ws, spec, fault === 'down' ? undefined : server);
    expect(result.code, result.stderr).toBe(130);
    // Before the pool's cancellation fixes a hanging endpoint held Ctrl-C until the 300 s timeout.
    expect(result.afterKillMs).toBeLessThan(5000);
    expect(result.stderr).toMatch(/was cancelled; run the same command again to resume\n$/);
    expect(Date.now() - started).toBeLessThan(60_000);
    // Healthy again, the same command finishes the run.
    if (fault === 'down') await server.restart();
    server.options.failAll = undefined;
    const resumed = await runCliCaptured(['run', spec, '--workspace', ws], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
  }, 120_000);
});
