import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { assertGfrcInput, formatFieldPath, gfrcInputProblems, type GfrcInput } from '../../../src-main/core/fairness/gfrcInput';
import { handExample } from './handExample';

/** The first problem of an input changed by `edit`, as "path: message". */
function firstProblem(edit: (input: GfrcInput) => void): string | undefined {
  const input = handExample();
  edit(input);
  const [p] = gfrcInputProblems(input);
  return p && `${formatFieldPath(p.path)}: ${p.message}`;
}

describe('gfrcInputProblems', () => {
  it('accepts the hand example, L0 nuggets without groups, and a gold file\'s 0.333333 target', () => {
    expect(gfrcInputProblems(handExample())).toEqual([]);
    expect(firstProblem((i) => (i.attributeSets[0]!.target = [0.333333, 0.333333, 0.333333]))).toMatch(/^nuggets\[0\]\.groups\.A: expected 3 values/);
    expect(
      firstProblem((i) => {
        i.attributeSets = [{ name: 'P', kind: 'nominal', measure: 'jsd', target: [0.333333, 0.333333, 0.333333] }];
        i.nuggets = [{ turn: 1, end: 1, length: 1, level: 1, groups: { P: [1, 0, 0] } }];
      }),
    ).toBeUndefined();
  });

  it.each<[string, (i: GfrcInput) => void, RegExp]>([
    ['L not a positive integer', (i) => (i.L = 0), /^L: must be a positive integer/],
    ['l_max fractional', (i) => (i.l_max = 1.5), /^l_max: must be a positive integer/],
    ['level above l_max', (i) => (i.nuggets[2]!.level = 3), /^nuggets\[2\]\.level: must be an integer from 0 to l_max = 2, got 3/],
    ['negative level', (i) => (i.nuggets[0]!.level = -1), /^nuggets\[0\]\.level/],
    ['length longer than end', (i) => (i.nuggets[0]!.length = 4), /^nuggets\[0\]\.length: 4 words cannot end at word 3/],
    ['turn 0', (i) => (i.nuggets[0]!.turn = 0), /^nuggets\[0\]\.turn: must be a positive integer/],
    ['relevant nugget missing a set', (i) => delete i.nuggets[2]!.groups.B, /^nuggets\[2\]\.groups\.B: missing/],
    ['unknown set', (i) => (i.nuggets[1]!.groups.C = [1, 0]), /^nuggets\[1\]\.groups\.C: unknown attribute set 'C'/],
    ['vector of the wrong size', (i) => (i.nuggets[0]!.groups.B = [1, 0]), /^nuggets\[0\]\.groups\.B: expected 3 values \(one per group\), got 2/],
    ['vector not summing to 1', (i) => (i.nuggets[0]!.groups.A = [0.5, 0.4]), /^nuggets\[0\]\.groups\.A: values sum to 0\.9, not 1/],
    ['negative membership', (i) => (i.nuggets[0]!.groups.A = [1.5, -0.5]), /^nuggets\[0\]\.groups\.A: value 2 is -0.5/],
    ['target of one group', (i) => (i.attributeSets[0]!.target = [1]), /^attributeSets\[0\]\.target: needs at least 2 groups/],
    ['target not summing to 1', (i) => (i.attributeSets[1]!.target = [0.33, 0.33, 0.33]), /^attributeSets\[1\]\.target: values sum to 0\.99/],
    ['nominal set with an order-aware measure', (i) => (i.attributeSets[0]!.measure = 'rnod'), /^attributeSets\[0\]\.measure: a nominal attribute set needs 'jsd'/],
    ['ordinal set with JSD', (i) => (i.attributeSets[1]!.measure = 'jsd'), /^attributeSets\[1\]\.measure: an ordinal attribute set needs 'nmd' or 'rnod'/],
    ['duplicate set names', (i) => (i.attributeSets[1]!.name = 'A'), /^attributeSets\[1\]\.name: duplicate/],
    ['overlapping nuggets', (i) => (i.nuggets[2]!.length = 4), /^nuggets\[2\]: words 5-8 overlap nuggets\[1\] \(words 5-5\)/],
    ['turn numbers going backwards', (i) => (i.nuggets[3]!.turn = 1), /^nuggets\[3\]\.turn: turn 1 at words 11-12 comes after nuggets\[2\] in turn 2/],
  ])('reports %s with its field path', (_what, edit, expected) => {
    expect(firstProblem(edit)).toMatch(expected);
  });

  it('assertGfrcInput throws a DataError carrying the field', () => {
    const input = handExample();
    input.nuggets[4]!.level = 7;
    try {
      assertGfrcInput(input);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(DataError);
      expect((err as DataError).field).toBe('nuggets[4].level');
    }
  });
});

describe('formatFieldPath', () => {
  it('joins names with dots and indices with brackets', () => {
    expect(formatFieldPath(['nuggets', 3, 'groups', 'HINDEX'])).toBe('nuggets[3].groups.HINDEX');
    expect(formatFieldPath([])).toBe('');
  });
});
