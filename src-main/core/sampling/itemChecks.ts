/** Argument checks shared by the samplers: they fail loudly instead of returning odd rankings. */
import { DataError } from '../errors';

export function checkUniqueIds(ids: readonly string[]): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new DataError(`duplicate item id '${id}'`, { field: 'id' });
    seen.add(id);
  }
}

export function checkCutoff(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

export function checkSampleCount(samples: number): void {
  if (!Number.isInteger(samples) || samples < 0) throw new RangeError(`samples must be a non-negative integer, got ${samples}`);
}

/** Deterministic tie-break: code-unit order of ids, independent of locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
