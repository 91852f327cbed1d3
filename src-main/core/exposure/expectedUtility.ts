/**
 * Expected utility and its normalisation (Fair RAG Sec. 3.3.2, App. C.3; reference notes §4).
 *   EU = (1/N) Σ_{π ∈ σ} μ_u(y, ŷ_π)                    (Eq. 7; duplicate rankings counted)
 *   u_max = max of the per-sample utilities over the runs α = 1, 2, 4, 8 of the same
 *           retriever × generator and the oracle run of the same generator   (Eq. 29)
 *   EU̅ = EU / u_max                                     (Eq. 30)
 * Lower-is-better metrics (LaMP-3 MAE) are first mapped u → worst − u (worst = 4 on the 1..5
 * scale) for EU and for every per-sample utility, so u_max = worst − min error.
 */
import { DataError } from '../errors';

/** EU (Eq. 7): the mean per-sample utility. */
export function expectedUtility(perSample: readonly number[]): number {
  if (perSample.length === 0) throw new DataError('no per-sample utilities (N = 0)');
  let s = 0;
  for (const u of perSample) {
    if (!Number.isFinite(u)) throw new DataError(`utility is not a finite number (${u})`);
    s += u;
  }
  return s / perSample.length;
}

/**
 * u_max (Eq. 29): the maximum per-sample utility over every run given (the caller passes the runs
 * of one retriever × generator plus that generator's oracle run; pooling retrievers is wrong).
 */
export function utilityUpperBound(runs: readonly (readonly number[])[]): number {
  let max = -Infinity;
  for (const run of runs) for (const u of run) if (u > max) max = u;
  if (max === -Infinity) throw new DataError('no per-sample utilities to take u_max from');
  return max;
}

/**
 * EU̅ = EU / u_max (Eq. 30). u_max = 0 (no sample of any run scored above 0) leaves Eq. 30 undefined:
 * `zeroMax` 'zero' (the default) gives 0, nothing observed was useful; 'code' gives 1.0, as Fair-RAG's
 * `normalize_eu.py` does by catching the ZeroDivisionError (every run "as good as the best observed",
 * so an all-wrong reader scored EU̅ = 1).
 */
export function normalizedExpectedUtility(eu: number, uMax: number, zeroMax: 'zero' | 'code' = 'zero'): number {
  if (uMax === 0) return zeroMax === 'code' ? 1 : 0;
  return eu / uMax;
}

/** Converts a lower-is-better score into higher-is-better by `worst − value` (MAE on 1..5: worst = 4). */
export function toHigherIsBetter(value: number, worst: number): number {
  return worst - value;
}
