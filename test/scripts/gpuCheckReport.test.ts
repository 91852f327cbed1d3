/**
 * The pure parts of `npm run gpu-check` (scripts/gpuCheckReport.ts, issue 35 item 9): greedy parity
 * between two backends, and reading llama.cpp's `llama-bench -o json`. The llama-bench text below
 * is a real one, printed by llama-bench built from the llama.cpp source node-llama-cpp ships
 * (`FAIRGROUND_LLAMA_TARGETS=llama-bench bash scripts/build-llama-server.sh`) on the bench model, CPU.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareGreedyTexts, readLlamaBenchGeneration } from '../../scripts/gpuCheckReport';

describe('greedy parity between two backends', () => {
  it('counts identical texts and names where each other one parts', () => {
    const parity = compareGreedyTexts(['the lamp is lit', 'same', 'abc', ''], ['the lamp is out', 'same', 'abcd', '']);
    expect(parity.total).toBe(4);
    expect(parity.identical).toBe(2);
    expect(parity.differing).toEqual([
      { index: 0, partsAt: 12, left: 'lit', right: 'out' },
      { index: 2, partsAt: 3, left: '', right: 'd' },
    ]);
  });

  it('refuses lists of different lengths', () => {
    expect(() => compareGreedyTexts(['a'], ['a', 'b'])).toThrow('greedy parity: 1 texts on one side, 2 on the other');
  });
});

describe("llama-bench's JSON", () => {
  const real = readFileSync(join(__dirname, '../fixtures/llama-bench/bench-cpu.json'), 'utf8');

  it('reads the generation row of a real llama-bench run', () => {
    const rows = JSON.parse(real) as Array<Record<string, unknown>>;
    const tg = rows.find((r) => r.n_prompt === 0)!;
    const read = readLlamaBenchGeneration(real, 'bench-cpu.json');
    expect(read.tokensPerSecond).toBe(tg.avg_ts);
    expect(read.stddev).toBe(tg.stddev_ts);
    expect(read.tokens).toBe(tg.n_gen);
    expect(read.gpuLayers).toBe(0);
    expect(read.threads).toBe(1);
    expect(read.tokensPerSecond).toBeGreaterThan(0);
  });

  it('says what is wrong with text that is not a llama-bench generation run', () => {
    expect(() => readLlamaBenchGeneration('not json', 'x.json')).toThrow(/^x\.json: not JSON/);
    expect(() => readLlamaBenchGeneration('{}', 'x.json')).toThrow('x.json: expected an array of test rows');
    const promptOnly = (JSON.parse(real) as Array<Record<string, unknown>>).map((r) => ({ ...r, n_prompt: 512, n_gen: 0 }));
    expect(() => readLlamaBenchGeneration(JSON.stringify(promptOnly), 'x.json')).toThrow(/x\.json: no generation-only row \(n_prompt 0, n_gen > 0\) among \d+/);
    const noRate = (JSON.parse(real) as Array<Record<string, unknown>>).map((r) => ({ ...r, avg_ts: 'fast' }));
    expect(() => readLlamaBenchGeneration(JSON.stringify(noRate), 'x.json')).toThrow('x.json: field avg_ts is "fast", not a number');
  });
});
