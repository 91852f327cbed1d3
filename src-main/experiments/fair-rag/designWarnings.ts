/**
 * Fair RAG design checks (issue 23 item 5): what in a spec, on its collection, cannot show an effect.
 *
 * - `k-covers-candidates`: a query with no more candidates than k gets every candidate in every sampled
 *   top-k, so all its α arms, the oracle and the deterministic ranking show the same set (EE-D̄ and EU
 *   identical; Fig. 4 flat). k == candidates counts too, not only k > candidates.
 * - `too-few-queries`: the tests the spec's tables use cannot reach p < α on this many queries whatever
 *   the data (core/stats/designLimits.ts: e.g. a paired sign-flip test needs 2 / 2^n ≤ α / m).
 * - `samples-too-few`: N samples per arm cannot separate two α arms the spec compares (Fig. 4, Table 2):
 *   from the retrievers' scores the exact Plackett–Luce inclusion probabilities of every candidate give
 *   each arm's expected share of useful candidates (the collection's utility labels: the planted world
 *   of the simulated reader) in its top k; the closest adjacent pair of α arms needs
 *   N ≥ 2·¼·(z₀.₉₇₅ + z₀.₈)² / (queries·gap²) samples (a [0, 1] utility has variance ≤ ¼).
 */
import { DEFAULT_EXCHANGE_PERMUTATIONS } from '../../core/stats/exchangeTest';
import { TABLE2_DEFAULT_SIGNIFICANCE, type FairRagSpec } from '../../api/contract/fairRag';
import type { DesignWarning } from '../../api/contract/plans';
import { plackettLuceLogits } from '../../core/sampling/plackettLuce';
import { MAX_EXACT_ITEMS, topKInclusionProbabilities } from '../../core/sampling/plackettLuceProbabilities';
import { fewestPairsToReject, samplesToSeparate, smallestAttainableP, smallestRejectableP } from '../../core/stats/designLimits';
import type { ExperimentDeps } from '../registry';
import { loadFairRagData, type QueryData } from './data';
import { scoreRetrievers } from './retrievers';
import { TABLE2_INTERVALS } from './table2';

const fmt = (x: number) => (Math.abs(x) >= 0.01 ? x.toFixed(3) : x.toPrecision(2));

/** Expected share of useful candidates in the top k of each α arm, per query (exact PL marginals). */
export function armUsefulShares(scores: readonly number[], useful: readonly boolean[], alphas: readonly number[], k: number, normalization: FairRagSpec['normalization']): number[] | null {
  if (scores.length > MAX_EXACT_ITEMS || scores.length === 0) return null;
  const depth = Math.min(k, scores.length);
  return alphas.map((alpha) => {
    const incl = topKInclusionProbabilities(plackettLuceLogits(scores, alpha, normalization), k);
    return incl.reduce((acc, p, i) => acc + (useful[i] ? p : 0), 0) / depth;
  });
}

export async function fairRagDesignWarnings(spec: FairRagSpec, deps: ExperimentDeps): Promise<DesignWarning[]> {
  const warnings: DesignWarning[] = [];
  let queries: QueryData[];
  try {
    queries = loadFairRagData(spec, deps.collections).queries;
  } catch {
    return warnings; // an unusable spec is refused by validation and by the run, with its own message
  }
  const n = queries.length;
  if (n === 0) return warnings;
  const k = spec.k;

  // 1. k ≥ candidates: those queries' arms are identical.
  const covered = queries.filter((q) => q.candidates.length <= k);
  if (covered.length > 0) {
    const counts = [...new Set(queries.map((q) => q.candidates.length))].sort((a, b) => a - b);
    const all = covered.length === n;
    const smallest = Math.min(...queries.map((q) => q.candidates.length));
    warnings.push({
      code: 'k-covers-candidates',
      field: 'k',
      message: all
        ? `k = ${k} is at least the number of candidates of every query (${counts.join(', ')} candidates): every sampled top-k holds all candidates, so all α arms, the oracle and the deterministic ranking are identical (same EE-D̄ and EU; Fig. 4 is flat and Table 2 compares equal groups).`
        : `k = ${k} is at least the number of candidates of ${covered.length} of ${n} queries: on those queries every arm shows the same documents, which pulls the arms' differences towards 0.`,
      fix: smallest > 1 ? `choose k below the smallest candidate count (k ≤ ${smallest - 1}), or use queries with more candidates` : 'use queries with more candidates than k',
    });
  }

  // 2. Too few queries for Table 2's test and correction to ever reject (spec.significance; paired over queries by default).
  const sig = spec.significance ?? TABLE2_DEFAULT_SIGNIFICANCE;
  const alpha = sig.alpha;
  // Holm/Bonferroni over the row's intervals: each α arm of a query falls in one, so up to min(5, #α) cells hold runs.
  const comparisons = sig.correction === 'none' ? 1 : Math.min(TABLE2_INTERVALS.length, new Set(spec.alphas).size);
  const threshold = smallestRejectableP(alpha, sig.correction, comparisons);
  const testKind = sig.test === 'paired-randomization' || sig.test === 'within-query-exchange' ? 'randomization' : 't';
  const paired = sig.test !== 'kim-diaz-unpaired-t';
  // The within-query exchange test: each query's deterministic answer is one of its (at least N + 1) pooled answers, so the
  // smallest p it can reach is about (1/(N + 1))ⁿ, and never below its Monte Carlo floor 1/(R + 1).
  const exchangeFloor = 1 / (DEFAULT_EXCHANGE_PERMUTATIONS + 1);
  const best =
    sig.test === 'within-query-exchange'
      ? Math.max(exchangeFloor, Math.pow(1 / (spec.samples + 1), n))
      : smallestAttainableP({ test: testKind, paired, nA: n, nB: paired ? undefined : n * spec.alphas.length });
  if (best > threshold) {
    const need =
      sig.test === 'within-query-exchange'
        ? exchangeFloor > threshold
          ? null
          : Math.ceil(Math.log(threshold) / Math.log(1 / (spec.samples + 1)))
        : paired
          ? fewestPairsToReject(testKind, threshold)
          : 2;
    const against = sig.correction === 'none' || comparisons === 1 ? `α = ${alpha}` : `α/${comparisons} = ${fmt(threshold)} (${sig.correction} correction over the ${comparisons} intervals ${spec.alphas.length} α values can fill)`;
    warnings.push({
      code: 'too-few-queries',
      field: 'queries',
      message: `${n} ${n === 1 ? 'query' : 'queries'} cannot give a significant result in Table 2: the smallest p-value the ${sig.test} test can reach on ${n} ${n === 1 ? 'query' : 'queries'} is ${fmt(best)}, above ${against}.`,
      fix: need !== null ? `use at least ${need} queries${testKind === 'randomization' ? ' (or the paired t-test, significance.test = paired-t)' : ''}` : 'use more queries',
    });
  }

  // 3. N too small to separate the α arms (planted world: the utility labels).
  const alphas = [...new Set(spec.alphas)].sort((a, b) => a - b);
  if (alphas.length >= 2 && queries.some((q) => q.candidates.some((c) => c.useful))) {
    let scores: Awaited<ReturnType<typeof scoreRetrievers>>['scores'];
    try {
      scores = (await scoreRetrievers({ retrievers: spec.retrievers.slice(0, 1) }, queries, deps)).scores;
    } catch {
      return warnings; // e.g. a dense retriever whose model is not loaded: the check needs scores
    }
    const r = spec.retrievers[0]!;
    const byQuery = scores.get(r.name);
    const shares: number[][] = [];
    for (const q of queries) {
      const s = byQuery?.get(q.queryId);
      if (!s || q.candidates.length <= k) continue;
      const sh = armUsefulShares(s, q.candidates.map((c) => c.useful), alphas, k, spec.normalization);
      if (sh) shares.push(sh);
    }
    if (shares.length > 0) {
      let worst: { i: number; gap: number; need: number } | null = null;
      for (let i = 0; i + 1 < alphas.length; i++) {
        const gap = Math.abs(shares.reduce((acc, sh) => acc + sh[i + 1]! - sh[i]!, 0) / shares.length);
        const need = samplesToSeparate(gap, shares.length, { alpha });
        if (!worst || need > worst.need) worst = { i, gap, need };
      }
      if (worst && worst.need > spec.samples) {
        const a = alphas[worst.i]!;
        const b = alphas[worst.i + 1]!;
        const needText = Number.isFinite(worst.need) && worst.need <= 10_000 ? `N ≥ ${worst.need}` : 'more than 10,000 samples';
        warnings.push({
          code: 'samples-too-few',
          field: 'samples',
          message: `N = ${spec.samples} samples per arm cannot separate α = ${a} from α = ${b} on ${r.name}: by the utility labels (the planted truth) their expected share of useful documents in the top ${k} differs by ${fmt(worst.gap)} on average over ${shares.length} queries, and telling that apart from sampling noise at 80% power (α = ${alpha}) needs ${needText} (a lower bound: only sampling noise counted).`,
          fix: Number.isFinite(worst.need) && worst.need <= 10_000 ? `raise samples to at least ${worst.need}, or drop α = ${b} (or α = ${a}) from the α list` : `drop α = ${b} or α = ${a}: the two arms are practically the same policy on these queries`,
        });
      }
    }
  }
  return warnings;
}
