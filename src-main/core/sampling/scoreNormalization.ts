/**
 * Min-max normalisation of retrieval scores before Plackett–Luce sampling (Fair RAG, Sec. 3.2,
 * footnote 3). The scores are normalised to [1, 2], not to [0, 1] as the text of Eq. 1 says: on
 * [0, 1] the logits s̄^α stay in [0, 1] for every α, so the weight ratio never exceeds e and α
 * could not approach the deterministic ranking; on [1, 2] the logit range 2^α − 1 grows with α.
 */
import { DataError } from '../errors';

/**
 * `paper`: s̄ = 1 + (s − min) / (max − min) ∈ [1, 2] (footnote 3).
 * `code`: Fair-RAG's released sampler. When min < 0 it first shifts s ← s − min and then
 * min-max normalises with the *original* min and max, so s̄ = 1 + (s − 2·min)/(max − min)
 * ∈ [1 + |min|/(max − min), 2 + |min|/(max − min)] (reference/fair-rag.md §1, quirk 1).
 * Identical to `paper` when no score is negative.
 */
export type ScoreNormalization = 'paper' | 'code';

/**
 * Normalise `scores` for sampling. All-equal scores (including n = 1) map to 1 for every item, so
 * every α gives equal logits and the sampler is uniform: that is the paper's intent. The released
 * code divides by max − min = 0 there, gets NaN scores and returns the *same* ranking in every
 * sample (EE-D = 1; quirk 2); neither mode reproduces that, because it is an accident of NaN
 * comparisons in numpy's sort rather than a policy.
 */
export function normalizeScores(scores: readonly number[], mode: ScoreNormalization = 'paper'): number[] {
  if (scores.length === 0) return [];
  let min = Infinity;
  let max = -Infinity;
  scores.forEach((s, i) => {
    if (!Number.isFinite(s)) throw new DataError(`score of item ${i + 1} is not a finite number (${s})`, { field: 'score' });
    if (s < min) min = s;
    if (s > max) max = s;
  });
  const range = max - min;
  if (!Number.isFinite(range)) throw new DataError(`score range ${min}..${max} overflows`, { field: 'score' });
  if (range === 0) return scores.map(() => 1);
  // Code mode: the extra shift by −min happens only when some score is negative.
  const shift = mode === 'code' && min < 0 ? min : 0;
  return scores.map((s) => 1 + (s - shift - min) / range);
}
