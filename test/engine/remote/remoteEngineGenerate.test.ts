import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { EngineError } from '../../../src-main/engine/types';
import { DataError } from '../../../src-main/core/errors';
import { FakeOpenAiServer, fakeReply } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

let server: FakeOpenAiServer;
let engine: RemoteEngine;

beforeEach(async () => {
  server = await FakeOpenAiServer.start();
  engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', ...fastRetries });
});

afterEach(async () => {
  await engine.close();
  await server.close();
});

describe('RemoteEngine.generate', () => {
  it('sends messages to /chat/completions with the sampling settings mapped', async () => {
    const result = await engine.generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello there' },
      ],
      maxTokens: 50,
      sampling: { temperature: 0.7, topP: 0.9, seed: 42 },
      stop: ['\n\n'],
    });
    expect(result).toEqual({ text: fakeReply('hello there'), promptTokens: 4, completionTokens: 4, finishReason: 'stop' });
    const [request] = server.requestsTo('/v1/chat/completions');
    expect(request!.body).toEqual({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello there' },
      ],
      max_tokens: 50,
      temperature: 0.7,
      top_p: 0.9,
      seed: 42,
      stop: ['\n\n'],
    });
  });

  it('sends a plain prompt to /completions', async () => {
    const result = await engine.generate({ prompt: 'Once upon', maxTokens: 50, sampling: { temperature: 0 } });
    expect(result.text).toBe(fakeReply('Once upon'));
    expect(result.promptTokens).toBe(2);
    expect(server.requestsTo('/v1/completions')[0]!.body).toEqual({ model: 'fake-model', prompt: 'Once upon', max_tokens: 50, temperature: 0 });
  });

  it('maps finish reasons: length, and a matched stop string', async () => {
    const long = await engine.generate({ prompt: 'a b c d e f', maxTokens: 2, sampling: { temperature: 0 } });
    expect(long).toMatchObject({ text: 'You said:', completionTokens: 2, finishReason: 'length' });
    const stopped = await engine.generate({ prompt: 'a b', maxTokens: 20, sampling: { temperature: 0 }, stop: [' said'] });
    expect(stopped).toMatchObject({ text: 'You', finishReason: 'stopString' });
  });

  it('sends a JSON schema as response_format json_schema (strict)', async () => {
    const schema = { title: 'Verdict', type: 'object', properties: { relevant: { type: 'boolean' } }, required: ['relevant'], additionalProperties: false };
    const result = await engine.generate({ messages: [{ role: 'user', content: 'judge' }], maxTokens: 20, sampling: { temperature: 0 }, jsonSchema: schema });
    expect(JSON.parse(result.text)).toEqual({ relevant: true });
    expect((server.requests[0]!.body as Record<string, unknown>).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'Verdict', schema, strict: true },
    });
  });

  it("sends vLLM's guided_json when configured", async () => {
    const vllm = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'vllm', jsonSchemaTransport: 'guided_json' });
    const schema = { type: 'object', properties: { score: { type: 'integer' } } };
    const result = await vllm.generate({ prompt: 'rate', maxTokens: 20, sampling: { temperature: 0, topK: 40, repeatPenalty: 1.1 }, jsonSchema: schema });
    expect(JSON.parse(result.text)).toEqual({ score: 1 });
    expect(server.requests[0]!.body).toMatchObject({ guided_json: schema, top_k: 40, repetition_penalty: 1.1 });
    await vllm.close();
  });

  it('refuses parameters the OpenAI API lacks instead of dropping them', async () => {
    const error = await engine.generate({ prompt: 'x', maxTokens: 5, sampling: { temperature: 0, topK: 40 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({ code: 'unsupported' });
    expect(server.requests).toHaveLength(0);
  });

  it('rejects malformed requests before sending them', async () => {
    await expect(engine.generate({ maxTokens: 5, sampling: { temperature: 0 } })).rejects.toMatchObject({ code: 'bad-request' });
    await expect(engine.generate({ prompt: 'x', maxTokens: 5, sampling: { temperature: 0.5 } })).rejects.toMatchObject({ code: 'bad-request' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('RemoteEngine.identity', () => {
  it('keys the model by its name, not the URL, with versions from GET /models', async () => {
    const identity = await engine.identity();
    expect(identity).toEqual({
      kind: 'remote',
      modelKey: 'remote:fake-model',
      modelName: 'fake-model',
      outputAffectingSettings: { serverKind: 'openai', jsonSchemaTransport: 'response_format' },
      versions: {
        'remote.model': 'fake-model',
        'remote.ownedBy': 'fairground-fake',
        'remote.modelCreated': '1700000000',
        'remote.modelRoot': 'fake-model',
        'remote.maxModelLen': '4096',
        'remote.servedRevision': 'root=fake-model',
      },
    });
  });

  it('does not fail when the server has no /models', async () => {
    server.options.modelsEndpoint = false;
    const identity = await engine.identity();
    expect(identity.modelKey).toBe('remote:fake-model');
    expect(identity.versions).toEqual({});
  });

  it('rejects a base URL with credentials and a non-http URL as data errors', () => {
    expect(() => new RemoteEngine({ baseUrl: 'http://user:secret@127.0.0.1/v1', model: 'm' })).toThrow(DataError);
    expect(() => new RemoteEngine({ baseUrl: 'ftp://127.0.0.1/v1', model: 'm' })).toThrow(/baseUrl/);
  });
});
