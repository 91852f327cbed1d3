/**
 * The fairness-aware stochastic retriever of Fair RAG (Sec. 3.2): Plackett–Luce over the
 * normalised scores raised to the power α (Eq. 2), sampled with the Gumbel-max trick.
 *
 * Scores are *log*-weights: p(d | prefix) = exp(w_d) / Σ_{d' not placed} exp(w_d'), w_d = s̄_d^α.
 * α is a power, not a temperature (not exp(α·s)). α = 0 gives w ≡ 1, i.e. uniform rankings; on
 * [1, 2]-normalised scores the largest weight ratio is exp(2^α − 1) (α = 8: e^255, deterministic).
 */
import type { Rng } from '../random/rng';
import { checkCutoff, checkSampleCount, checkUniqueIds, compareIds } from './itemChecks';
import { normalizeScores, type ScoreNormalization } from './scoreNormalization';

export interface ScoredItem {
  id: string;
  score: number;
}

export interface PlackettLuceOptions {
  items: readonly ScoredItem[];
  /** Fairness control α ≥ 0 (Sec. 3.2.1): 0 = uniform, large = deterministic. */
  alpha: number;
  /** Ranking depth: each sample is the top-k prefix (length min(n, k)). */
  k: number;
  /** Number of rankings N. */
  samples: number;
  rng: Rng;
  /** Score normalisation, default `paper` (see scoreNormalization.ts). */
  normalization?: ScoreNormalization;
}

/** w_d = s̄_d^α (Eq. 2), with s̄ from `normalizeScores`. */
export function plackettLuceLogits(scores: readonly number[], alpha: number, normalization: ScoreNormalization = 'paper'): number[] {
  if (!Number.isFinite(alpha) || alpha < 0) throw new RangeError(`alpha must be a finite number ≥ 0, got ${alpha}`);
  const logits = normalizeScores(scores, normalization).map((s) => s ** alpha);
  // s̄ ≤ 2 (paper) overflows only for α > 1023; report it rather than sampling from NaN keys.
  if (logits.some((w) => !Number.isFinite(w))) throw new RangeError(`alpha ${alpha} makes the logits overflow`);
  return logits;
}

/** N seeded top-k rankings (item ids) from the α-controlled Plackett–Luce policy. */
export function samplePlackettLuce(options: PlackettLuceOptions): string[][] {
  const { items, alpha, k, samples, rng, normalization = 'paper' } = options;
  const logits = plackettLuceLogits(
    items.map((it) => it.score),
    alpha,
    normalization,
  );
  return sampleTopKByLogits({ ids: items.map((it) => it.id), logits, k, samples, rng });
}

export interface LogitSamplingOptions {
  ids: readonly string[];
  /** Log-weights, one per id; any finite values (e.g. the oracle's 1e8 / 0). */
  logits: readonly number[];
  k: number;
  samples: number;
  rng: Rng;
}

/**
 * Gumbel-max top-k (Sec. 3.2; the paper's "s̃ = s̃ + G" means w + G): for every sample draw
 * G_d = −log(−log U_d) for each item in input order, sort w_d + G_d descending and keep the first
 * k. Sorting perturbed log-weights draws the whole PL ranking at once, so its top-k prefix has
 * exactly the distribution of the first k sequential draws of Eq. 2.
 *
 * The logits are shifted by their maximum first: with the oracle's 1e8, 1e8 + G would round G to
 * multiples of 1.5e-8 and ties within the top group would no longer be uniform; w − max keeps the
 * top group's keys at full precision. Exact key ties (probability ~0) fall back to id order.
 */
export function sampleTopKByLogits(options: LogitSamplingOptions): string[][] {
  const { ids, logits, k, samples, rng } = options;
  if (ids.length !== logits.length) throw new RangeError(`got ${ids.length} ids but ${logits.length} logits`);
  checkUniqueIds(ids);
  checkCutoff(k);
  checkSampleCount(samples);
  let max = -Infinity;
  for (const w of logits) {
    if (!Number.isFinite(w)) throw new RangeError(`logits must be finite, got ${w}`);
    if (w > max) max = w;
  }
  const n = ids.length;
  const depth = Math.min(n, k);
  const shifted = logits.map((w) => w - max);
  const keys = new Float64Array(n);
  const order = Array.from({ length: n }, (_, i) => i);
  const byKey = (a: number, b: number): number => (keys[b] as number) - (keys[a] as number) || compareIds(ids[a] as string, ids[b] as string);
  const out: string[][] = [];
  for (let s = 0; s < samples; s++) {
    for (let i = 0; i < n; i++) keys[i] = (shifted[i] as number) + rng.nextGumbel();
    order.sort(byKey);
    out.push(order.slice(0, depth).map((i) => ids[i] as string));
  }
  return out;
}
