/**
 * RichRAG design checks (issue 23 item 5): what in a spec, on its collection, cannot answer the
 * comparison its tables make (Table 1 and Table 3: every condition against the baseline, paired over
 * queries, with the spec's test and correction).
 *
 * - `nothing-to-compare`: one condition only, or a baseline that is the only condition: the tables
 *   have no comparison, so nothing is tested.
 * - `too-few-queries`: the test and correction can never reach p ≤ α on this many evaluation queries,
 *   whatever the answers (core/stats/designLimits.ts). A paired comparison needs 2 queries; the
 *   paired randomization test (exact sign-flips, or its 10,000 random ones) cannot go below
 *   max(2 / 2ⁿ, 1 / 10,001); Holm and Bonferroni compare the smallest p with α / m, m the conditions
 *   tested against the baseline. The paired t-test can in principle (p → 0 as the differences agree),
 *   so it is flagged only below 2 queries; `few-queries` says when a t-test on n queries needs a
 *   standardised effect d_z = mean / sd of the per-query differences ≥ t_{1 − θ/2, n − 1} / √n above 1
 *   (θ: the corrected threshold), i.e. an effect larger than its own spread over queries: a missing star
 *   then says little (the demo: 4 queries, Holm over 9 conditions, |t| ≥ 7.18, d_z ≥ 3.59).
 * - `k-covers-pool`: every ranked condition (no-ranker, RAG-Fusion, coverage, list-wise) picks its k
 *   documents from the query's multi-faceted pool; when k is at least the most documents that pool can
 *   hold — min(capacity M, topN × sub-aspects, the documents it is retrieved from: the query's
 *   candidates or the collection) — every ranked condition gives the generator the same documents
 *   (only their order differs), so the rankers cannot be told apart by what they choose.
 */
import { richRagConditions, type RichRagSpec } from '../../api/contract/richrag';
import type { DesignWarning } from '../../api/contract/plans';
import type { ExperimentDeps } from '../registry';
import { pairedSignificanceWarnings } from '../significanceWarnings';
import { analysisBaseline } from './conditions';
import { loadRichRagData, type RichRagQuery } from './data';
import { usesCandidates } from './retrieval';

/** The largest pool a query can have: min(capacity, topN × aspects, documents retrieved from). */
export function poolBound(spec: Pick<RichRagSpec, 'retrieval' | 'explorer'>, q: Pick<RichRagQuery, 'candidates' | 'golden'>, setting: 'predicted' | 'golden', collectionSize: number): number {
  const source = usesCandidates(spec.retrieval.scope, q.candidates) ? (q.candidates?.length ?? 0) : collectionSize;
  const aspects = setting === 'golden' ? Math.max(1, q.golden.length) : spec.explorer.maxAspects;
  return Math.min(spec.retrieval.capacity, spec.retrieval.topN * aspects, source);
}

export function richRagDesignWarnings(spec: RichRagSpec, deps: Pick<ExperimentDeps, 'collections'>): Promise<DesignWarning[]> {
  return Promise.resolve(richRagDesignWarningsSync(spec, deps));
}

export function richRagDesignWarningsSync(spec: RichRagSpec, deps: Pick<ExperimentDeps, 'collections'>): DesignWarning[] {
  const warnings: DesignWarning[] = [];
  const conditions = richRagConditions(spec);
  const baseline = analysisBaseline(spec);
  const compared = conditions.filter((c) => c.condition !== baseline);

  // 1. Nothing to compare.
  if (compared.length === 0) {
    warnings.push({
      code: 'nothing-to-compare',
      field: 'frameworks',
      message: `the spec has ${conditions.length === 1 ? `one condition (${conditions[0]!.condition})` : 'no condition besides the baseline'}: Tables 1 and 3 compare every condition with the baseline '${baseline}', so no test is made and nothing can be significant.`,
      fix: "add frameworks or settings (e.g. frameworks ['rag-fusion', 'listwise'])",
    });
  }

  let queries: RichRagQuery[];
  let collectionSize = 0;
  try {
    const data = loadRichRagData(spec, deps.collections);
    queries = data.queries.filter((q) => q.roles.evaluate);
    collectionSize = deps.collections.byName(spec.collection)?.counts.documents ?? 0;
  } catch {
    return warnings; // an unusable spec is refused by validation and by the run, with its own message
  }
  const n = queries.length;
  const a = spec.analysis;

  // 2. Too few queries for the test and correction to ever reject (or to reject anything but a uniform effect).
  warnings.push(...pairedSignificanceWarnings({ queries: n, test: a.test, correction: a.correction, alpha: a.alpha, comparisons: compared.length, baseline, tables: 'Tables 1 and 3', unit: 'conditions' }));

  // 3. k at least the pool: every ranked condition shows the same documents.
  const ranked = conditions.filter((c) => c.setting !== null);
  if (ranked.length > 0 && n > 0) {
    const settings = [...new Set(ranked.map((c) => c.setting!))];
    const bounds = queries.map((q) => Math.min(...settings.map((s) => poolBound(spec, q, s, collectionSize))));
    const covered = bounds.filter((b) => spec.k >= b).length;
    if (covered > 0) {
      const all = covered === n;
      const smallest = Math.min(...bounds);
      warnings.push({
        code: 'k-covers-pool',
        field: 'k',
        message: all
          ? `k = ${spec.k} is at least the most documents any query's pool can hold (${[...new Set(bounds)].sort((x, y) => x - y).join(', ')}: min of capacity ${spec.retrieval.capacity}, topN ${spec.retrieval.topN} × sub-aspects, and the documents retrieved from): every ranked condition (${ranked.map((c) => c.condition).join(', ')}) gives the generator the same documents, only in another order, so Tables 1 and 3 cannot tell the rankers apart by what they choose.`
          : `k = ${spec.k} is at least the pool size of ${covered} of ${n} queries: on those queries every ranked condition shows the same documents, which pulls the conditions' differences towards 0.`,
        fix: smallest > 1 ? `choose k below the smallest pool (k ≤ ${smallest - 1}), or raise retrieval.capacity / retrieval.topN` : 'raise retrieval.capacity and retrieval.topN',
      });
    }
  }

  return warnings;
}
