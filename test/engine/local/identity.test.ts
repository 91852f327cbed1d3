/**
 * The local engine's cache identity (issue 13 item 3): keyed on the backend llama.cpp actually
 * loaded and its build, not the requested GPU setting — so 'auto' on a machine without a GPU
 * shares cache entries with `gpu: false`, and a CUDA run never shares them with a CPU run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCacheKey } from '../../../src-main/engine/callCache';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { runtimeVersions } from '../../../src-main/engine/local/runtimeVersions';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
const engines: LocalEngine[] = [];

beforeAll(() => {
  models = tinyModels();
});

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  models.cleanup();
});

describe('LocalEngine.identity', () => {
  it('with gpu false: the CPU backend and the llama.cpp build, without loading the model', async () => {
    const engine = new LocalEngine({ modelPath: await models.model(3), settings: TEST_SETTINGS });
    engines.push(engine);
    const identity = await engine.identity();
    expect(identity.outputAffectingSettings).toEqual({ backend: 'cpu', llamaCpp: runtimeVersions()['llama.cpp'], gpuLayers: 0, batchSize: 512, tokenization: 'model-space-prefix', generation: 'whole-prompt', chatTokenization: 'whole-text' });
    expect(runtimeVersions()['llama.cpp']).toMatch(/^(v\d+\.\d+\.\d+|b\d+)$/);
    expect(engine.state.status).toBe('idle');
  });

  it('with gpu auto: what llama.cpp loaded; on this CPU-only machine the same key as gpu false', async () => {
    const path = await models.model(3);
    const cpu = new LocalEngine({ modelPath: path, settings: TEST_SETTINGS });
    const auto = new LocalEngine({ modelPath: path, settings: { ...TEST_SETTINGS, gpu: 'auto', gpuLayers: 'auto' } });
    engines.push(cpu, auto);
    const identity = await auto.identity();
    const loaded = auto.state.loaded!;
    expect(identity.outputAffectingSettings).toMatchObject({ backend: loaded.gpu || 'cpu', llamaCpp: loaded.versions['llama.cpp'] });
    if (loaded.gpu === false) {
      // The old key had gpu: 'auto' vs gpu: false here, two keys for one computation.
      const request = { prompt: 'hi', maxTokens: 4, sampling: { temperature: 0 } };
      expect(callCacheKey(identity, 'generate', request)).toBe(callCacheKey(await cpu.identity(), 'generate', request));
    }
  });
});
