/**
 * The generator-signal rerankers MoI compares against (App. C; notes §2.5), as pure functions of the
 * stored pointwise passes. Each ranks passages by its score descending, ties by retriever order:
 *
 *   bayes-saliency      u_p = agg log P(q | instr, p) + w · agg log P(p | instr)      (Eq. 1; Merth et al.:
 *                       per-segment mean, mixing weight 1 — the spec's `scoring`, the same as Eq. 3)
 *   qg                  u_p = mean log P(q | p) (UPR prompt, or the pointwise pass's question term);
 *                       mean and sum rank alike for a fixed q
 *   longllmlingua       u_p = Σ_l P(q_l | p; q_<l) · log P(q_l | p; q_<l), as printed in MoI App. C
 *                       (non-monotone in P: its minimum is at P = 1/e)
 *   longllmlingua-code  the official LLMLingua code: ascending mean NLL of q + " We can get the answer
 *                       to this question in the given documents." after the document = descending mean log P
 *   bayes-saliency-plus Eq. 2 greedy: step 0 = Bayes saliency, step k adds argmax over the rest of
 *                       agg log P(q | p_1..p_k; p) + w · agg log P(p | p_1..p_k) (Eq. 2's "p_1..p_N" in the
 *                       prior read as the selected passages, notes §2.5)
 */
import type { MoiSpec } from '../../api/contract/moi';
import { rankByUtility } from '../../core/moi/solveMoi';
import type { BspStepPayload, PointwisePayload, UprPayload } from './items';

export type PointwiseMethod = 'bayes-saliency' | 'qg' | 'longllmlingua' | 'longllmlingua-code';

/** Per-passage scores of a pointwise method, or null when a pass is missing. */
export function pointwiseScores(
  method: PointwiseMethod,
  n: number,
  spec: Pick<MoiSpec, 'scoring' | 'qg'>,
  pointwise: ReadonlyMap<number, PointwisePayload> | undefined,
  upr: ReadonlyMap<number, UprPayload> | undefined,
): number[] | null {
  const out: number[] = [];
  for (let p = 0; p < n; p++) {
    if (method === 'qg' && spec.qg.prompt === 'upr') {
      const u = upr?.get(p);
      if (!u) return null;
      out.push(u.mean);
      continue;
    }
    const pw = pointwise?.get(p);
    if (!pw) return null;
    if (method === 'bayes-saliency') out.push(spec.scoring.segment === 'mean' ? pw.questionMean + spec.scoring.passageWeight * pw.passageMean : pw.questionSum + spec.scoring.passageWeight * pw.passageSum);
    else if (method === 'qg') out.push(pw.questionMean);
    else if (method === 'longllmlingua') out.push(pw.pLogP);
    else {
      if (pw.codeMean === null) return null;
      out.push(pw.codeMean);
    }
  }
  return out;
}

/** Passages by score descending, ties by retriever order. */
export const rankByScore = (scores: readonly number[]): number[] => rankByUtility(scores);

/**
 * The next greedy step of Bayes saliency+: given the steps done so far, either the finished order
 * or what to score next (head and remaining candidates). Step 0 is Bayes saliency's argmax.
 */
export function bayesSaliencyPlusState(
  n: number,
  saliency: readonly number[],
  steps: ReadonlyMap<number, BspStepPayload>,
): { done: true; order: number[] } | { done: false; step: number; head: number[]; candidates: number[] } {
  const order = [rankByScore(saliency)[0]!];
  for (;;) {
    const rest = Array.from({ length: n }, (_, i) => i).filter((i) => !order.includes(i));
    if (rest.length <= 1) return { done: true, order: [...order, ...rest] };
    const step = order.length;
    const s = steps.get(step);
    if (!s) return { done: false, step, head: [...order], candidates: rest };
    order.push(s.chosen);
  }
}
