/**
 * Weights of the combined measures: GFRC = w_R·R + Σ_m w_m·GF^m and Experience = w_0·GNP + Σ_m w_m·GF^m
 * (Eq. 12). The default is a plain average, w = 1/(M+1), which is what reproduces Table 5 (GFRC) and
 * what Eq. 19 uses (GFRC2).
 */
import { DataError } from '../errors';
import type { AttributeSet } from './gfrcInput';

export interface ComponentWeights {
  /** Weight of the relevance component (R for GFRC, GNP for GFRC2). */
  main: number;
  /** Weight of each attribute set's group-fairness component, by set name. */
  sets: Record<string, number>;
}

export function equalWeights(sets: readonly AttributeSet[]): ComponentWeights {
  const w = 1 / (sets.length + 1);
  return { main: w, sets: Object.fromEntries(sets.map((s) => [s.name, w])) };
}

/** Weights must be non-negative, name exactly the attribute sets, and sum to 1 (Eq. 12). */
export function checkWeights(weights: ComponentWeights, sets: readonly AttributeSet[], field: string, mainName: string): void {
  const fail = (sub: string, reason: string) => {
    throw new DataError(reason, { field: `${field}.${sub}` });
  };
  const ok = (x: number) => Number.isFinite(x) && x >= 0;
  if (!ok(weights.main)) fail(mainName, `must be a finite non-negative number, got ${weights.main}`);
  for (const s of sets) if (!(s.name in weights.sets)) fail(`sets.${s.name}`, 'missing weight for this attribute set');
  let sum = weights.main;
  for (const [name, w] of Object.entries(weights.sets)) {
    if (!sets.some((s) => s.name === name)) fail(`sets.${name}`, `unknown attribute set '${name}'`);
    if (!ok(w)) fail(`sets.${name}`, `must be a finite non-negative number, got ${w}`);
    sum += w;
  }
  if (Math.abs(sum - 1) > 1e-9) throw new DataError(`weights sum to ${sum}, not 1`, { field });
}
