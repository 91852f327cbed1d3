import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { FakeOpenAiServer, fakeEmbedding } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

let server: FakeOpenAiServer | undefined;
let engine: RemoteEngine | undefined;

afterEach(async () => {
  await engine?.close();
  await server?.close();
});

describe('RemoteEngine.embed', () => {
  it('orders vectors by `index`, not by position in the response', async () => {
    server = await FakeOpenAiServer.start({ reverseEmbeddings: true, embeddingDimensions: 6 });
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', ...fastRetries });
    const texts = ['first text', 'second', 'third one here'];
    const result = await engine.embed({ texts });
    expect(result.dimensions).toBe(6);
    expect(result.vectors).toEqual(texts.map((t) => fakeEmbedding(t, 6)));
    expect(server.requests[0]!.body).toEqual({ model: 'fake-model', input: texts });
  });

  it('splits long inputs into batches and keeps the input order', async () => {
    server = await FakeOpenAiServer.start({ reverseEmbeddings: true });
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', embedBatchSize: 2, ...fastRetries });
    const texts = ['a', 'b', 'c', 'd', 'e'];
    const result = await engine.embed({ texts });
    expect(result.vectors).toEqual(texts.map((t) => fakeEmbedding(t, 8)));
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('refuses an empty list before sending anything (shared request checks)', async () => {
    server = await FakeOpenAiServer.start();
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model' });
    await expect(engine.embed({ texts: [] })).rejects.toMatchObject({ code: 'bad-request' });
    expect(server.requests).toHaveLength(0);
  });
});
