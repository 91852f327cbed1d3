/**
 * A small hand-computed conversation (L = 10, l_max = 2) with a nominal set A (JSD, target (½,½)) and
 * an ordinal set B (NMD, target (½,½,0), with a zero):
 *   turn 1: n1 words 2-3 L2, A (1,0), B (1,0,0); n2 word 5 L0 (no groups)
 *   turn 2: n3 words 7-8 L1, A (0,1), B (0,0,1)
 *   turn 3: n4 words 11-12 L2, A (½,½), B (0,1,0)  (past L)
 *   turn 4: n5 word 14 L0 only (a turn without relevant nuggets)
 */
import type { GfrcInput } from '../../../src-main/core/fairness/gfrcInput';

export function handExample(): GfrcInput {
  return {
    L: 10,
    l_max: 2,
    attributeSets: [
      { name: 'A', kind: 'nominal', measure: 'jsd', target: [0.5, 0.5] },
      { name: 'B', kind: 'ordinal', measure: 'nmd', target: [0.5, 0.5, 0] },
    ],
    nuggets: [
      { turn: 1, end: 3, length: 2, level: 2, groups: { A: [1, 0], B: [1, 0, 0] } },
      { turn: 1, end: 5, length: 1, level: 0, groups: {} },
      { turn: 2, end: 8, length: 2, level: 1, groups: { A: [0, 1], B: [0, 0, 1] } },
      { turn: 3, end: 12, length: 2, level: 2, groups: { A: [0.5, 0.5], B: [0, 1, 0] } },
      { turn: 4, end: 14, length: 1, level: 0, groups: {} },
    ],
  };
}

/** 1 − JSD((1,0) ‖ (½,½)) = 1 − ½·log2(4/3) − ½·(½·log2(2/3) + ½) = 0.6887219 */
export const SIM_A_ONE_HOT = 1 - 0.5 * Math.log2(4 / 3) - 0.5 * (0.5 * Math.log2(2 / 3) + 0.5);
