/**
 * Exact Plackett–Luce probabilities for given log-weights (Fair RAG Eq. 2): what the sampler's
 * empirical frequencies are tested against, and what exposure (Eq. 5) is in the limit N → ∞.
 * Every softmax subtracts the maximum over the items still unplaced, so the oracle's logits
 * (1e8 vs 0) give exact 0/1 factors instead of Infinity/Infinity = NaN.
 */
import { checkCutoff } from './itemChecks';

/** Stable softmax over `logits[i]` for the indices in `pool`; returns probabilities aligned with `pool`. */
function softmaxOver(logits: readonly number[], pool: readonly number[]): number[] {
  let max = -Infinity;
  for (const i of pool) if ((logits[i] as number) > max) max = logits[i] as number;
  const e = pool.map((i) => Math.exp((logits[i] as number) - max));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

function checkLogits(logits: readonly number[]): void {
  for (const w of logits) if (!Number.isFinite(w)) throw new RangeError(`logits must be finite, got ${w}`);
}

/** p(π_1 = d) = exp(w_d) / Σ_d' exp(w_d') (Eq. 2 with an empty prefix). */
export function firstPositionProbabilities(logits: readonly number[]): number[] {
  checkLogits(logits);
  return softmaxOver(
    logits,
    logits.map((_, i) => i),
  );
}

/**
 * Probability that a ranking starts with the ordered `prefix` (item indices):
 * Π_i p(prefix_i | prefix_<i), the first |prefix| factors of p(π | q) (Sec. 3.2).
 */
export function prefixProbability(logits: readonly number[], prefix: readonly number[]): number {
  checkLogits(logits);
  const placed = new Set<number>();
  let p = 1;
  for (const d of prefix) {
    if (!Number.isInteger(d) || d < 0 || d >= logits.length) throw new RangeError(`prefix index ${d} out of range`);
    if (placed.has(d)) throw new RangeError(`prefix repeats index ${d}`);
    const pool = logits.map((_, i) => i).filter((i) => !placed.has(i));
    const probs = softmaxOver(logits, pool);
    p *= probs[pool.indexOf(d)] as number;
    placed.add(d);
  }
  return p;
}

/** Largest n for which the subset recursion below is attempted (2^n states at most). */
export const MAX_EXACT_ITEMS = 24;

/**
 * P(d ∈ π_{1:k}) for every item: the exact step-model exposure ε_d of Eq. 5.
 * Recursion over unordered prefixes: f(S ∪ {j}) += f(S) · p(j | S placed), where p(j | S) depends
 * only on the set S, not on its order. Cost Σ_{j<k} C(n, j)·n, so n ≤ MAX_EXACT_ITEMS.
 * n ≤ k gives 1 for every item (Σ_d P = min(n, k) in general).
 */
export function topKInclusionProbabilities(logits: readonly number[], k: number): number[] {
  checkLogits(logits);
  checkCutoff(k);
  const n = logits.length;
  if (n > MAX_EXACT_ITEMS) throw new RangeError(`exact inclusion probabilities need n ≤ ${MAX_EXACT_ITEMS}, got ${n}`);
  const depth = Math.min(n, k);
  let layer = new Map<number, number>([[0, 1]]);
  for (let j = 0; j < depth; j++) {
    const next = new Map<number, number>();
    for (const [set, f] of layer) {
      const pool: number[] = [];
      for (let i = 0; i < n; i++) if ((set & (1 << i)) === 0) pool.push(i);
      const probs = softmaxOver(logits, pool);
      pool.forEach((i, idx) => {
        const to = set | (1 << i);
        next.set(to, (next.get(to) ?? 0) + f * (probs[idx] as number));
      });
    }
    layer = next;
  }
  const incl = new Array<number>(n).fill(0);
  for (const [set, f] of layer) for (let i = 0; i < n; i++) if (set & (1 << i)) incl[i] = (incl[i] as number) + f;
  return incl;
}
