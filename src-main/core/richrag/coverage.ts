/**
 * RichRAG's coverage function φ(d, a_i): how much of sub-answer a_i a text d covers (Wang et al.,
 * RichRAG, Sec. 3.4.1 Eq. 8; App. C Eq. 13). Reference note richrag.md §1.4.
 *
 * φ is a combination of pltrdy `rouge` 1.0.1 scores (RichRAG's ROUGE, rouge.md §3.3) with the text as
 * the hypothesis and the sub-answer as the reference, so RECALL = share of the sub-answer's distinct
 * n-grams (resp. LCS words) the text contains:
 *   'code'  (default)  max(R1, R2, RL) recall — the released `diversity_metric_raw.py`;
 *   'paper'            mean(R2, RL) recall — App. C's "average of Rouge-2, and Rouge-L". The paper does
 *                      not say recall or F; recall is taken because φ measures coverage OF the sub-answer
 *                      (a long document's F would be dominated by its precision), and because the code and
 *                      the com-rouge metrics use recall. Pass a custom spec for F.
 * pltrdy scores an empty text (no '.'-sentence) as 0, as RichRAG's wrapper does with pltrdy's ValueError.
 */
import { pltrdyRouge, type PltrdyRougeType } from '../text/pltrdyRouge';
import type { PrfScore } from '../text/prfScore';

export type PrfComponent = keyof PrfScore; // 'precision' | 'recall' | 'f'

/** A φ made of pltrdy ROUGE scores: their `combine` ('max' or 'mean') of one component. */
export interface PhiSpec {
  rouge: readonly PltrdyRougeType[];
  combine: 'max' | 'mean';
  component: PrfComponent;
}

export const PHI_PRESETS = {
  code: { rouge: ['rouge-1', 'rouge-2', 'rouge-l'], combine: 'max', component: 'recall' },
  paper: { rouge: ['rouge-2', 'rouge-l'], combine: 'mean', component: 'recall' },
} as const satisfies Record<string, PhiSpec>;

export type PhiPreset = keyof typeof PHI_PRESETS;
export const PHI_PRESET_NAMES = Object.keys(PHI_PRESETS) as PhiPreset[];

export function phiSpec(spec: PhiPreset | PhiSpec = 'code'): PhiSpec {
  const s = typeof spec === 'string' ? PHI_PRESETS[spec] : spec;
  if (s.rouge.length === 0) throw new RangeError('a φ spec needs at least one ROUGE type');
  return s;
}

/** φ(text, reference): `text` is the hypothesis (document or response), `reference` the sub-answer. */
export function phi(text: string, reference: string, spec: PhiPreset | PhiSpec = 'code'): number {
  const s = phiSpec(spec);
  const values = s.rouge.map((type) => pltrdyRouge(type, text, reference)[s.component]);
  if (s.combine === 'max') return Math.max(...values);
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The coverage matrix phi[i][d] = φ(doc d, sub-answer i), sub-answers as rows and documents in pool
 * order as columns — the `phi` of richrag.md §1.4 that the silver list and COM read.
 */
export function coverageMatrix(subAnswers: readonly string[], docs: readonly string[], spec: PhiPreset | PhiSpec = 'code'): number[][] {
  const s = phiSpec(spec);
  return subAnswers.map((a) => docs.map((d) => phi(d, a, s)));
}
