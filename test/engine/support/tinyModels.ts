/**
 * Test models: tiny GGUFs written by our own writer into a temp folder, and engine settings fit
 * for a shared 2-core machine (one thread — node-llama-cpp's default is 100x slower there).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GgufSpec } from '../../../src-main/engine/gguf/ggufWriter';
import { writeGguf } from '../../../src-main/engine/gguf/ggufWriter';
import { tinyGgufSpec, writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import type { LocalEngineSettings } from '../../../src-main/engine/local/settings';

export const TEST_SETTINGS: Partial<LocalEngineSettings> = { gpu: false, threads: 1, contextSize: 512, batchSize: 512, sequences: 2 };

export interface TinyModels {
  dir: string;
  /** Path of a tiny model with this seed (written on first request). */
  model(seed?: number): Promise<string>;
  /** A tiny model whose metadata was altered before writing. */
  broken(name: string, alter: (spec: GgufSpec) => void): Promise<string>;
  cleanup(): void;
}

export function tinyModels(): TinyModels {
  const dir = mkdtempSync(join(tmpdir(), 'fg-engine-'));
  const written = new Map<number, Promise<string>>();
  return {
    dir,
    model(seed = 1) {
      let p = written.get(seed);
      if (!p) {
        const path = join(dir, `tiny-${seed}.gguf`);
        p = writeTinyGguf(path, { preset: 'tiny', seed }).then(() => path);
        written.set(seed, p);
      }
      return p;
    },
    async broken(name, alter) {
      const spec = tinyGgufSpec('tiny', 1);
      alter(spec);
      const path = join(dir, `${name}.gguf`);
      await writeGguf(path, spec);
      return path;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
