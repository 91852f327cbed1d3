/**
 * RemoteEngine.tokenize against a loopback server: llama.cpp's and vLLM's POST /tokenize and
 * /detokenize at the server root (beside /v1); for an OpenAI-style server or one whose tokenizer
 * fails in any way (404, 501, 500, a dropped connection) the calibrated estimate (its generation
 * routes' usage.prompt_tokens; the real-server check is test/engine/llamaServer/calibratedEstimate.test.ts),
 * and where that fails too, the stated fallback (an upper bound: UTF-8 bytes + 1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { CALIBRATION_USER } from '../../../src-main/engine/remote/tokenCalibration';
import { ESTIMATE_PROMPT_MARGIN, estimatePrefix, estimateTokenCount } from '../../../src-main/engine/tokenBudget';
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

  it('an OpenAI-style server has no tokenizer: the estimate is calibrated through its chat route; a 404 switches to the estimate for good', async () => {
    server = await FakeOpenAiServer.start();
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', ...fastRetries });
    const text = 'x'.repeat(10) + ' ünï';
    const res = await engine.tokenize({ texts: [text], maxTokens: 9 });
    // A text under 1,200 bytes to count or cut keeps the probes' fit unscaled and sends no sample (so a cut and its count agree).
    expect(res).toMatchObject({ counts: [3], truncated: [text], source: 'estimate' });
    expect(res.estimate?.reason).toMatch(/OpenAI-style server has no tokenizer/);
    expect(res.estimate?.method).toMatch(/^calibrated estimate \(6 probes\): .* through the chat route's usage\.prompt_tokens \([^)]*\), counts raised 0\.5%$/);
    // Both routes' overheads measured (the stub adds nothing around a prompt).
    expect(res.estimate?.margin).toBe('+0 per text prompt (measured), +0 per chat prompt (measured)');
    const probes = server.requestsTo('/v1/chat/completions');
    expect(probes).toHaveLength(5); // "a", four class probes
    expect(probes[0]!.body).toMatchObject({ model: 'fake-model', messages: [{ role: 'user', content: 'a' }], max_tokens: 1 });
    expect(server.requestsTo('/v1/completions')).toHaveLength(1);
    expect((await engine.tokenize({ texts: [text], asPrompt: 'text' })).counts).toEqual([3]);
    expect((await engine.tokenize({ texts: [text], asPrompt: 'chat' })).counts).toEqual([3]);
    // A whole prompt is its own sample (the stub counts words: 2, raised 0.5%: ⌈2.01⌉), counted once per engine.
    expect(server.requestsTo('/v1/chat/completions')).toHaveLength(6);
    expect(server.requestsTo('/tokenize')).toHaveLength(0);
    await engine.close();

    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', ...fastRetries });
    expect((await engine.tokenize({ texts: ['a b c d e'] })).source).toBe('estimate');
    expect((await engine.tokenize({ texts: ['a b c d e'] })).source).toBe('estimate');
    expect(server.requestsTo('/tokenize')).toHaveLength(1);
  });

  it('the stated upper bound where the calibration fails too (no usage reported): UTF-8 bytes + 1', async () => {
    server = await FakeOpenAiServer.start({ tokenizer: 'llama.cpp' });
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', ...fastRetries });
    server.options.failAll = { status: 404 };
    const text = 'x'.repeat(10) + ' ünï';
    expect(estimateTokenCount(text)).toBe(17); // 16 UTF-8 bytes + 1
    const res = await engine.tokenize({ texts: [text], maxTokens: 9 });
    expect(res).toMatchObject({ counts: [17], truncated: [estimatePrefix(text, 9)], source: 'estimate' });
    expect(res.estimate?.method).toMatch(/^UTF-8 bytes \+ 1 .*; not calibrated: POST .*\/v1\/completions: HTTP 404.*; POST .*\/v1\/chat\/completions: HTTP 404/);
    expect(res.estimate?.reason).toMatch(/^the server's tokenizer failed .*HTTP 404/);
    expect(estimatePrefix(text, 9)).toBe('x'.repeat(8));
    // A whole prompt carries the stated margin: +2 as text (beginning-of-sequence), +64 as a chat message.
    expect((await engine.tokenize({ texts: [text], asPrompt: 'text' })).counts).toEqual([17 + ESTIMATE_PROMPT_MARGIN.text]);
    expect((await engine.tokenize({ texts: [text], asPrompt: 'chat' })).counts).toEqual([17 + 64]);
  });

  it('a caller cancelled while the calibration hangs stops waiting at once; the calibration requests are marked as such', async () => {
    server = await FakeOpenAiServer.start();
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', ...fastRetries, timeoutMs: 60_000 });
    server.options.failAll = { hang: true };
    const controller = new AbortController();
    const started = Date.now();
    const pending = engine.tokenize({ texts: ['one two'] }, controller.signal);
    while (server.requestsTo('/v1/chat/completions').length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requestsTo('/v1/chat/completions')[0]!.body).toMatchObject({ max_tokens: 1, user: CALIBRATION_USER });
    server.options.failAll = undefined;
  });

  for (const failure of [{ status: 501 }, { status: 500 }, { disconnect: true }] as const) {
    it(`a tokenizer failing with ${'status' in failure ? `HTTP ${failure.status}` : 'a dropped connection'} falls back to the estimate, marked with the reason`, async () => {
      server = await FakeOpenAiServer.start({ tokenizer: 'llama.cpp' });
      engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', ...fastRetries });
      server.options.failAll = failure;
      const res = await engine.tokenize({ texts: ['a b c'] });
      server.options.failAll = undefined;
      expect(res.counts).toEqual([6]);
      expect(res.source).toBe('estimate');
      expect(res.estimate?.reason).toMatch(/the server's tokenizer failed/);
      // Remembered: the run never mixes the server's counts with estimated ones.
      expect((await engine.tokenize({ texts: ['a b c'] })).source).toBe('estimate');
    });
  }

  it("counts a whole text prompt with the server's special tokens (add_special: true)", async () => {
    server = await FakeOpenAiServer.start({ tokenizer: 'vllm' });
    engine = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'vllm', ...fastRetries });
    expect(await engine.tokenize({ texts: ['one two three'], asPrompt: 'text' })).toEqual({ counts: [3], source: 'server' });
    expect(server.requestsTo('/tokenize')[0]!.body).toEqual({ model: 'fake-model', prompt: 'one two three', add_special_tokens: true });
  });
});
