/** `fairground remote add|list|endpoints|remove` in-process against loopback OpenAI-compatible servers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../../src-main/services/appServices';
import { runCliCaptured } from '../../support/cli';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';

let dir: string;
let a: FakeOpenAiServer;
let b: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-remote-cli-'));
  await createAppServices(join(dir, 'w.fairground'), { transport: 'http' }).close();
  [a, b] = await Promise.all([FakeOpenAiServer.start({ root: '/w/llama', apiKey: 'sk-cli' }), FakeOpenAiServer.start({ root: '/w/llama', apiKey: 'sk-cli' })]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const remote = (argv: string[], env: Record<string, string> = {}) => runCliCaptured(['remote', ...argv, '--workspace', 'w.fairground'], { cwd: dir, env });

describe('fairground remote', () => {
  it('adds a pool with per-endpoint limits, recording the revision the servers report; lists it without the key', async () => {
    const added = await remote(['add', 'pool', '--model', 'fake-model', '--endpoint', `${a.baseUrl}=3`, '--endpoint', b.baseUrl, '--api-key-env', 'LAB_KEY'], { LAB_KEY: 'sk-cli' });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(
      [
        `Added 'pool': fake-model (root=/w/llama)`,
        `  weights: the revision the servers report, verified`,
        `  timeout: 300 s per request`,
        `  weights checked again: every 60 s while serving`,
        // The stand-in server echoes with logprobs and honours response_format (test/support/fakeOpenAiServer.ts).
        `  completions: yes, chat: yes, scoring (prompt log-probabilities via echo): yes, prompt_logprobs: no`,
        `  constraints honoured: completions.response_format, chat.response_format`,
        // The stand-in reports vLLM's max_model_len (engine/remote/contextProbe.ts).
        `  context: 4096 tokens per request (GET /models max_model_len): the default prompt budget`,
        `  ${a.baseUrl}  up to 3 at once`,
        `  ${b.baseUrl}  up to 4 at once`,
        '',
      ].join('\n'),
    );
    const listed = await remote(['list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'pool', revision: 'root=/w/llama', hasApiKey: true, endpoints: [{ maxConcurrency: 3 }, { maxConcurrency: 4 }] }]);
    expect(listed.stdout).not.toContain('sk-cli');
  });

  it('replaces the endpoints and removes the server', async () => {
    const changed = await remote(['endpoints', 'pool', '--endpoint', `${b.baseUrl}=2`]);
    expect(changed).toMatchObject({ code: 0, stdout: `'pool' now has 1 endpoint(s)\n  ${b.baseUrl}  up to 2 at once\n` });
    expect((await remote(['remove', 'pool'])).code).toBe(0);
    expect((await remote(['list'])).stdout).toContain('No servers yet');
  });

  it('fails on an unreachable server; --no-probe records it as UNVERIFIED; --timeout and --recheck-after are stored and changed with remote set', async () => {
    const dead = 'http://127.0.0.1:9/v1';
    const refused = await remote(['add', 'dead', '--model', 'fake-model', '--url', dead]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`endpoints: ${dead} cannot be reached`);
    // The command line names its own flag (the service's message names none: the UI shows it too).
    expect(refused.stderr).toContain('(add it with --no-probe to record it anyway, marked unverified)');
    const offline = await remote(['add', 'dead', '--model', 'fake-model', '--url', dead, '--no-probe', '--timeout', '45']);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toBe(
      [
        `Added 'dead': fake-model`,
        `  weights: the model name only — UNVERIFIED: added without asking the servers: not known to be reachable, to serve this model, or which weights it serves`,
        `  timeout: 45 s per request`,
        `  weights checked again: every 60 s while serving`,
        `  capabilities: not probed`,
        `  ${dead}  up to 4 at once`,
        '',
      ].join('\n'),
    );
    expect(await remote(['set', 'dead', '--timeout', '9'])).toMatchObject({ code: 0, stdout: `'dead': timeout 9 s per request; weights checked again every 60 s while serving\n` });
    expect((await remote(['list'])).stdout).toContain('  timeout: 9 s per request\n');
    // The weights re-check interval (issue 35 item 1): stored, shown, and the timeout kept.
    expect(await remote(['set', 'dead', '--recheck-after', '2.5'])).toMatchObject({ code: 0, stdout: `'dead': timeout 9 s per request; weights checked again every 2.5 s while serving\n` });
    expect((await remote(['list'])).stdout).toContain('  timeout: 9 s per request\n  weights checked again: every 2.5 s while serving\n');
    for (const bad of ['0', '0.05', 'soon', '']) {
      expect(await remote(['set', 'dead', '--recheck-after', bad])).toMatchObject({ code: 2, stderr: expect.stringContaining(`--recheck-after must be a number of seconds from 0.1 to 86400, got '${bad}'`) });
    }
    expect(await remote(['set', 'dead'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give --timeout SECONDS or --recheck-after SECONDS') });
    expect((await remote(['remove', 'dead'])).code).toBe(0);
  });

  it('names the problem: a missing key variable, both --url and --endpoint, an unknown server', async () => {
    expect(await remote(['add', 'x', '--model', 'm', '--url', a.baseUrl, '--api-key-env', 'NOPE'])).toMatchObject({ code: 2, stderr: expect.stringContaining('NOPE is empty or not set') });
    expect(await remote(['add', 'x', '--model', 'm', '--url', a.baseUrl, '--endpoint', b.baseUrl])).toMatchObject({ code: 2, stderr: expect.stringContaining('--url URL or one or more --endpoint') });
    expect(await remote(['add', 'x', '--model', 'm', '--endpoint', 'ftp://h/v1', '--no-probe'])).toMatchObject({ code: 2, stderr: expect.stringContaining('endpoints[0].baseUrl') });
    expect(await remote(['remove', 'nobody'])).toMatchObject({ code: 2, stderr: expect.stringContaining("no server named 'nobody'") });
  });
});
