/**
 * System exposure under the step machine-user model of Fair RAG: MU(i) = 1[i ≤ k] (Eq. 4), so
 * ε_d = Σ_π p(π|q) MU(rank_π(d)) (Eq. 5), estimated from N sampled rankings as the fraction of
 * samples whose top k contains d. Duplicate rankings count as often as they were sampled (divide
 * by N, not by the number of distinct rankings). Σ_d ε_d = min(n, k) when every ranking is full.
 */
import { DataError } from '../errors';
import { checkCutoff } from '../sampling/itemChecks';

/**
 * ε aligned with `ids` (all n candidates of the query; never-retrieved items get 0). Positions
 * after k are ignored, so rankings may be longer than k. Items outside `ids` or repeated within
 * one ranking are data errors.
 */
export function systemExposure(ids: readonly string[], rankings: readonly (readonly string[])[], k: number): number[] {
  checkCutoff(k);
  if (rankings.length === 0) throw new DataError('no rankings to estimate exposure from (N = 0)');
  const index = indexIds(ids);
  const counts = new Array<number>(ids.length).fill(0);
  rankings.forEach((ranking, s) => {
    const seen = new Set<string>();
    ranking.forEach((id, pos) => {
      const i = index.get(id);
      if (i === undefined) throw new DataError(`ranking ${s + 1} contains '${id}', which is not a candidate of the query`);
      if (seen.has(id)) throw new DataError(`ranking ${s + 1} lists '${id}' twice`);
      seen.add(id);
      if (pos < k) counts[i] = (counts[i] as number) + 1; // MU(pos + 1) = 1[pos + 1 ≤ k]
    });
  });
  return counts.map((c) => c / rankings.length);
}

/** id → position in `ids`; duplicate candidate ids are a data error. */
export function indexIds(ids: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  ids.forEach((id, i) => {
    if (index.has(id)) throw new DataError(`candidate '${id}' is listed twice`);
    index.set(id, i);
  });
  return index;
}
