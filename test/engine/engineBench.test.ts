import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runEngineBench } from '../bench/engine.bench';

// Keeps the engine benchmark runnable: the same code on the tiny preset at a small scale.
it('runs the engine benchmark end to end (tiny preset smoke run)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-'));
  try {
    const m = await runEngineBench({ preset: 'tiny', threads: 1, sequences: 2, scale: 1, dir });
    expect(m.threads).toBe(1);
    expect(m.promptTokens).toBeGreaterThan(30);
    for (const x of [m.parallelGenerationSpeedup, m.parallelScoringSpeedup, m.prefixReuse.speedup, m.cache.speedup]) {
      expect(Number.isFinite(x) && x > 0).toBe(true);
    }
    // Throughputs come from differences of medians (a long prompt or many tokens minus one token): at the
    // smoke scale on a busy machine the difference can be ≤ 0 (a fresh-clone CI run saw it once), so only
    // that they are numbers is asserted here; `npm run bench` measures them at full scale.
    for (const x of [m.promptTokensPerSecond, m.generationTokensPerSecond]) expect(Number.isNaN(x)).toBe(false);
    expect(m.cache.hitMs).toBeLessThan(m.cache.missMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
