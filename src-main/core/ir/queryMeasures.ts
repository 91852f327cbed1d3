/**
 * Per-query values of the IR measures, with trec_eval's semantics (usnistgov/trec_eval, the
 * `m_*.c` file named at each function). Inputs are the relevance labels of the retrieved
 * documents in ranking order (already in trec_eval order and truncated to the evaluation depth)
 * and the labels of every judged document of the query.
 *
 * Labels follow trec_eval: `undefined` = not in the qrels (trec_eval's RELVALUE_NONPOOL), a
 * negative label = in the qrels but unjudged (RELVALUE_UNJUDGED); neither is ever relevant.
 */
import { relevanceLevel, type MeasureSpec } from './measureSpec';

export type Label = number | undefined;

export interface QueryInput {
  /** Labels of the retrieved documents, rank 1 first. */
  ranked: readonly Label[];
  /** Labels of all qrels rows of the query (any order). */
  judged: readonly number[];
}

export function queryMeasure(spec: MeasureSpec, q: QueryInput): number {
  const t = relevanceLevel(spec);
  const k = spec.cutoff ?? Infinity;
  switch (spec.name) {
    case 'nDCG':
      return ndcg(q, k, spec.dcg === 'exp-log2');
    case 'AP':
      return averagePrecision(q, k, t);
    case 'RR':
      return reciprocalRank(q, k, t);
    case 'P':
      return precision(q, k, t);
    case 'R':
      return recall(q, k, t);
    case 'Judged':
      return judged(q, k);
    case 'NumRet':
      return spec.rel === undefined ? q.ranked.length : countRelevant(q.ranked, q.ranked.length, t);
    case 'NumRel':
      return numRelevant(q, t);
    case 'NumQ':
      return 1;
  }
}

function isRelevant(label: Label, t: number): boolean {
  return label !== undefined && label >= 0 && label >= t;
}

function countRelevant(ranked: readonly Label[], k: number, t: number): number {
  let n = 0;
  const end = Math.min(k, ranked.length);
  for (let i = 0; i < end; i++) if (isRelevant(ranked[i], t)) n++;
  return n;
}

/** trec_eval num_rel: judged documents with label ≥ t (form_res_rels.c counts rel_levels ≥ -l). */
export function numRelevant(q: QueryInput, t: number): number {
  let n = 0;
  for (const label of q.judged) if (label >= 0 && label >= t) n++;
  return n;
}

/**
 * nDCG@k (m_ndcg_cut.c; Järvelin & Kekäläinen 2002):
 *   DCG@k = Σ_{i=1..min(k,n)} g(rel_i) / log2(i + 1),  g(r) = r (linear) or 2^r − 1 (exp), 0 for r ≤ 0
 *   nDCG@k = DCG@k / IDCG@k, IDCG from all judged labels of the query sorted descending,
 *   and 0 when IDCG = 0 (no positively labelled document). The gain ignores `rel`, as in trec_eval.
 */
export function ndcg(q: QueryInput, k: number, exponential: boolean): number {
  const gain = (r: Label): number => (r === undefined || r <= 0 ? 0 : exponential ? 2 ** r - 1 : r);
  let dcg = 0;
  const end = Math.min(k, q.ranked.length);
  for (let i = 0; i < end; i++) {
    const g = gain(q.ranked[i]);
    if (g > 0) dcg += g / Math.log2(i + 2);
  }
  const ideal = q.judged.filter((r) => r > 0).sort((a, b) => b - a);
  let idcg = 0;
  const idealEnd = Math.min(k, ideal.length);
  for (let i = 0; i < idealEnd; i++) idcg += gain(ideal[i]) / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

/**
 * AP@k (m_map.c, m_map_cut.c): Σ over relevant documents at rank i ≤ k of (relevant in top i)/i,
 * divided by the number of relevant documents R of the query (not by min(R, k)); 0 when R = 0.
 */
export function averagePrecision(q: QueryInput, k: number, t: number): number {
  const numRel = numRelevant(q, t);
  if (numRel === 0) return 0;
  let sum = 0;
  let relSoFar = 0;
  const end = Math.min(k, q.ranked.length);
  for (let i = 0; i < end; i++) {
    if (isRelevant(q.ranked[i], t)) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return sum / numRel;
}

/** RR@k (m_recip_rank.c): 1 / rank of the first relevant document within the top k, else 0. */
export function reciprocalRank(q: QueryInput, k: number, t: number): number {
  const end = Math.min(k, q.ranked.length);
  for (let i = 0; i < end; i++) if (isRelevant(q.ranked[i], t)) return 1 / (i + 1);
  return 0;
}

/** P@k (m_P.c): relevant in the top k divided by k, even when fewer than k were retrieved. */
export function precision(q: QueryInput, k: number, t: number): number {
  return countRelevant(q.ranked, k, t) / k;
}

/** R@k (m_recall.c): relevant in the top k divided by R; 0 when R = 0. */
export function recall(q: QueryInput, k: number, t: number): number {
  const numRel = numRelevant(q, t);
  return numRel === 0 ? 0 : countRelevant(q.ranked, k, t) / numRel;
}

/**
 * Judged@k (ir_measures' judged provider, after its PR #48): judged documents in the top k divided
 * by min(k, retrieved); 0 when nothing was retrieved. "Judged" = in the qrels with a label ≥ 0, so
 * trec_eval's negative "in the pool but unjudged" labels do not count (ir_measures counts any
 * qrels row; the two agree unless the qrels contain negative labels).
 */
export function judged(q: QueryInput, k: number): number {
  const end = Math.min(k, q.ranked.length);
  if (end === 0) return 0;
  let n = 0;
  for (let i = 0; i < end; i++) {
    const label = q.ranked[i];
    if (label !== undefined && label >= 0) n++;
  }
  return n / end;
}
