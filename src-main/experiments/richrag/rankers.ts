/**
 * The rankers that need no LLM, each giving the top k of one condition (pure):
 *
 *   closed-book  no documents (the generator answers from its own knowledge)
 *   retriever    the plain query's BM25 top k ("Retrieve-Generation" without sub-aspects)
 *   no-ranker    the pool in merge order, first k (paper "No Ranker" over the multi-faceted pool)
 *   rag-fusion   reciprocal rank fusion of the per-aspect lists (Rackauckas 2024): score(d) =
 *                Σ_i 1/(k_rrf + rank_i(d)), k_rrf = 60 and 0-based ranks by default (Raudaschl's reference
 *                code, richrag.md §1.8), a list without d adding 0, ties in first-seen order; top k
 *   coverage     the greedy coverage silver list of the pool (Eq. 8-9, core/richrag/silverList) — an
 *                oracle: it reads the golden sub-answers
 *
 * The LLM list-wise ranker is listwiseRanker.ts.
 */
import type { RichRagSetting, RichRagSpec } from '../../api/contract/richrag';
import { reciprocalRankFusion } from '../../core/retrieval/rrf';
import { silverList } from '../../core/richrag/silverList';
import type { DocumentsPayload, PoolPayload } from './items';

export function poolOf(docs: DocumentsPayload, setting: RichRagSetting): PoolPayload {
  const pool = docs.pools.find((p) => p.setting === setting);
  if (!pool) throw new Error(`no pool of setting '${setting}' was stored`);
  return pool;
}

/** φ restricted to some documents: rows = sub-answers, columns = `ids` in order. */
export function phiMatrix(docs: DocumentsPayload, ids: readonly string[]): number[][] {
  const columns = ids.map((id) => docs.docs[id]!.phi);
  const n = columns[0]?.length ?? 0;
  return Array.from({ length: n }, (_, i) => columns.map((c) => c[i]!));
}

/**
 * The RAG-Fusion baseline as its reference code computes it: equal fused scores keep first-seen
 * order (reference/richrag.md §1.8). This ranking is the baseline's own (never stored as a
 * retrieval run nor exported as TREC), so its tie rule does not mix with the one rank order.
 */
export function ragFusion(pool: PoolPayload, k: number, rrf: RichRagSpec['ragFusion']): string[] {
  return reciprocalRankFusion(
    pool.lists.map((l) => l.ids),
    { k: rrf.k, rankBase: rrf.rankBase, ties: 'first-seen' },
  )
    .slice(0, k)
    .map((h) => h.id);
}

export function coverageRanking(docs: DocumentsPayload, pool: PoolPayload, k: number, weights: RichRagSpec['coverage']['weights']): string[] {
  const ids = pool.pool.map((e) => e.id);
  if (ids.length === 0) return [];
  const matrix = phiMatrix(docs, ids);
  if (matrix.length === 0) return ids.slice(0, k);
  return silverList(matrix, k, weights).order.map((i) => ids[i]!);
}

/** The ranking of a framework that needs no LLM; null for 'listwise'. */
export function staticRanking(
  spec: Pick<RichRagSpec, 'k' | 'ragFusion' | 'coverage'>,
  docs: DocumentsPayload,
  framework: string,
  setting: RichRagSetting | null,
): string[] | null {
  switch (framework) {
    case 'closed-book':
      return [];
    case 'retriever':
      return docs.plain.ids.slice(0, spec.k);
    case 'no-ranker':
      return poolOf(docs, setting!).pool.slice(0, spec.k).map((e) => e.id);
    case 'rag-fusion':
      return ragFusion(poolOf(docs, setting!), spec.k, spec.ragFusion);
    case 'coverage':
      return coverageRanking(docs, poolOf(docs, setting!), spec.k, spec.coverage.weights);
    default:
      return null;
  }
}
