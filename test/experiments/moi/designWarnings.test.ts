import { describe, expect, it } from 'vitest';
import { MoiSpec } from '../../../src-main/api/contract/moi';
import { moiDesignWarnings, moiKind } from '../../../src-main/experiments/moi/kind';

const base = { kind: 'moi', name: 'w', collection: 'c', retriever: { method: 'candidate-order' }, n: 5, generator: { model: 'm' }, baselines: [] };
const spec = (extra: Record<string, unknown>) => MoiSpec.parse({ ...base, ...extra });

describe('moiKind.designWarnings', () => {
  it('cyclic (M = N = 5 prompts < N + L − 1 = 9 unknowns): unidentified, names the fix; plus the orientation warning', async () => {
    const w = await moiKind.designWarnings!(spec({ permutations: { set: 'cyclic' } }), {} as never);
    expect(w.map((x) => x.code)).toEqual(['moi-unidentified', 'moi-orientation']);
    expect(w[0]!.message).toMatch(/\(5\) for 9 unknowns/);
    expect(w[0]!.fix).toMatch(/random3n.*15 prompts.*fixedA\.fromRun/);
  });

  it('random with count 8 < 9 unknowns is unidentified; the default 3N = 15 only warns about orientation', () => {
    expect(moiDesignWarnings(spec({ permutations: { set: 'random3n', count: 8 } })).map((x) => x.code)).toEqual(['moi-unidentified', 'moi-orientation']);
    expect(moiDesignWarnings(spec({ permutations: { set: 'random3n', count: 9 } })).map((x) => x.code)).toEqual(['moi-orientation']);
    const w = moiDesignWarnings(spec({}));
    expect(w.map((x) => x.code)).toEqual(['moi-orientation']);
    expect(w[0]!.fix).toMatch(/prefix-pruned/);
  });

  it('pruned L = 3 of N = 5 (5 prompts < 7 unknowns) without a fixed a: unidentified only; with a calibration a: nothing; rule none: no orientation warning', () => {
    expect(moiDesignWarnings(spec({ permutations: { set: 'pruned', length: 3 } })).map((x) => x.code)).toEqual(['moi-unidentified']);
    expect(moiDesignWarnings(spec({ permutations: { set: 'pruned', length: 3 }, solver: { fixedA: { fromRun: 1 } } }))).toEqual([]);
    expect(moiDesignWarnings(spec({ solver: { orientation: 'none' } }))).toEqual([]);
  });
});
