import { getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedEngine } from '../../../src-main/engine/callCache';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { EngineError } from '../../../src-main/engine/types';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
let engine: LocalEngine;

beforeAll(async () => {
  models = tinyModels();
  engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
});
afterAll(async () => {
  await engine?.close();
  models?.cleanup();
});

const TEXTS = ['The most relevant passage is', ' a leading space', 'ünïcødé 🙂 text', '', 'fair ranking of documents '.repeat(20)];

describe('LocalEngine.tokenize', () => {
  it('counts what llama.cpp tokenizes for a prompt by the model\'s rule (no BOS, the SentencePiece space prefix included) and cuts on token boundaries', async () => {
    const res = await engine.tokenize({ texts: TEXTS, maxTokens: 7 });
    expect(res.source).toBe('model');
    let llama: Llama | undefined;
    try {
      llama = await getLlama({ gpu: false, maxThreads: 1, build: 'never', logLevel: LlamaLogLevel.error });
      const model = await llama.loadModel({ modelPath: await models.model(1) });
      const expected = TEXTS.map((t) => model.tokenize(t, false));
      // The tiny model is a SentencePiece vocabulary without add_space_prefix = false: one `▁` more than the literal text.
      expect(expected[0]!.length).toBe(model.tokenize(TEXTS[0]!, false, 'trimLeadingSpace').length + 1);
      expect((model.fileInfo.metadata.tokenizer.ggml.tokens as string[])[expected[0]![0]!]).toBe('\u2581');
      expect(res.counts).toEqual(expected.map((t) => t.length));
      // The tiny vocabulary splits these texts into several tokens each; the empty text has none.
      expect(res.counts[3]).toBe(0);
      expect(res.counts[4]).toBeGreaterThan(20);
      res.truncated!.forEach((cut, i) => {
        const text = TEXTS[i]!;
        expect(text.startsWith(cut)).toBe(true);
        const n = model.tokenize(cut, false).length;
        if (expected[i]!.length <= 7) expect(cut).toBe(text);
        else {
          // Whole tokens of the text, at most 7: the detokenized first k tokens for the largest k <= 7
          // whose decoding is a prefix (a byte token inside a multi-byte character is stepped over).
          expect(n).toBeLessThanOrEqual(7);
          expect(n).toBeGreaterThanOrEqual(5);
          // The cut ends on a token boundary of the text: its tokens are the text's first n.
          expect(model.tokenize(cut, false)).toEqual(expected[i]!.slice(0, n));
        }
      });
    } finally {
      await llama?.dispose();
    }
  });

  it('answers an empty list without loading anything, refuses bad budgets, and passes through CachedEngine uncached', async () => {
    const fresh = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
    expect(await fresh.tokenize({ texts: [] })).toEqual({ counts: [], source: 'model' });
    expect(fresh.state.status).toBe('idle');
    await fresh.close();
    const err = (await engine.tokenize({ texts: ['x'], maxTokens: -1 }).catch((e: unknown) => e)) as EngineError;
    expect(err.code).toBe('bad-request');
    const puts: unknown[] = [];
    const cached = new CachedEngine(engine, { get: () => undefined, put: (e) => (puts.push(e), true), clearModel: () => 0 });
    const direct = await engine.tokenize({ texts: TEXTS });
    expect(await cached.tokenize({ texts: TEXTS })).toEqual(direct);
    expect(direct.truncated).toBeUndefined();
    expect(puts).toHaveLength(0);
  });
});
