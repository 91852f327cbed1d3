/**
 * Issue 17 item 4: Try it streams. A local model's text arrives as it grows (real llama.cpp, the
 * generated tiny model), the last streamed text is the answer, which equals the same greedy
 * generation without streaming; the result carries time to first token and tokens/s. Through the
 * API, the text travels as models.tryText events with the request's stream id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { ensureDemo } from '../../src-main/services/demoSetup';

let dir: string;
let s: AppServices;
let modelId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-try-stream-'));
  s = createAppServices(join(dir, 'w', 'w.fairground'), { transport: 'http' });
  s.settings.update({ threads: 1 });
  await ensureDemo(s);
  modelId = s.models.list()[0]!.id;
}, 180_000);

afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Try it streaming', () => {
  it('streams growing text whose end is the greedy answer, with TTFT and tokens/s', async () => {
    const seen: { text: string; tokens: number }[] = [];
    const opts = { prompt: 'Retrieval-augmented generation is', maxTokens: 12, temperature: 0, chat: false };
    const streamed = await s.models.try({ kind: 'local', modelId }, { ...opts, onText: (text, tokens) => seen.push({ text, tokens }) });
    expect(streamed.completionTokens).toBeGreaterThan(1);
    expect(seen.length).toBe(streamed.completionTokens); // one report per generated token
    expect(seen.map((x) => x.tokens)).toEqual(seen.map((_, i) => i + 1));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.text.startsWith(seen[i - 1]!.text)).toBe(true);
    expect(seen.at(-1)!.text).toBe(streamed.text);
    expect(streamed.fromCache).toBe(false);
    expect(streamed.ttftMs).toBeGreaterThan(0);
    expect(streamed.ttftMs!).toBeLessThanOrEqual(streamed.durationMs);
    expect(streamed.tokensPerSecond).toBeGreaterThan(0);
    const plain = await s.models.try({ kind: 'local', modelId }, opts);
    expect(plain.text).toBe(streamed.text);
    expect(plain.ttftMs).toBeNull();
  }, 120_000);

  it('through the API the text arrives as models.tryText events for the stream id', async () => {
    const texts: string[] = [];
    const off = s.events.subscribe((e) => {
      if (e.event === 'models.tryText' && e.payload.streamId === 'box-1') texts.push(e.payload.text);
    });
    const router = createApiRouter(s);
    const r = await router.call('models.try', { id: modelId, request: { prompt: 'Fair ranking means', maxTokens: 6, streamId: 'box-1' } });
    off();
    expect(r.ok).toBe(true);
    const data = (r as { data: { text: string; completionTokens: number; ttftMs: number | null } }).data;
    expect(texts).toHaveLength(data.completionTokens);
    expect(texts.at(-1)).toBe(data.text);
    expect(data.ttftMs).toBeGreaterThan(0);
  }, 120_000);
});
