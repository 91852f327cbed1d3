/**
 * Attribution metrics of Fair RAG (Sec. 3.3.3–3.3.4). NLI(d, ŷ_π) = 1 iff retrieved item d entails
 * the output generated from ranking π; only the top k items of π are checked.
 *   AR(π)  = (1/k) Σ_{d ∈ π_{1:k}} NLI(d, ŷ_π)                 (Eq. 8)
 *   EAR    = (1/N) Σ_π AR(π)                                   (Eq. 9)
 *   ε^a_d  = (1/N) Σ_π 1[d ∈ π_{1:k}] NLI(d, ŷ_π)              (Eq. 10)
 *   EAE-D  = ‖ε^a‖²  (Eq. 11),   EAE-D̄ = EAE-D / k  ("same normalisation as EE-D", App. C.1)
 * AR divides by k even when a ranking holds fewer than k items (n < k), as Eq. 8 is written.
 * Since ε^a ≤ ε elementwise, EAE-D ≤ EE-D ≤ k, so EAE-D̄ ∈ [0, 1]. (Footnote 7's "same l1 norm"
 * does not hold: ‖ε^a‖₁ = k·EAR ≤ k.)
 */
import { DataError } from '../errors';
import { checkCutoff } from '../sampling/itemChecks';
import { indexIds } from './systemExposure';
import { squaredNorm } from './vectors';

export interface AttributedSample {
  /** The sampled ranking (ids); positions after k are ignored. */
  ranking: readonly string[];
  /** NLI(d, ŷ_π) for the item at the same position of `ranking` (at least min(|ranking|, k) entries). */
  entails: readonly boolean[];
}

/** AR(π) (Eq. 8). */
export function attributionRate(sample: AttributedSample, k: number): number {
  checkCutoff(k);
  const depth = Math.min(sample.ranking.length, k);
  if (sample.entails.length < depth) throw new DataError(`attribution labels cover ${sample.entails.length} of the ${depth} retrieved items`);
  let entailed = 0;
  for (let i = 0; i < depth; i++) if (sample.entails[i]) entailed++;
  return entailed / k;
}

export interface ExpectedAttribution {
  /** AR per sample, in input order. */
  rates: number[];
  ear: number;
  /** ε^a aligned with `ids`. */
  attributedExposure: number[];
  eaeD: number;
  eaeDNorm: number;
}

export function expectedAttribution(ids: readonly string[], samples: readonly AttributedSample[], k: number): ExpectedAttribution {
  checkCutoff(k);
  if (samples.length === 0) throw new DataError('no rankings to estimate attribution from (N = 0)');
  const index = indexIds(ids);
  const counts = new Array<number>(ids.length).fill(0);
  const rates = samples.map((sample, s) => {
    const depth = Math.min(sample.ranking.length, k);
    for (let pos = 0; pos < depth; pos++) {
      const id = sample.ranking[pos] as string;
      const i = index.get(id);
      if (i === undefined) throw new DataError(`ranking ${s + 1} contains '${id}', which is not a candidate of the query`);
      if (sample.ranking.indexOf(id) !== pos) throw new DataError(`ranking ${s + 1} lists '${id}' twice`);
      if (sample.entails[pos]) counts[i] = (counts[i] as number) + 1;
    }
    return attributionRate(sample, k);
  });
  const N = samples.length;
  const attributedExposure = counts.map((c) => c / N);
  const eaeD = squaredNorm(attributedExposure);
  return {
    rates,
    ear: rates.reduce((a, b) => a + b, 0) / N,
    attributedExposure,
    eaeD,
    eaeDNorm: eaeD / k,
  };
}
