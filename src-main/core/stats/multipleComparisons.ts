/**
 * Adjusted p-values for m simultaneous tests, as statsmodels `multipletests` returns them
 * (PyTerrier's `correction='holm'|'bonferroni'|'fdr_bh'`). A hypothesis is rejected when its
 * adjusted p-value is ≤ α: at family-wise level α (Holm, Bonferroni) or false discovery rate α
 * (Benjamini–Hochberg). Results keep the input order.
 */
import { DataError } from '../errors';

/** `bh`: Benjamini–Hochberg (statsmodels `fdr_bh`). */
export type Correction = 'holm' | 'bonferroni' | 'bh' | 'none';

export const CORRECTIONS: readonly Correction[] = ['holm', 'bonferroni', 'bh', 'none'];

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

/**
 * Benjamini–Hochberg step-up (Benjamini & Hochberg 1995, JRSS B 57:289–300), statsmodels
 * `multipletests(method='fdr_bh')`: with p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of the i-th smallest
 * is min_{j ≥ i} min(1, m·p₍ⱼ₎ / j). Rejecting "adjusted ≤ α" is the step-up rule "reject the k
 * smallest, k the largest i with p₍ᵢ₎ ≤ iα/m", controlling the false discovery rate at α for
 * independent (or positively dependent) tests.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  checkPValues(pValues);
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const out = new Array<number>(m);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const { p, i } = order[rank]!;
    running = Math.min(running, (m * p) / (rank + 1));
    out[i] = running;
  }
  return out;
}

/**
 * The one significance rule of every table and comparison: a hypothesis is rejected when its
 * (adjusted) p-value is ≤ α — at exactly α it is significant (statsmodels `multipletests`' `reject`).
 */
export function significantAt(p: number, alpha: number): boolean {
  return p <= alpha;
}

/** Dispatch by name; 'none' returns a copy of the raw p-values. */
export function adjustPValues(pValues: readonly number[], correction: Correction): number[] {
  switch (correction) {
    case 'holm':
      return holm(pValues);
    case 'bonferroni':
      return bonferroni(pValues);
    case 'bh':
      return benjaminiHochberg(pValues);
    case 'none':
      checkPValues(pValues);
      return pValues.slice();
  }
}
