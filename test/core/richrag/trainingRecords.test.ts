import { describe, expect, it } from 'vitest';
import { sftRecords, us3PreferencePairs, type Us3Query } from '../../../src-main/core/richrag/trainingRecords';

// Rewards chosen to be exact in binary so the gaps compare exactly with μ.
const QUERY: Us3Query = {
  prompt: 'q1',
  greedy: { ranking: ['d1', 'd2'], reward: 0.5 },
  samples: [
    { ranking: ['d3', 'd1'], reward: 0.75 }, // +0.25
    { ranking: ['d2', 'd1'], reward: 0.5625 }, // +0.0625
    { ranking: ['d4', 'd5'], reward: 0.25 }, // −0.25
    { ranking: ['d1', 'd3'], reward: 0.625 }, // +0.125
    { ranking: ['d3', 'd1'], reward: 0.75 }, // repeat of the first sample
  ],
};

describe('us3PreferencePairs (US³: greedy vs sample, |gap| > μ)', () => {
  it('default μ = 0.1 keeps the gaps 0.25, −0.25 and 0.125; the higher reward is chosen; repeats once', () => {
    expect(us3PreferencePairs([QUERY])).toEqual([
      { prompt: 'q1', chosen: 'd3 d1', rejected: 'd1 d2' },
      { prompt: 'q1', chosen: 'd1 d2', rejected: 'd4 d5' },
      { prompt: 'q1', chosen: 'd1 d3', rejected: 'd1 d2' },
    ]);
  });

  it('needs the gap to EXCEED μ: μ = 0.125 drops the sample exactly 0.125 above', () => {
    const pairs = us3PreferencePairs([QUERY], { mu: 0.125 });
    expect(pairs.map((p) => [p.chosen, p.rejected])).toEqual([
      ['d3 d1', 'd1 d2'],
      ['d1 d2', 'd4 d5'],
    ]);
    expect(us3PreferencePairs([QUERY], { mu: 0.25 })).toEqual([]);
  });

  it('renders lists with the given function and never pairs two samples', () => {
    const q: Us3Query = { prompt: 'p', greedy: { ranking: ['0'], reward: 0 }, samples: [{ ranking: ['1'], reward: 1 }, { ranking: ['2'], reward: -1 }] };
    // the two samples differ by 2 but are not paired with each other
    expect(us3PreferencePairs([q], { render: (l) => l.map((i) => `[D${i}]`).join('') })).toEqual([
      { prompt: 'p', chosen: '[D1]', rejected: '[D0]' },
      { prompt: 'p', chosen: '[D0]', rejected: '[D2]' },
    ]);
  });

  it('keeps a seeded subset in the original order when asked for fewer pairs', () => {
    const all = us3PreferencePairs([QUERY]);
    const a = us3PreferencePairs([QUERY], { sample: { limit: 2, seed: 7 } });
    expect(a).toHaveLength(2);
    expect(us3PreferencePairs([QUERY], { sample: { limit: 2, seed: 7 } })).toEqual(a); // same seed, same pairs
    const positions = a.map((p) => all.findIndex((x) => x.chosen === p.chosen && x.rejected === p.rejected));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    expect(us3PreferencePairs([QUERY], { sample: { limit: 10, seed: 7 } })).toEqual(all);
  });

  it('rejects a non-finite reward (naming it) and a bad μ', () => {
    const bad: Us3Query = { ...QUERY, samples: [{ ranking: ['x'], reward: Number.NaN }] };
    expect(() => us3PreferencePairs([QUERY, bad])).toThrow('queries[1].samples[0].reward: reward must be a finite number, got NaN');
    expect(() => us3PreferencePairs([QUERY], { mu: -1 })).toThrow(/mu must be/);
    expect(() => us3PreferencePairs([QUERY], { sample: { limit: 1.5, seed: 1 } })).toThrow(/sample.limit/);
  });
});

describe('sftRecords', () => {
  it('makes {prompt, completion} from silver lists', () => {
    expect(sftRecords([{ prompt: 'q', silver: ['d2', 'd1'] }])).toEqual([{ prompt: 'q', completion: 'd2 d1' }]);
  });
});
