import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import type { RemoteEngineConfig } from '../../../src-main/engine/remote/remoteEngineConfig';
import { EngineError, type GenerateRequest } from '../../../src-main/engine/types';
import { FakeOpenAiServer, type FakeOpenAiOptions } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

let server: FakeOpenAiServer | undefined;
let engine: RemoteEngine | undefined;

async function setUp(options: Partial<FakeOpenAiOptions> = {}, config: Partial<RemoteEngineConfig> = {}): Promise<[FakeOpenAiServer, RemoteEngine]> {
  server = await FakeOpenAiServer.start(options);
  engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', ...fastRetries, ...config });
  return [server, engine];
}

afterEach(async () => {
  await engine?.close();
  await server?.close();
});

const hello: GenerateRequest = { prompt: 'hello', maxTokens: 8, sampling: { temperature: 0 } };

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

describe('RemoteEngine retries', () => {
  it('retries 429 and 503, waiting as long as Retry-After / retry-after-ms say, then succeeds', async () => {
    const [fake, remote] = await setUp();
    fake.failNext(1, { status: 429, retryAfter: '1' });
    fake.failNext(1, { status: 503, retryAfterMs: '120' });
    const result = await remote.generate(hello);
    expect(result.text).toBe('You said: hello');
    const times = fake.requests.map((r) => r.at);
    expect(times).toHaveLength(3);
    // Backoff alone would be 1-2 ms: the gaps come from the server's instructions.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(110);
  });

  it('retries a dropped connection', async () => {
    const [fake, remote] = await setUp();
    fake.failNext(2, { disconnect: true });
    await expect(remote.generate(hello)).resolves.toMatchObject({ text: 'You said: hello' });
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after `retries` extra attempts with a remote-error', async () => {
    const [fake, remote] = await setUp({}, { retries: 2 });
    fake.failNext(10, { status: 503, message: 'overloaded' });
    const error = await failure(remote.generate(hello));
    expect(error.code).toBe('remote-error');
    expect(error.message).toMatch(/HTTP 503: overloaded \(after 3 attempt/);
    expect(fake.requests).toHaveLength(3);
  });

  it('fails at once on a 400, with the server’s message', async () => {
    const [fake, remote] = await setUp();
    const error = await failure(remote.generate({ ...hello, sampling: { temperature: 5, seed: 1 } }));
    expect(error.code).toBe('bad-request');
    expect(error.message).toContain("maximum of 2 - 'temperature'");
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry other 4xx either (404 unknown model)', async () => {
    const [fake] = await setUp();
    const other = new RemoteEngine({ baseUrl: fake.baseUrl, model: 'no-such-model', ...fastRetries });
    const error = await failure(other.generate(hello));
    expect(error).toMatchObject({ code: 'remote-error', message: expect.stringContaining('HTTP 404') });
    expect(fake.requests).toHaveLength(1);
    await other.close();
  });
});

describe('RemoteEngine timeouts and cancellation', () => {
  it('times out a slow response with code timeout', async () => {
    // Timeouts generous enough for a busy machine to deliver the request first.
    const [fake, remote] = await setUp({ delayMs: 8000 }, { timeoutMs: 600 });
    const started = Date.now();
    const error = await failure(remote.generate(hello));
    expect(error.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(fake.requests).toHaveLength(1);
  });

  it('cancels an in-flight request via AbortSignal', async () => {
    const [, remote] = await setUp({ delayMs: 5000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(remote.generate(hello, controller.signal));
    expect(error.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('cancels while waiting out a Retry-After', async () => {
    const [fake, remote] = await setUp();
    fake.failNext(1, { status: 429, retryAfter: '30' });
    const controller = new AbortController();
    // Abort once the 429 has been answered, i.e. while the engine waits out the Retry-After.
    const waiting = setInterval(() => {
      if (fake.requests.length === 1 && fake.inFlight === 0) {
        clearInterval(waiting);
        setTimeout(() => controller.abort(), 50);
      }
    }, 10);
    const error = await failure(remote.generate(hello, controller.signal));
    expect(error.code).toBe('aborted');
    expect(fake.requests).toHaveLength(1);
  });

  it('sends nothing for an already aborted signal', async () => {
    const [fake, remote] = await setUp();
    const error = await failure(remote.embed({ texts: ['a'] }, AbortSignal.abort()));
    expect(error.code).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });

  it('close() cancels what is in flight and refuses new calls', async () => {
    const [, remote] = await setUp({ delayMs: 5000 });
    const pending = failure(remote.generate(hello));
    setTimeout(() => void remote.close(), 50);
    expect((await pending).code).toBe('aborted');
    expect((await failure(remote.generate(hello))).code).toBe('aborted');
    await remote.close(); // idempotent
  });
});

describe('RemoteEngine concurrency', () => {
  it('never has more than maxConcurrency requests in flight, across operations', async () => {
    const [fake, remote] = await setUp({ delayMs: 150 }, { maxConcurrency: 3, embedBatchSize: 1 });
    const calls = [
      ...Array.from({ length: 8 }, (_, i) => remote.generate({ ...hello, prompt: `p${i}` })),
      remote.embed({ texts: ['a', 'b', 'c', 'd'] }),
    ];
    await Promise.all(calls);
    expect(fake.requests).toHaveLength(12);
    expect(fake.maxInFlight).toBe(3);
  });
});

describe('RemoteEngine API key', () => {
  const key = 'sk-test-VERY-SECRET-0123456789';

  it('sends the key as a bearer token', async () => {
    const [fake, remote] = await setUp({ apiKey: key }, { apiKey: key });
    await remote.generate(hello);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('never puts the key in an error, even when the server quotes it back', async () => {
    const [fake] = await setUp({ apiKey: 'sk-the-right-one' });
    const remote = new RemoteEngine({ baseUrl: fake.baseUrl, model: 'fake-model', apiKey: key, ...fastRetries, retries: 1, timeoutMs: 1000 });
    const errors: EngineError[] = [];
    errors.push(await failure(remote.generate(hello))); // 401 quoting the key
    fake.options.apiKey = undefined;
    fake.failNext(2, { status: 503, message: `backend rejected token ${key}` });
    errors.push(await failure(remote.generate(hello)));
    fake.failNext(2, { disconnect: true });
    errors.push(await failure(remote.embed({ texts: ['x'] })));
    fake.options.delayMs = 4000;
    errors.push(await failure(remote.score({ prompt: 'a', continuations: [' b'] })));

    expect(errors.map((e) => e.code)).toEqual(['remote-error', 'remote-error', 'remote-error', 'timeout']);
    expect(errors[0]!.message).toContain('Incorrect API key provided: [redacted]');
    for (const error of errors) {
      for (const text of [error.message, String(error), error.stack ?? '', inspect(error, { depth: 10 }), JSON.stringify(error)]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain('VERY-SECRET');
      }
    }
    await remote.close();
  });
});
