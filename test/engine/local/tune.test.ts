/**
 * Threads by measurement on the real engine (a generated tiny model): the worker's trials, the
 * choice applied to an adaptive engine and never to a user's count, the tuning stored per model and
 * machine in the workspace (model card, manifest description, `models.tune`), and
 * `fairground model tune`. Timings are whatever this machine gives; only structure and the rules
 * are asserted.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelTuneCommand } from '../../../src-main/cli/commands/modelTune';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { machineKey } from '../../../src-main/engine/local/settings';
import { candidateThreadCounts, chooseThreads, type ThreadTuning } from '../../../src-main/engine/local/threadTuning';
import { createApiRouter } from '../../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { runCliCaptured } from '../../support/cli';
import { tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
let modelPath: string;
const QUICK = { rounds: 3, budgetMs: 2000 };

beforeAll(async () => {
  models = tinyModels();
  modelPath = await models.model(1);
});
afterAll(() => models?.cleanup());

const greedy = { prompt: 'The answer is', maxTokens: 8, sampling: { temperature: 0 } };

describe('LocalEngine threads', () => {
  it('autoTune measures every count right after loading and an adaptive engine uses the choice', async () => {
    const tuned: ThreadTuning[] = [];
    const engine = new LocalEngine({ modelPath, settings: { gpu: false, contextSize: 512 }, autoTune: true, onTuned: (t) => tuned.push(t) });
    try {
      expect(engine.settings.adaptiveThreads).toBe(true);
      const loaded = await engine.load();
      expect(tuned).toHaveLength(1);
      const t = tuned[0]!;
      expect(loaded).toMatchObject({ threads: t.threads, adaptiveThreads: true, usableCores: availableParallelism() });
      expect(t.machine).toBe(machineKey());
      expect(t.usableCores).toBe(availableParallelism());
      // Every candidate was probed; the measured ones ran at least two rounds; the choice follows the rule.
      const counts = t.measurements.map((m) => m.threads);
      expect(counts[0]).toBe(1);
      expect(candidateThreadCounts(t.usableCores)).toEqual(expect.arrayContaining(counts));
      for (const m of t.measurements) {
        expect(m.trials).toBeGreaterThanOrEqual(2);
        expect(m.promptTokensPerSecond).toBeGreaterThan(0);
        expect(m.decodeTokensPerSecond).toBeGreaterThan(0);
        expect(m.callMsRange[0]).toBeLessThanOrEqual(m.callMs);
        expect(m.callMsRange[1]).toBeGreaterThanOrEqual(m.callMs);
      }
      expect(t.threads).toBe(chooseThreads(t.measurements));
      expect(engine.tuning).toBe(t);
      // Thread counts never change outputs: greedy text at the tuned count equals text at 1 thread.
      const a = await engine.generate(greedy);
      const one = new LocalEngine({ modelPath, settings: { gpu: false, contextSize: 512, threads: 1 } });
      try {
        expect((await one.generate(greedy)).text).toBe(a.text);
      } finally {
        await one.close();
      }
    } finally {
      await engine.close();
    }
  });

  it('a user’s count always wins: tune() only reports, the worker keeps the count; a stored tuning of another machine is ignored', async () => {
    const foreign = { threads: 1, machine: 'other-os|other cpu|64', measurements: [] } as unknown as ThreadTuning;
    const fixed = new LocalEngine({ modelPath, settings: { gpu: false, contextSize: 512, threads: availableParallelism() }, tuning: foreign, autoTune: true });
    try {
      expect(fixed.settings.adaptiveThreads).toBe(false);
      expect(fixed.tuning).toBeUndefined();
      const loaded = await fixed.load();
      expect(loaded).toMatchObject({ threads: availableParallelism(), adaptiveThreads: false });
      expect(fixed.tuning).toBeUndefined(); // no auto-tune for a fixed count
      const t = await fixed.tune({ ...QUICK, threadCounts: [1] });
      expect(t.measurements.map((m) => m.threads)).toEqual([1]);
      expect(fixed.state.loaded?.threads).toBe(availableParallelism());
    } finally {
      await fixed.close();
    }
  });
});

describe('ModelService threads', () => {
  let services: AppServices;
  let dir: string;
  beforeAll(() => {
    dir = models.dir;
    services = createAppServices(join(dir, 'tune.fairground'), { transport: 'http' });
  });
  afterAll(async () => {
    await services?.close();
  });

  it('default until tuned, then the tuning (stored per machine, on the card and in the description), and the user’s settings win', async () => {
    const added = await services.models.addHashed(modelPath, 'tiny');
    expect(added.threads).toMatchObject({ chosenBy: 'default', adaptive: true, tuning: null });
    const router = createApiRouter(services);
    const res = (await router.call('models.tune', { id: added.id })) as { ok: boolean; data: { threads: { chosenBy: string; threads: number; tuning: { measurements: unknown[] } } } };
    expect(res.ok).toBe(true);
    const card = res.data.threads;
    expect(card.chosenBy).toBe('tuning');
    expect(card.tuning.measurements.length).toBeGreaterThanOrEqual(1);
    const stored = services.models.tunings.get<ThreadTuning>(added.id, machineKey())!;
    expect(card.threads).toBe(stored.threads);
    expect(services.models.get(added.id).effectiveSettings).toMatchObject({ threads: stored.threads, adaptiveThreads: true });
    const described = services.models.describe({ kind: 'local', modelId: added.id }) as { settings: Record<string, unknown> };
    expect(described.settings).toMatchObject({ threads: stored.threads, threadsChosenBy: 'tuning', threadTuning: { threads: stored.threads } });

    services.settings.update({ threads: 1 });
    expect(services.models.get(added.id).threads).toMatchObject({ threads: 1, chosenBy: 'workspace setting', adaptive: false, tuning: { threads: stored.threads } });
    await services.models.updateSettings(added.id, { threads: 2 });
    expect(services.models.get(added.id).threads).toMatchObject({ threads: Math.min(2, availableParallelism()), chosenBy: 'model setting', adaptive: false });
    expect(services.models.get(added.id).effectiveSettings).toMatchObject({ adaptiveThreads: false });
    services.settings.update({ threads: 0 });

    // The tuning goes with the model.
    await services.models.remove(added.id);
    expect(services.models.tunings.get(added.id, machineKey())).toBeUndefined();
  });
});

describe('fairground model tune', () => {
  it('prints the table and the choice for a GGUF file (not stored), and names what it cannot find', async () => {
    const table = await runCliCaptured(['model', 'tune', modelPath, '--budget-ms', '0'], { cwd: models.dir, commands: [modelTuneCommand] });
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^threads {2}prompt tok\/s {2}generation tok\/s {2}256\+16-token call \(median, range\) {2}trials\n1/);
    expect(table.stdout).toMatch(/\nchosen: \d+ threads? \(1: [\d.]+ ms/);
    expect(table.stdout).toMatch(/\nnot stored \(a file, not a library model\)\n$/);
    const missing = await runCliCaptured(['model', 'tune', 'nope', '-w', join(models.dir, 'none.fairground')], { cwd: models.dir, commands: [modelTuneCommand] });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no workspace|no GGUF file 'nope'/);
  });
});
