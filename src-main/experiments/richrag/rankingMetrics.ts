/**
 * Ranking metrics of one condition's top k for one query (RichRAG App. C, Table 3), pure:
 *
 *   MAP, nDCG@c  core/ir (trec_eval semantics) over the top k, with relevance either
 *                'sub-answers' (default): rel(d) = #{i : φ(d, a_i) ≥ τ}, the number of golden sub-answers
 *                  the document covers by the spec's φ (default: max pltrdy R1/R2/RL recall) at threshold
 *                  τ = analysis.relevanceThreshold (0.5, after the paper's "matching score > 0.5" labels for
 *                  WikiAsp, App. B). Graded: nDCG's linear gain counts covered sub-answers, MAP counts
 *                  rel ≥ 1. The judged set (ideal DCG, R of AP) is every document the run saw for the query:
 *                  every setting's per-aspect lists and pool and the plain query's list;
 *                'qrels': the collection's relevance judgments (a document without one is not relevant).
 *   NCOM         COM(L)/COM* at k (core/richrag/silverList, the spec's weights) against the silver list of
 *                one pool for every row (analysis.ncomPool 'common', the default): every document the
 *                run saw for the query (each setting's multi-faceted pool and the plain query's top N),
 *                so every row of Table 3 has the same COM* and the rows are comparable (issue 23: the
 *                retriever row normalised by its own plain list read 0.99968 while the same ranking
 *                against the multi-faceted pool read 0.361). 'own' keeps the former normalisation: the
 *                pool the condition ranked (its setting's pool, or for 'retriever' the plain list).
 */
import type { RichRagSpec } from '../../api/contract/richrag';
import { averagePrecision, ndcg, type QueryInput } from '../../core/ir/queryMeasures';
import { ncom } from '../../core/richrag/silverList';
import type { DocumentsPayload, QueryPayload } from './items';
import { phiMatrix, poolOf } from './rankers';

/** The document ids NCOM normalises against (see the file comment). */
export function ncomPoolIds(spec: Pick<RichRagSpec, 'analysis'>, docs: DocumentsPayload, framework: string, setting: RichRagSpec['settings'][number] | null): string[] {
  if ((spec.analysis.ncomPool ?? 'common') === 'common') return Object.keys(docs.docs);
  return framework === 'retriever' ? docs.plain.ids : poolOf(docs, setting!).pool.map((e) => e.id);
}

/** The departure from RichRAG's NCOM, for Table 3's caption and the manifest (null with ncomPool 'own'). */
export function ncomDeparture(spec: Pick<RichRagSpec, 'analysis'>): string | null {
  if ((spec.analysis.ncomPool ?? 'common') === 'own')
    return "NCOM: each row normalised by the silver list of its own pool (the retriever row by the plain query's list), so rows are not comparable.";
  return (
    'NCOM: every row is normalised by the silver list of one common pool per query (every document the run saw: each setting\'s multi-faceted pool and the plain query\'s list), so rows are comparable; ' +
    "departure from RichRAG's code, where each ranker is scored against the pool it ranked (analysis.ncomPool = own keeps that)."
  );
}

export function ndcgCutoffs(k: number): number[] {
  return [...new Set([1, 3, 5, k])].filter((c) => c <= k).sort((a, b) => a - b);
}

export function rankingMeasureNames(k: number): string[] {
  return ['MAP', ...ndcgCutoffs(k).map((c) => `nDCG@${c}`), 'NCOM'];
}

export function relevanceDefinition(spec: Pick<RichRagSpec, 'analysis' | 'coverage'>): string {
  if (spec.analysis.relevance === 'qrels') return "the collection's relevance judgments (documents without one are not relevant); linear nDCG gain, MAP counts label ≥ 1";
  return (
    `rel(d) = number of golden sub-answers a_i with φ(d, a_i) ≥ ${spec.analysis.relevanceThreshold} ` +
    `(φ = ${spec.coverage.phi === 'code' ? 'max of pltrdy ROUGE-1/2/L recall' : 'mean of pltrdy ROUGE-2/L recall'}); ` +
    'linear nDCG gain, MAP counts rel ≥ 1; ideal ranking over every document the run saw for the query'
  );
}

/** Relevance label of every judged document of a query. */
export function relevanceLabels(spec: Pick<RichRagSpec, 'analysis'>, query: QueryPayload, docs: DocumentsPayload): Map<string, number> {
  if (spec.analysis.relevance === 'qrels') return new Map(Object.entries(query.qrels));
  const t = spec.analysis.relevanceThreshold;
  return new Map(Object.entries(docs.docs).map(([id, d]) => [id, d.phi.filter((x) => x >= t).length]));
}

export function rankingValues(
  spec: Pick<RichRagSpec, 'k' | 'analysis' | 'coverage'>,
  labels: ReadonlyMap<string, number>,
  docs: DocumentsPayload,
  framework: string,
  setting: RichRagSpec['settings'][number] | null,
  ranking: readonly string[],
): Record<string, number | null> {
  const k = spec.k;
  const input: QueryInput = { ranked: ranking.slice(0, k).map((id) => labels.get(id)), judged: [...labels.values()] };
  const out: Record<string, number | null> = { MAP: averagePrecision(input, k, 1) };
  for (const c of ndcgCutoffs(k)) out[`nDCG@${c}`] = ndcg(input, c, false);
  const poolIds = ncomPoolIds(spec, docs, framework, setting);
  const position = new Map(poolIds.map((id, i) => [id, i]));
  const indices = ranking.map((id) => position.get(id)).filter((i): i is number => i !== undefined);
  const matrix = phiMatrix(docs, poolIds);
  out.NCOM = poolIds.length === 0 || matrix.length === 0 ? null : ncom(matrix, indices, k, spec.coverage.weights).ncom;
  return out;
}
