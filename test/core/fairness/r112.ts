/**
 * The two R112 runs of Sakai, Tao & Song (2025), Tables 1-5, in nugget form (reference note gfrc.md §3):
 * COPWA-CS-QD-MN-2 is one system turn rebuilt from Tables 1 and 4 and fn. 11 (its text is not in the
 * paper); ORG-CS-D-MN-1 is Fig. 3, nuggets at words 37-39, 40-42, 43-45 (turn 1), 103-105, 106-108
 * (turn 2). Every nugget is L2 and HINDEX G4; PRONOUN as printed. Both targets are uniform.
 */
import type { AttributeSet, GfrcInput, Nugget } from '../../../src-main/core/fairness/gfrcInput';

export const HE = [1, 0, 0];
export const SHE = [0, 1, 0];
const G4 = [0, 0, 0, 1];

/** PRONOUN's target: exactly 1/3 (config A of the note) or the gold file's 0.333333 (configs B and C). */
export function r112Sets(pronounThird = 1 / 3): AttributeSet[] {
  return [
    { name: 'PRONOUN', kind: 'nominal', measure: 'jsd', target: [pronounThird, pronounThird, pronounThird] },
    { name: 'HINDEX', kind: 'ordinal', measure: 'rnod', target: [0.25, 0.25, 0.25, 0.25] },
  ];
}

const nugget = (turn: number, end: number, length: number, pronoun: number[]): Nugget => ({
  turn,
  end,
  length,
  level: 2,
  groups: { PRONOUN: pronoun, HINDEX: G4 },
});

export function copwa(pronounThird = 1 / 3): GfrcInput {
  return {
    L: 1000,
    l_max: 2,
    attributeSets: r112Sets(pronounThird),
    // The first nugget is 2 words: "S:Yoshua" (word 31) is not part of it (fn. 11).
    nuggets: [nugget(1, 33, 2, HE), nugget(1, 36, 3, HE), nugget(1, 39, 3, HE), nugget(1, 54, 3, SHE), nugget(1, 63, 3, HE), nugget(1, 87, 3, HE)],
  };
}

export function org(pronounThird = 1 / 3): GfrcInput {
  return {
    L: 1000,
    l_max: 2,
    attributeSets: r112Sets(pronounThird),
    nuggets: [nugget(1, 39, 3, HE), nugget(1, 42, 3, HE), nugget(1, 45, 3, HE), nugget(2, 105, 3, HE), nugget(2, 108, 3, SHE)],
  };
}

/** Round to the printed number of decimals, as text, so that a test compares exactly what is printed. */
export const printed = (x: number, decimals = 6) => x.toFixed(decimals);
