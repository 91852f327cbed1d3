/**
 * Target exposure ε* of the oracle that ranks every useful item above every non-useful one
 * (Fair RAG Eq. 6): the block average of MU(i) = 1[i ≤ k] over positions 1..m (useful) and
 * m+1..n (non-useful). Eq. 6 assumes n ≥ k; the general form used here is
 *   useful:     min(m, k) / m
 *   non-useful: max(0, min(n, k) − m) / (n − m)
 * which equals Eq. 6 whenever n ≥ k (1 or k/m; (k − m)/(n − m) or 0).
 */

/**
 * `paper`: Eq. 6 as written (general form above).
 * `code`: Fair-RAG's released evaluation (modified expeval with incomplete judgments): only useful
 * items are in its qrels, so non-useful items get target 0; the EE-R bound is still Eq. 26/27.
 * The two differ only when m < k (reference/fair-rag.md §2, "Discrepancy (EE-R target)").
 */
export type TargetVariant = 'paper' | 'code';

/** ε* aligned with `useful` (one flag per candidate). */
export function targetExposure(useful: readonly boolean[], k: number, variant: TargetVariant = 'paper'): number[] {
  const n = useful.length;
  const m = useful.filter(Boolean).length;
  const usefulTarget = m > 0 ? Math.min(m, k) / m : 0;
  const restTarget = variant === 'code' || n === m ? 0 : Math.max(0, Math.min(n, k) - m) / (n - m);
  return useful.map((u) => (u ? usefulTarget : restTarget));
}

/**
 * Upper bound of EE-R, ‖ε*‖² of the paper's target (App. C.2, Eq. 26–27):
 *   m ≤ k: m + (k − m)² / (n − m);   m > k: k² / m.
 * `paper` uses the general form min(m,k)²/m + max(0, min(n,k) − m)²/(n − m), which is Eq. 26/27
 * for n ≥ k and stays the true maximum when n < k (Eq. 26 with k would exceed it).
 * `code` uses Eq. 26/27 literally with k, as Fair-RAG's expeval fork does (its bound for n < k is
 * therefore larger than any reachable EE-R).
 * n = m ≤ k: the non-useful sum of Eq. 26 is empty, so the bound is m; the released code divides
 * by n − m = 0 there and crashes.
 */
export function relevanceUpperBound(n: number, m: number, k: number, variant: TargetVariant = 'paper'): number {
  if (m > k) return (k * k) / m; // Eq. 27 (n ≥ m > k, so min(n, k) = k in both forms)
  const reach = variant === 'code' ? k : Math.min(n, k);
  const usefulPart = m; // m · 1²
  const restPart = n === m ? 0 : Math.max(0, reach - m) ** 2 / (n - m);
  return usefulPart + restPart;
}
