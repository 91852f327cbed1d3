/**
 * MoI's listwise score s_i of one prompt (Lee et al., Eq. 3), computed in log space from the
 * per-token log-probabilities of one teacher-forced forward pass over
 * `[instruction][p_π1]…[p_πL][question template + q]` (reference notes moi.md §2.1):
 *
 *   Eq. 3:   s_i = P(q | p_π1; …; p_πL) × P(p_π1; …; p_πL)
 *   here:    s_i = agg(log-probs of the question tokens) + w · agg(log-probs of all passage tokens)
 *
 * - Log space because probabilities of hundreds of tokens underflow, and preference distillation
 *   (Sec. 3.3.2) applies a softmax to the s_i, which is meaningful only for log-scores.
 * - agg = mean (default) or sum per segment. The paper is silent on length normalisation; MoI
 *   reimplements Merth et al.'s Bayes saliency, whose released code averages token log-probs per
 *   segment and adds them with mixing weight 1. With sums, ~1000 passage tokens swamp the question.
 * - The passage segment is every passage token of the prompt pooled (not a mean of per-passage
 *   means); passage tokens do not see q, so the same pass gives both segments.
 * - Pruned prompts: the same on the L-prefix (pass only those passages' tokens).
 * Use the same prompt template for scoring and for generation.
 */
import { DataError } from '../errors';

export type SegmentReduction = 'mean' | 'sum';

export interface ListwiseScoreOptions {
  /** Per-segment aggregation; default `mean`. */
  reduction?: SegmentReduction;
  /** Mixing weight w of the passage term; default 1. */
  passageWeight?: number;
}

export interface ListwiseScoreInput {
  /** log P(q_t | prompt, q_<t) for every question token. */
  questionLogprobs: readonly number[];
  /** Per passage in prompt order, log P of each of its tokens given everything before it. */
  passageLogprobs: readonly (readonly number[])[];
}

export interface ListwiseScore {
  /** s_i = question + w · passages. */
  score: number;
  /** Aggregated log P(q | ordered passages). */
  question: number;
  /** Aggregated log P(ordered passages). */
  passages: number;
  questionTokens: number;
  passageTokens: number;
}

export const LISTWISE_SCORE_DEFAULTS = { reduction: 'mean' as SegmentReduction, passageWeight: 1 } as const;

/** Log-probabilities may exceed 0 only by rounding. */
const LOGPROB_SLACK = 1e-6;

export function listwiseScore(input: ListwiseScoreInput, options: ListwiseScoreOptions = {}): ListwiseScore {
  const reduction = options.reduction ?? LISTWISE_SCORE_DEFAULTS.reduction;
  const w = options.passageWeight ?? LISTWISE_SCORE_DEFAULTS.passageWeight;
  if (reduction !== 'mean' && reduction !== 'sum') throw new DataError(`expected 'mean' or 'sum', got '${String(reduction)}'`, { field: 'reduction' });
  if (!Number.isFinite(w)) throw new DataError(`expected a finite number, got ${w}`, { field: 'passageWeight' });

  if (input.questionLogprobs.length === 0) throw new DataError('no question tokens', { field: 'questionLogprobs' });
  input.questionLogprobs.forEach((v, t) => checkLogprob(v, `questionLogprobs[${t}]`));
  let passageSum = 0;
  let passageTokens = 0;
  input.passageLogprobs.forEach((tokens, k) => {
    tokens.forEach((v, t) => {
      checkLogprob(v, `passageLogprobs[${k}][${t}]`);
      passageSum += v;
    });
    passageTokens += tokens.length;
  });
  if (passageTokens === 0) throw new DataError('no passage tokens', { field: 'passageLogprobs' });

  const questionSum = input.questionLogprobs.reduce((acc, v) => acc + v, 0);
  const question = reduction === 'mean' ? questionSum / input.questionLogprobs.length : questionSum;
  const passages = reduction === 'mean' ? passageSum / passageTokens : passageSum;
  return { score: question + w * passages, question, passages, questionTokens: input.questionLogprobs.length, passageTokens };
}

function checkLogprob(v: number, field: string): void {
  if (!Number.isFinite(v) || v > LOGPROB_SLACK) throw new DataError(`expected a log-probability (finite, ≤ 0), got ${v}`, { field });
}
