import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine, type LocalEngineState } from '../../../src-main/engine/local/localEngine';
import { EngineError } from '../../../src-main/engine/types';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
let good: LocalEngine;

const greedy = (prompt: string) => ({ prompt, maxTokens: 8, sampling: { temperature: 0 } });

beforeAll(async () => {
  models = tinyModels();
  good = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
  await good.load();
});
afterAll(async () => {
  await good?.close();
  models?.cleanup();
});

describe('crash isolation', () => {
  it('reports a GGUF that aborts llama.cpp as model-load-failed while another model keeps serving', async () => {
    // Without feed_forward_length llama.cpp hits GGML_ASSERT and aborts the whole process (SIGABRT).
    const path = await models.broken('no-ffn', (spec) => spec.kv.delete('llama.feed_forward_length'));
    const states: LocalEngineState[] = [];
    const broken = new LocalEngine({ modelPath: path, settings: TEST_SETTINGS, onStateChange: (s) => states.push(s) });
    try {
      const before = await good.generate(greedy('still here?'));
      const [failure, during] = await Promise.all([
        broken.generate(greedy('hello')).then(
          () => undefined,
          (e: unknown) => e,
        ),
        good.generate(greedy('still here?')),
      ]);
      expect(failure).toBeInstanceOf(EngineError);
      expect((failure as EngineError).code).toBe('model-load-failed');
      expect((failure as EngineError).message).toMatch(/killed by SIGABRT while loading the model.*GGML_ASSERT/);
      expect(broken.state.status).toBe('failed');
      expect(broken.state.error?.code).toBe('model-load-failed');
      expect(states.map((s) => s.status)).toEqual(['loading', 'failed']);
      expect(during).toEqual(before);
      expect(await good.generate(greedy('still here?'))).toEqual(before);

      // The next call tries again with a fresh process (and fails the same way: the file is still broken).
      const again = (await broken.generate(greedy('hello')).catch((e: unknown) => e)) as EngineError;
      expect(again.code).toBe('model-load-failed');
      expect(states.map((s) => s.status)).toEqual(['loading', 'failed', 'loading', 'failed']);
    } finally {
      await broken.close();
    }
  });

  it('reports a model llama.cpp refuses (shape mismatch) with its reason', async () => {
    const path = await models.broken('bad-kv-heads', (spec) => spec.kv.set('llama.attention.head_count_kv', { type: 4, value: 3 }));
    const broken = new LocalEngine({ modelPath: path, settings: TEST_SETTINGS });
    try {
      const err = (await broken.load().catch((e: unknown) => e)) as EngineError;
      expect(err.code).toBe('model-load-failed');
      expect(err.message).toMatch(/wrong shape/);
    } finally {
      await broken.close();
    }
  });

  it('rejects calls in flight with engine-crashed when the worker dies, then restarts a fresh worker', async () => {
    const engine = new LocalEngine({ modelPath: await models.model(2), settings: TEST_SETTINGS });
    try {
      await engine.load();
      const first = engine.workerPid as number;
      const expected = await engine.generate(greedy('after the crash'));
      const inFlight = engine.generate({ prompt: 'long', maxTokens: 480, sampling: { temperature: 0 } });
      setTimeout(() => process.kill(first, 'SIGKILL'), 30);
      const err = (await inFlight.catch((e: unknown) => e)) as EngineError;
      expect(err).toBeInstanceOf(EngineError);
      expect(err.code).toBe('engine-crashed');
      expect(err.message).toMatch(/killed by SIGKILL during generate/);
      expect(engine.state.status).toBe('failed');

      expect(await engine.generate(greedy('after the crash'))).toEqual(expected);
      expect(engine.workerPid).toBeDefined();
      expect(engine.workerPid).not.toBe(first);
      expect(engine.state.status).toBe('ready');

      // Closing with a call in flight ends it as aborted (a partial result or an 'aborted' rejection).
      const outcome = engine.generate({ prompt: 'long', maxTokens: 480, sampling: { temperature: 0 } }).then(
        (r) => r.finishReason,
        (e: unknown) => (e as EngineError).code,
      );
      await new Promise((r) => setTimeout(r, 30));
      await engine.close();
      expect(await outcome).toBe('aborted');
      expect(engine.state.status).toBe('closed');
    } finally {
      await engine.close();
    }
  });

  it('says precisely why a truncated or missing file cannot load, without starting a process', async () => {
    const missing = new LocalEngine({ modelPath: `${models.dir}/missing.gguf`, settings: TEST_SETTINGS });
    const err = (await missing.load().catch((e: unknown) => e)) as EngineError;
    expect(err.code).toBe('model-load-failed');
    expect(err.message).toMatch(/missing\.gguf: cannot open/);
    expect(missing.workerPid).toBeUndefined();
    await missing.close();
  });
});
