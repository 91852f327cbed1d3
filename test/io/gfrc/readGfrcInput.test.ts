import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { parseGfrcInput } from '../../../src-main/io/gfrc/readGfrcInput';

const base = {
  L: 100,
  l_max: 2,
  attribute_sets: [
    { name: 'P', kind: 'nominal', target: [0.5, 0.5] },
    { name: 'H', kind: 'ordinal', target: [0.5, 0.25, 0.25] },
  ],
};
const nuggetForm = (extra: object = {}) => ({
  ...base,
  nuggets: [
    { turn: 1, end: 5, length: 2, level: 2, groups: { P: [1, 0], H: [0, 0, 1] } },
    { turn: 1, end: 9, length: 1, level: 0 },
  ],
  ...extra,
});

function errorOf(json: unknown): DataError {
  try {
    parseGfrcInput(typeof json === 'string' ? json : JSON.stringify(json), 'in.json');
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

describe('parseGfrcInput', () => {
  it('reads nugget form, defaulting measures to JSD (nominal) and RNOD (ordinal) and L0 groups to {}', () => {
    const { input } = parseGfrcInput(JSON.stringify(nuggetForm()), 'in.json');
    expect(input.attributeSets.map((s) => s.measure)).toEqual(['jsd', 'rnod']);
    expect(input.nuggets[1]).toEqual({ turn: 1, end: 9, length: 1, level: 0, groups: {} });
  });

  it('reads conversation form into positioned nuggets', () => {
    const { input } = parseGfrcInput(
      JSON.stringify({ ...base, conversation: [{ role: 'user', text: 'q' }, { role: 'system', text: 'x y z', nuggets: [{ text: 'y z', level: 1, groups: { P: [0, 1], H: [1, 0, 0] } }] }] }),
      'in.json',
    );
    expect(input.nuggets).toEqual([{ turn: 1, end: 4, length: 2, level: 1, groups: { P: [0, 1], H: [1, 0, 0] } }]);
  });

  it('reads gains and weights, keyed as in the file', () => {
    const out = parseGfrcInput(JSON.stringify(nuggetForm({ gains: [0, 0.5, 1], gfrc_weights: { R: 0.5, sets: { P: 0.25, H: 0.25 } }, gfrc2_weights: { GNP: 1, sets: { P: 0, H: 0 } } })), 'in.json');
    expect(out.gains).toEqual([0, 0.5, 1]);
    expect(out.gfrcWeights).toEqual({ main: 0.5, sets: { P: 0.25, H: 0.25 } });
    expect(out.gfrc2Weights).toEqual({ main: 1, sets: { P: 0, H: 0 } });
  });

  it.each<[string, unknown, string, RegExp]>([
    ['a fractional level', nuggetForm({ nuggets: [{ turn: 1, end: 5, length: 2, level: 1.5 }] }), 'nuggets[0].level', /expected int/i],
    ['a level above l_max', { ...nuggetForm(), nuggets: [...nuggetForm().nuggets, { turn: 1, end: 20, length: 1, level: 3, groups: { P: [1, 0], H: [1, 0, 0] } }] }, 'nuggets[2].level', /from 0 to l_max = 2/],
    ['a missing field', { ...base, nuggets: [{ turn: 1, end: 5, level: 1 }] }, 'nuggets[0].length', /expected number/],
    ['an unknown kind', { ...base, attribute_sets: [{ name: 'P', kind: 'nomnal', target: [1, 0] }], nuggets: [] }, 'attribute_sets[0].kind', /invalid option/i],
    ['a measure that does not fit the kind', { ...base, attribute_sets: [{ name: 'P', kind: 'nominal', measure: 'nmd', target: [0.5, 0.5] }], nuggets: [] }, 'attribute_sets[0].measure', /needs 'jsd'/],
    ['a target that does not sum to 1', { ...base, attribute_sets: [{ name: 'P', kind: 'nominal', target: [0.5, 0.6] }], nuggets: [] }, 'attribute_sets[0].target', /sum to 1\.1/],
    ['a membership vector of the wrong size', nuggetForm({ nuggets: [{ turn: 1, end: 5, length: 2, level: 2, groups: { P: [1, 0], H: [0, 1] } }] }), 'nuggets[0].groups.H', /expected 3 values/],
    ['overlapping nuggets', nuggetForm({ nuggets: [{ turn: 1, end: 5, length: 2, level: 0 }, { turn: 1, end: 6, length: 2, level: 0 }] }), 'nuggets[1]', /overlap nuggets\[0\]/],
    ['a typo in a key', nuggetForm({ nugets: [] }), '', /unrecognized key/i],
    ['weights that do not sum to 1', nuggetForm({ gfrc2_weights: { GNP: 1, sets: { P: 1, H: 0 } } }), 'gfrc2_weights', /sum to 2/],
    ['weights for an unknown set', nuggetForm({ gfrc_weights: { R: 1, sets: { P: 0, H: 0, X: 0 } } }), 'gfrc_weights.sets.X', /unknown attribute set/],
    ['a short gain table', nuggetForm({ gains: [0, 1] }), 'gains', /expected 3 gains/],
  ])('names the field for %s', (_what, json, field, message) => {
    const err = errorOf(json);
    expect(err.file).toBe('in.json');
    expect(err.field ?? '').toBe(field);
    expect(err.reason).toMatch(message);
  });

  it('wants exactly one of nuggets and conversation', () => {
    expect(errorOf(base).message).toBe("in.json: give exactly one of 'nuggets' and 'conversation'");
    expect(errorOf({ ...nuggetForm(), conversation: [] }).message).toMatch(/exactly one/);
  });

  it('points conversation problems at conversation[i].nuggets[j]', () => {
    const conv = (groups: object, text = 'y z') => ({ ...base, conversation: [{ role: 'user', text: 'q' }, { role: 'system', text: 'x y z', nuggets: [{ text, level: 1, groups }] }] });
    expect(errorOf(conv({ P: [0, 1], H: [1, 0] })).field).toBe('conversation[1].nuggets[0].groups.H');
    expect(errorOf(conv({ P: [0, 1] })).field).toBe('conversation[1].nuggets[0].groups.H');
    const notFound = errorOf(conv({ P: [0, 1], H: [1, 0, 0] }, 'w'));
    expect(notFound.message).toBe("in.json: conversation[1].nuggets[0].text: nugget text not found in the turn: 'w'");
    expect(errorOf({ ...base, conversation: [{ role: 'bot', text: 'x' }] }).field).toBe('conversation[0].role');
  });

  it('names the line and column of a JSON syntax error where the engine reports a position', () => {
    const err = errorOf('{\n  "L": 1000,\n  "l_max" 2\n}');
    expect([err.file, err.line]).toEqual(['in.json', 3]);
    expect(err.message).toMatch(/^in\.json:3: invalid JSON: .*\(column 11\)$/);
    expect(errorOf('').message).toMatch(/^in\.json: invalid JSON/);
    // Without a position the file is still named, and V8's echo of the text is left out.
    expect(errorOf('{"L": }').message).toBe("in.json: invalid JSON: Unexpected token '}'");
  });
});
