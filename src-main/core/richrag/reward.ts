/**
 * The reward of a ranking list (RichRAG Eq. 11): ∇(L) = φ(r, a) + φ^c(r, A), where r = G(q, L) is the
 * generator's response to the query with L's documents, a the golden answer and A = {a_i} the
 * sub-answers, φ^c(r, A) = Σ_i δ_i φ(r, a_i) (comRouge.ts). Generating r is not pure, so the reward is
 * a function of the response; the caller pairs it with the list that produced it.
 *
 * The released code has no reward (richrag.md §1.5); which ROUGE is unspecified. Defaults, flagged as
 * an assumption: φ = mean of pltrdy ROUGE-2 and ROUGE-L (the φ of App. C and the two CR metrics of
 * Sec. 4.1), with F for the answer term (as the R2/RL evaluation) and recall for the coverage term (as
 * CR2/CRL). Both are configurable.
 */
import { comPhi } from './comRouge';
import { phi, type PhiSpec } from './coverage';

export interface RewardOptions {
  answerPhi?: PhiSpec;
  coveragePhi?: PhiSpec;
}

export const DEFAULT_ANSWER_PHI: PhiSpec = { rouge: ['rouge-2', 'rouge-l'], combine: 'mean', component: 'f' };
export const DEFAULT_COVERAGE_PHI: PhiSpec = { rouge: ['rouge-2', 'rouge-l'], combine: 'mean', component: 'recall' };

export interface Reward {
  /** φ(r, a). */
  answer: number;
  /** φ^c(r, A). */
  coverage: number;
  /** ∇(L) = answer + coverage. */
  reward: number;
}

export function listReward(response: string, answer: string, subAnswers: readonly string[], options: RewardOptions = {}): Reward {
  const answerTerm = phi(response, answer, options.answerPhi ?? DEFAULT_ANSWER_PHI);
  const coverageTerm = comPhi(response, subAnswers, options.coveragePhi ?? DEFAULT_COVERAGE_PHI);
  return { answer: answerTerm, coverage: coverageTerm, reward: answerTerm + coverageTerm };
}
