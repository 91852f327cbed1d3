/**
 * Adjusted p-values for m simultaneous tests, as statsmodels `multipletests` returns them
 * (PyTerrier's `correction='holm'|'bonferroni'`). A hypothesis is rejected at family-wise level α
 * when its adjusted p-value is ≤ α. Results keep the input order.
 */
import { DataError } from '../errors';

export type Correction = 'holm' | 'bonferroni' | 'none';

export const CORRECTIONS: readonly Correction[] = ['holm', 'bonferroni', 'none'];

function checkPValues(pValues: readonly number[]): void {
  pValues.forEach((p, i) => {
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) throw new DataError(`p-value ${i + 1} is not in [0, 1] (${String(p)})`);
  });
}

/** Bonferroni: min(1, m·p_i). An empty list gives an empty list. */
export function bonferroni(pValues: readonly number[]): number[] {
  checkPValues(pValues);
  const m = pValues.length;
  return pValues.map((p) => Math.min(1, m * p));
}

/**
 * Holm's step-down procedure (Holm 1979, Scand. J. Statist. 6:65–70). With p₍₁₎ ≤ … ≤ p₍ₘ₎,
 * the adjusted value of the i-th smallest is max_{j ≤ i} min(1, (m − j + 1) p₍ⱼ₎); the running
 * maximum makes adjusted p-values monotone in the raw ones, so rejecting "adjusted ≤ α" is the
 * same as Holm's stop-at-first-acceptance rule. Ties keep their input order (stable sort).
 */
export function holm(pValues: readonly number[]): number[] {
  checkPValues(pValues);
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** Dispatch by name; 'none' returns a copy of the raw p-values. */
export function adjustPValues(pValues: readonly number[], correction: Correction): number[] {
  switch (correction) {
    case 'holm':
      return holm(pValues);
    case 'bonferroni':
      return bonferroni(pValues);
    case 'none':
      checkPValues(pValues);
      return pValues.slice();
  }
}
