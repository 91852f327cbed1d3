/**
 * Gain of a nugget in GFRC's R score. FairWeb-2 uses the ERR-style relevance probability
 *   g(l) = (2^l − 1) / 2^{l_max}
 * (NTCIREVAL `-g 1:3` with gv[l_max] + 1 = 4 as divisor), so g(L2) = 0.75 and g(L1) = 0.25 for
 * l_max = 2. The paper's "(2² − 1)/l_max = 3/4" only works if l_max there means 2^{l_max}.
 */
import { DataError } from '../errors';

export function exponentialGain(level: number, lMax: number): number {
  return (2 ** level - 1) / 2 ** lMax;
}

/** Gain per level 0 … l_max: the given table, checked, or the exponential default. */
export function gainTable(lMax: number, custom?: readonly number[]): number[] {
  if (custom === undefined) return Array.from({ length: lMax + 1 }, (_, l) => exponentialGain(l, lMax));
  if (custom.length !== lMax + 1) throw new DataError(`expected ${lMax + 1} gains (levels 0 to l_max = ${lMax}), got ${custom.length}`, { field: 'gains' });
  custom.forEach((g, l) => {
    if (!Number.isFinite(g) || g < 0 || g > 1) throw new DataError(`must be in [0, 1], got ${g}`, { field: `gains[${l}]` });
  });
  return [...custom];
}
