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
 * G_d = −log(−log U_d) for each item in input order, order the items by w_d + G_d descending and
 * keep the first k. Ordering perturbed log-weights draws the whole PL ranking at once, so its top-k
 * prefix has exactly the distribution of the first k sequential draws of Eq. 2.
 *
 * The logits are shifted by their maximum first: with the oracle's 1e8, 1e8 + G would round G to
 * multiples of 1.5e-8 and ties within the top group would no longer be uniform; w − max keeps the
 * top group's keys at full precision. Exact key ties (probability ~0) fall back to id order.
 *
 * Only the top k are selected (insertion into a k-slot list; a full sort only for k > 64), keys and
 * indices live in typed arrays, and the Gumbel draws come in one batch (`Rng.fillGumbel`). The
 * rankings for a given generator state are exactly those of the previous full-sort implementation
 * (kept as test/bench/baselines/samplerV0.ts; test/core/sampling/samplerStream.test.ts compares
 * them on many seeds), so no stream version is needed in manifests.
 */
export function sampleTopKByLogits(options: LogitSamplingOptions): string[][] {
  const { ids, samples, rng } = options;
  const sampler = topKSampler(options);
  const top = new Int32Array(sampler.depth);
  const out: string[][] = new Array<string[]>(samples);
  for (let s = 0; s < samples; s++) {
    sampler.draw(rng, top);
    const ranking = new Array<string>(top.length);
    for (let j = 0; j < top.length; j++) ranking[j] = ids[top[j] as number] as string;
    out[s] = ranking;
  }
  return out;
}

export interface TopKSampler {
  /** Length of every ranking: min(n, k). */
  readonly depth: number;
  /** Draws one ranking from `rng`: writes item indices (positions in `ids`), best first, into `top[0..depth)`. */
  draw(rng: Rng, top: Int32Array): void;
}

/** Above this depth a full sort beats insertion into the k-slot list. */
const INSERTION_MAX_DEPTH = 64;

/**
 * The sampler of `sampleTopKByLogits` one ranking at a time, as item indices (no strings): for
 * callers that stream rankings (the `sample` command) instead of holding N of them.
 */
export function topKSampler(options: Omit<LogitSamplingOptions, 'rng'>): TopKSampler {
  const { ids, logits, k, samples } = options;
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
  const shifted = new Float64Array(n);
  for (let i = 0; i < n; i++) shifted[i] = (logits[i] as number) - max;
  // idRank[i]: position of ids[i] in code-unit order, so key ties compare integers, not strings.
  const byId = Array.from({ length: n }, (_, i) => i).sort((a, b) => compareIds(ids[a] as string, ids[b] as string));
  const idRank = new Int32Array(n);
  byId.forEach((item, r) => (idRank[item] = r));
  const keys = new Float64Array(n);
  const order = depth > INSERTION_MAX_DEPTH ? new Int32Array(n) : undefined;
  const byKey = (a: number, b: number): number => (keys[b] as number) - (keys[a] as number) || (idRank[a] as number) - (idRank[b] as number);

  return {
    depth,
    draw(rng: Rng, top: Int32Array): void {
      if (top.length < depth) throw new RangeError(`draw: the output holds ${top.length} slots, the depth is ${depth}`);
      rng.fillGumbel(keys, n);
      for (let i = 0; i < n; i++) keys[i] = (shifted[i] as number) + (keys[i] as number);
      if (order) {
        for (let i = 0; i < n; i++) order[i] = i;
        order.sort(byKey);
        top.set(order.subarray(0, depth));
        return;
      }
      // top[0..count) holds the best items so far, best first; an item enters if it beats the last.
      let count = 0;
      for (let i = 0; i < n; i++) {
        const key = keys[i] as number;
        const rank = idRank[i] as number;
        let j: number;
        if (count === depth) {
          if (depth === 0) break;
          const last = top[depth - 1] as number;
          const lastKey = keys[last] as number;
          if (key < lastKey || (key === lastKey && rank > (idRank[last] as number))) continue;
          j = depth - 1;
        } else {
          j = count++;
        }
        while (j > 0) {
          const prev = top[j - 1] as number;
          const prevKey = keys[prev] as number;
          if (prevKey > key || (prevKey === key && (idRank[prev] as number) < rank)) break;
          top[j] = prev;
          j--;
        }
        top[j] = i;
      }
    },
  };
}
