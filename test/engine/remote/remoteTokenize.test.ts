/**
 * RemoteEngine.tokenize against a loopback server: llama.cpp's and vLLM's POST /tokenize and
 * /detokenize at the server root (beside /v1), and the stated fallback (UTF-8 bytes / 4) for an
 * OpenAI-style server or one that answers 404.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { estimatePrefix, estimateTokenCount } from '../../../src-main/engine/tokenBudget';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

let server: FakeOpenAiServer | undefined;
let engine: RemoteEngine | undefined;
afterEach(async () => {
  await engine?.close();
  await server?.close();
});

const TEXTS = ['the first five words here and more', 'short', ''];

describe('RemoteEngine.tokenize', () => {
  for (const kind of ['llama.cpp', 'vllm'] as const) {
    it(`${kind}: counts with the server's tokenizer and cuts on its token boundaries`, async () => {
      server = await FakeOpenAiServer.start({ tokenizer: kind });
      engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: kind, ...fastRetries });
      const res = await engine.tokenize({ texts: TEXTS, maxTokens: 3 });
      // The fake splits into words with their leading space: 7, 1 and 0 tokens.
      expect(res).toEqual({ counts: [7, 1, 0], truncated: ['the first five', 'short', ''], source: 'server' });
      const [req] = server.requestsTo('/tokenize');
      expect(req!.body).toEqual(kind === 'vllm' ? { model: 'fake-model', prompt: TEXTS[0], add_special_tokens: false } : { content: TEXTS[0], add_special: false });
      expect(server.requestsTo('/detokenize')).toHaveLength(1);
      expect(server.requestsTo('/detokenize')[0]!.body).toMatchObject({ tokens: [0, 1, 2] });
    });
  }

  it('an OpenAI-style server has no tokenizer, and a 404 switches to the stated estimate for good', async () => {
    server = await FakeOpenAiServer.start();
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', ...fastRetries });
    const text = 'x'.repeat(10) + ' ünï';
    expect(estimateTokenCount(text)).toBe(4); // 16 UTF-8 bytes / 4
    expect(await engine.tokenize({ texts: [text], maxTokens: 2 })).toEqual({ counts: [4], truncated: [estimatePrefix(text, 2)], source: 'estimate' });
    expect(estimatePrefix(text, 2)).toBe('x'.repeat(8));
    expect(server.requestsTo('/tokenize')).toHaveLength(0);
    await engine.close();

    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', ...fastRetries });
    expect((await engine.tokenize({ texts: ['a b c d e'] })).source).toBe('estimate');
    expect((await engine.tokenize({ texts: ['a b c d e'] })).source).toBe('estimate');
    expect(server.requestsTo('/tokenize')).toHaveLength(1);
  });
});
