/**
 * The trec_eval invocation that computes the same number as an ir_measures measure, for manifests
 * and documentation ("nDCG@10 = trec_eval -m ndcg_cut.10"). Mirrors ir_measures' pytrec_eval
 * provider: `rel` becomes trec_eval's `-l`, a cutoff on RR becomes `-M` (trec_eval's recip_rank
 * has no cutoff; truncating the ranking to depth k gives the same value).
 */
import { relevanceLevel, type MeasureSpec } from './measureSpec';

export interface TrecEvalEquivalent {
  /** The `-m` argument, e.g. `ndcg_cut.10`. */
  measure: string;
  /** trec_eval's `-l` (relevance level); 1 is its default. */
  relevanceLevel: number;
  /** trec_eval's `-M` (documents per topic), when the cutoff has to be expressed as a depth. */
  maxDepth?: number;
}

/** undefined where trec_eval has no such measure (Judged, nDCG with exponential gain). */
export function trecEvalEquivalent(spec: MeasureSpec): TrecEvalEquivalent | undefined {
  const level = relevanceLevel(spec);
  const k = spec.cutoff;
  switch (spec.name) {
    case 'nDCG':
      if (spec.dcg !== 'log2') return undefined;
      // trec_eval's ndcg/ndcg_cut use the qrels labels as gains and ignore -l.
      return { measure: k === undefined ? 'ndcg' : `ndcg_cut.${k}`, relevanceLevel: 1 };
    case 'AP':
      return { measure: k === undefined ? 'map' : `map_cut.${k}`, relevanceLevel: level };
    case 'RR':
      return k === undefined ? { measure: 'recip_rank', relevanceLevel: level } : { measure: 'recip_rank', relevanceLevel: level, maxDepth: k };
    case 'P':
      return { measure: `P.${k}`, relevanceLevel: level };
    case 'R':
      return { measure: `recall.${k}`, relevanceLevel: level };
    case 'NumRet':
      // ir_measures: NumRet(rel=N) is trec_eval's num_rel_ret under -l N.
      return spec.rel === undefined ? { measure: 'num_ret', relevanceLevel: 1 } : { measure: 'num_rel_ret', relevanceLevel: level };
    case 'NumRel':
      return { measure: 'num_rel', relevanceLevel: level };
    case 'NumQ':
      return { measure: 'num_q', relevanceLevel: 1 };
    case 'Judged':
      return undefined;
  }
}

/** The command-line options, e.g. `-l 2 -M 10 -m recip_rank`. */
export function formatTrecEvalArgs(eq: TrecEvalEquivalent): string {
  const parts: string[] = [];
  if (eq.relevanceLevel !== 1) parts.push(`-l ${eq.relevanceLevel}`);
  if (eq.maxDepth !== undefined) parts.push(`-M ${eq.maxDepth}`);
  parts.push(`-m ${eq.measure}`);
  return parts.join(' ');
}

