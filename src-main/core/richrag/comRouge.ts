/**
 * com-rouge (RichRAG Eq. 11's φ^c; Table 1's CR2/CRL): how well a response covers the sub-answers,
 * each weighted by its normalised length. Reference note richrag.md §1.5 and §1.7
 * (`Div_metric_ans_weight` in the released metric code):
 *   δ_i  = len(normalize_answer(a_i).split()) / Σ_j len(normalize_answer(a_j).split())  (SQuAD-normalised
 *          word counts, sum-normalised). If no sub-answer has a word left, every δ_i is 0 (the code would
 *          divide by zero) and so is com-rouge.
 *   CRx  = Σ_i δ_i · pltrdy ROUGE-x RECALL(response as hypothesis, a_i as reference); x ∈ {1, 2, L}
 *          (CR1 comes out of the same pltrdy call in the code; the paper reports CR2 and CRL).
 */
import type { PltrdyRougeType } from '../text/pltrdyRouge';
import { pySplit } from '../text/pythonWhitespace';
import { squadNormalize } from '../text/squadAnswer';
import { phi, type PhiPreset, type PhiSpec } from './coverage';

/** δ_i: SQuAD-normalised word count of each sub-answer over their total. */
export function subAnswerWeights(subAnswers: readonly string[]): number[] {
  const lengths = subAnswers.map((a) => pySplit(squadNormalize(a)).length);
  const total = lengths.reduce((a, b) => a + b, 0);
  return lengths.map((l) => (total > 0 ? l / total : 0));
}

/** φ^c(r, A) = Σ_i δ_i φ(r, a_i) for any φ (Eq. 11). */
export function comPhi(response: string, subAnswers: readonly string[], spec: PhiPreset | PhiSpec): number {
  const delta = subAnswerWeights(subAnswers);
  return subAnswers.reduce((acc, a, i) => acc + delta[i]! * phi(response, a, spec), 0);
}

/** One com-rouge: Σ_i δ_i · pltrdy `type` recall. */
export function comRouge(type: PltrdyRougeType, response: string, subAnswers: readonly string[]): number {
  return comPhi(response, subAnswers, { rouge: [type], combine: 'max', component: 'recall' });
}

export interface ComRougeScores {
  cr1: number;
  cr2: number;
  crl: number;
}

/** CR1, CR2 and CRL of one response. */
export function comRougeScores(response: string, subAnswers: readonly string[]): ComRougeScores {
  return {
    cr1: comRouge('rouge-1', response, subAnswers),
    cr2: comRouge('rouge-2', response, subAnswers),
    crl: comRouge('rouge-l', response, subAnswers),
  };
}
