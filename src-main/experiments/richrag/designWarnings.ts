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
import { DEFAULT_PERMUTATIONS } from '../../core/stats/randomization';
import { IMPLAUSIBLE_DZ, pairedTBar, smallestAttainableP, smallestRejectableP } from '../../core/stats/designLimits';
import type { ExperimentDeps } from '../registry';
import { analysisBaseline } from './conditions';
import { loadRichRagData, type RichRagQuery } from './data';
import { usesCandidates } from './retrieval';

const fmt = (x: number) => (Math.abs(x) >= 0.01 ? x.toFixed(3) : x.toPrecision(2));

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

  // 2. Too few queries for the test and correction to ever reject.
  if (compared.length > 0 && n > 0) {
    const m = compared.length;
    const threshold = smallestRejectableP(a.alpha, a.correction, m);
    const best = n < 2 ? 1 : a.test === 't' ? 0 : smallestAttainableP({ test: 'randomization', paired: true, nA: n, permutations: DEFAULT_PERMUTATIONS });
    const against = a.correction === 'holm' || a.correction === 'bonferroni' ? `α/${m} = ${fmt(threshold)} (${a.correction} correction over the ${m} conditions compared with '${baseline}')` : `α = ${a.alpha}`;
    if (best > threshold) {
      let need: number | null = null;
      if (a.test !== 't') for (let k = 2; k <= 64 && need === null; k++) if (smallestAttainableP({ test: 'randomization', paired: true, nA: k, permutations: DEFAULT_PERMUTATIONS }) <= threshold) need = k;
      warnings.push({
        code: 'too-few-queries',
        field: 'queries',
        message:
          n < 2
            ? `${n} evaluation ${n === 1 ? 'query' : 'queries'}: a paired comparison needs at least 2 queries, so Tables 1 and 3 make no test.`
            : `${n} evaluation queries cannot give a significant result in Tables 1 and 3: the smallest p-value the paired randomization test can reach on ${n} queries is ${fmt(best)} (2/2^${n}), above ${against}.`,
        fix: n < 2 ? 'use at least 2 evaluation queries (more for any power)' : `use at least ${need ?? 'more'} evaluation queries, or analysis.test = 't'${a.correction !== 'none' && m > 1 ? ', or fewer conditions (frameworks, settings)' : ''}`,
      });
    } else if (a.test === 't') {
      const bar = pairedTBar(n, threshold);
      if (bar && bar.dz > IMPLAUSIBLE_DZ) {
        let need = n;
        while (need < 10_000 && pairedTBar(need, threshold)!.dz > IMPLAUSIBLE_DZ) need++;
        warnings.push({
          code: 'few-queries',
          field: 'queries',
          message: `${n} evaluation queries: a star needs the paired t-test's p ≤ ${against}, i.e. |t| ≥ ${bar.tCritical.toFixed(2)} on ${n - 1} degrees of freedom — a mean difference of at least ${bar.dz.toFixed(2)} standard deviations of the per-query differences. Only an effect almost the same on every query reaches that, so a missing star says little ('simulate power' measures this design's power).`,
          fix: `use at least ${need} evaluation queries (then an effect as large as its spread over queries, d_z = 1, can be significant), or fewer conditions${a.correction === 'holm' || a.correction === 'bonferroni' ? ` (the ${a.correction} correction divides α by ${m})` : ''}`,
        });
      }
    }
  }

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
