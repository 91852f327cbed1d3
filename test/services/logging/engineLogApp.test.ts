/**
 * The app's services attach the engine to their log (issue 17 item 7): with a RotatingLog, a
 * model tried through the model service (a real llama.cpp worker on the generated tiny GGUF)
 * leaves its `engine` start and load lines in fairground.log beside the app's own lines, and
 * closing the services detaches the engine from that log.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineLog } from '../../../src-main/engine/local/engineLog';
import { createAppServices } from '../../../src-main/services/appServices';
import { RotatingLog } from '../../../src-main/services/logging/rotatingLog';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';

const dir = mkdtempSync(join(tmpdir(), 'fg-englog-app-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('app services → log', () => {
  it("writes the engine's lines of a model tried in the app to the app's log", async () => {
    const log = new RotatingLog(join(dir, 'logs'));
    const s = createAppServices(join(dir, 'w', 'w.fairground'), { transport: 'http', log });
    try {
      s.settings.update({ threads: 1 });
      // Inside the workspace folder: the app reads models only from allowed folders.
      const path = join(dir, 'w', 'tiny-3.gguf');
      await writeTinyGguf(path, { preset: 'tiny', seed: 3 });
      const model = await s.models.add(path, 'tiny-app');
      const out = await s.models.try({ kind: 'local', modelId: model.id }, { prompt: 'hello', maxTokens: 2, temperature: 0, chat: false });
      expect(out.completionTokens).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
    const lines = readFileSync(log.file, 'utf8').split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/ INFO app: opened workspace /);
    expect(lines.some((l) => / INFO engine: tiny-app: worker pid \d+ started for .*tiny-3\.gguf$/.test(l))).toBe(true);
    expect(lines.some((l) => / INFO engine: tiny-app: model loaded \(backend cpu, /.test(l))).toBe(true);
    // Detached on close: a later engine line goes nowhere.
    const size = readFileSync(log.file).length;
    engineLog('warn', 'engine', 'after close');
    expect(readFileSync(log.file).length).toBe(size);
  });
});
