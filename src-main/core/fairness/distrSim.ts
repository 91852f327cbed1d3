/**
 * Distribution similarity: DistrSim = 1 − divergence (Sakai, Tao & Song 2025, Sec. 2.1). Nominal
 * attribute sets use JSD; ordinal sets use NMD or RNOD (the paper uses RNOD for HINDEX).
 */
import { jsd } from './jsd';
import { nmd } from './nmd';
import { rnod } from './rnod';

export type DivergenceMeasure = 'jsd' | 'nmd' | 'rnod';

export function divergence(measure: DivergenceMeasure, achieved: readonly number[], target: readonly number[]): number {
  switch (measure) {
    case 'jsd':
      return jsd(achieved, target);
    case 'nmd':
      return nmd(achieved, target);
    case 'rnod':
      return rnod(achieved, target);
  }
}

export function distrSim(measure: DivergenceMeasure, achieved: readonly number[], target: readonly number[]): number {
  return 1 - divergence(measure, achieved, target);
}

/** Element-wise mean of membership vectors (Eq. 18 and the per-turn D of Eq. 10). */
export function meanDistribution(vectors: readonly (readonly number[])[], size: number): number[] {
  const mean = new Array<number>(size).fill(0);
  if (vectors.length === 0) return mean;
  for (const v of vectors) for (let i = 0; i < size; i++) mean[i]! += v[i]!;
  return mean.map((x) => x / vectors.length);
}
