import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import type { RemoteEngineConfig } from '../../../src-main/engine/remote/remoteEngineConfig';
import { EngineError } from '../../../src-main/engine/types';
import { FakeOpenAiServer, type FakeOpenAiOptions } from '../../support/fakeOpenAiServer';
import { expectedScore, fastRetries } from './remoteTestSetup';

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

describe('RemoteEngine.score', () => {
  it("equals the fake server's per-token logprobs summed over the continuation", async () => {
    const [fake, remote] = await setUp();
    const prompt = 'Question: is the sky blue? Answer:';
    const continuations = [' yes', ' no it is not', ' 🌤 partly'];
    const result = await remote.score({ prompt, continuations });

    expect(result.promptTokens).toBe(6);
    result.scores.forEach((score, i) => {
      const expected = expectedScore(prompt, continuations[i]!);
      expect(score.tokens).toEqual(expected.tokens);
      expect(score.logprobs).toEqual(expected.logprobs);
      expect(score.sum).toBeCloseTo(expected.sum, 12);
      expect(score.mean).toBeCloseTo(expected.sum / expected.tokens.length, 12);
    });
    expect(result.scores[1]!.tokens).toEqual([' no', ' it', ' is', ' not']);
    // auto mode: one probe, then one request per continuation, each echo+logprobs with max_tokens 0.
    const requests = fake.requestsTo('/v1/completions');
    expect(requests).toHaveLength(1 + continuations.length);
    expect(requests.at(-1)!.body).toMatchObject({ echo: true, logprobs: 1, max_tokens: 0 });
  });

  it('counts a token that straddles the prompt/continuation boundary as continuation', async () => {
    const [, remote] = await setUp();
    const result = await remote.score({ prompt: 'The cat sa', continuations: ['t down'] });
    expect(result.scores[0]!.tokens).toEqual([' sat', ' down']);
    expect(result.scores[0]!.sum).toBeCloseTo(expectedScore('The cat sa', 't down').sum, 12);
    expect(result.promptTokens).toBe(2);
  });

  it('finds the boundary when the server echoes a BOS token first (vLLM)', async () => {
    const [, remote] = await setUp({ bosToken: '<|begin_of_text|>' });
    const result = await remote.score({ prompt: 'Paris is in', continuations: [' France'] });
    expect(result.scores[0]!.tokens).toEqual([' France']);
    expect(result.scores[0]!.sum).toBe(expectedScore('Paris is in', ' France').sum);
  });

  it('retries with max_tokens 1 when the server rejects 0, ignoring the generated token', async () => {
    const [fake, remote] = await setUp({ rejectMaxTokensZero: true });
    const result = await remote.score({ prompt: 'Paris is in', continuations: [' France', ' Texas'] });
    expect(result.scores.map((s) => s.tokens)).toEqual([[' France'], [' Texas']]);
    expect(result.scores[1]!.sum).toBe(expectedScore('Paris is in', ' Texas').sum);
    const maxTokens = fake.requestsTo('/v1/completions').map((r) => (r.body as { max_tokens: number }).max_tokens);
    // The probe learns that 0 is refused; real requests go straight to 1.
    expect(maxTokens).toEqual([0, 1, 1, 1]);
  });

  it("reports 'this server cannot score' when the server rejects echo, and asks only once", async () => {
    const [fake, remote] = await setUp({ echo: 'reject' });
    const first = await remote.score({ prompt: 'a', continuations: [' b'] }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(EngineError);
    expect(first).toMatchObject({ code: 'unsupported', message: expect.stringMatching(/^this server cannot score: .*echo/) });
    await expect(remote.score({ prompt: 'a', continuations: [' c'] })).rejects.toMatchObject({ code: 'unsupported' });
    expect(fake.requestsTo('/v1/completions')).toHaveLength(2); // the probe with max_tokens 0, then 1
  });

  it("reports 'this server cannot score' when completions carry no logprobs (llama.cpp's server)", async () => {
    const [, remote] = await setUp({ echo: 'ignore' }, { scoring: 'echo-logprobs' });
    await expect(remote.score({ prompt: 'a', continuations: [' b'] })).rejects.toMatchObject({
      code: 'unsupported',
      message: expect.stringContaining('this server cannot score'),
    });
  });

  it("fails without a request when scoring is 'none'", async () => {
    const [fake, remote] = await setUp({}, { scoring: 'none' });
    await expect(remote.score({ prompt: 'a', continuations: [' b'] })).rejects.toMatchObject({ code: 'unsupported' });
    expect(fake.requests).toHaveLength(0);
  });

  it('after echo has worked, a 400 is the request’s own fault (bad-request), not "cannot score"', async () => {
    const [fake, remote] = await setUp();
    await remote.score({ prompt: 'a', continuations: [' b'] });
    fake.failNext(1, { status: 400, message: 'This model maximum context length is 4096 tokens' });
    await expect(remote.score({ prompt: 'a', continuations: [' b'] })).rejects.toMatchObject({ code: 'bad-request', message: expect.stringContaining('context length') });
  });

  it('refuses empty continuations before sending anything (shared request checks)', async () => {
    const [fake, remote] = await setUp({}, { scoring: 'echo-logprobs' });
    await expect(remote.score({ prompt: 'a', continuations: [''] })).rejects.toMatchObject({ code: 'bad-request' });
    await expect(remote.score({ prompt: 'a', continuations: [] })).rejects.toMatchObject({ code: 'bad-request' });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses an empty prompt: the first token has no log-probability', async () => {
    const [, remote] = await setUp({}, { scoring: 'echo-logprobs' });
    await expect(remote.score({ prompt: '', continuations: ['Hello'] })).rejects.toMatchObject({ code: 'bad-request' });
  });

  it('keeps concurrent scoring requests within maxConcurrency', async () => {
    const [fake, remote] = await setUp({ delayMs: 30 }, { maxConcurrency: 2, scoring: 'echo-logprobs' });
    const continuations = Array.from({ length: 7 }, (_, i) => ` option ${i}`);
    const result = await remote.score({ prompt: 'Pick:', continuations });
    expect(result.scores).toHaveLength(7);
    expect(fake.requests).toHaveLength(7);
    expect(fake.maxInFlight).toBe(2);
  });
});
