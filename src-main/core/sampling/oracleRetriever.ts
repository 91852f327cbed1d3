/**
 * The oracle ("gold") stochastic retriever of Fair RAG (Sec. 3.3.5, App. C.3): useful items always
 * above non-useful ones, uniformly shuffled within each group, i.e. one of the m!(n − m)! optimal
 * rankings at random. It exists to estimate u_max for EU normalisation (Eq. 29).
 *
 * The released code gets it from PL with logits 10^8 (useful) and 0 (non-useful) at α = 8; the
 * factors are then exactly 0/1 between the groups and uniform within them, which is what two
 * Fisher–Yates shuffles give directly (and exactly). `oracleLogits` exposes the code's logits for
 * callers that want the PL form.
 */
import type { Rng } from '../random/rng';
import { checkCutoff, checkSampleCount, checkUniqueIds } from './itemChecks';

export interface UtilityLabelledItem {
  id: string;
  useful: boolean;
}

/** The code's oracle logits: 1e8 for useful items, 0 otherwise. */
export const ORACLE_LOGIT = 1e8;

export function oracleLogits(items: readonly UtilityLabelledItem[]): number[] {
  return items.map((it) => (it.useful ? ORACLE_LOGIT : 0));
}

export interface OracleOptions {
  items: readonly UtilityLabelledItem[];
  k: number;
  samples: number;
  rng: Rng;
}

/** N top-k rankings from the oracle: shuffle(useful) ++ shuffle(non-useful), cut at k. */
export function sampleOracle(options: OracleOptions): string[][] {
  const { items, k, samples, rng } = options;
  checkUniqueIds(items.map((it) => it.id));
  checkCutoff(k);
  checkSampleCount(samples);
  const useful = items.filter((it) => it.useful).map((it) => it.id);
  const rest = items.filter((it) => !it.useful).map((it) => it.id);
  const depth = Math.min(items.length, k);
  const out: string[][] = [];
  for (let s = 0; s < samples; s++) {
    const head = rng.shuffled(useful);
    // Shuffle the non-useful group only when some of it reaches the top k (keeps the stream short).
    const ranking = head.length >= depth ? head.slice(0, depth) : head.concat(rng.shuffled(rest).slice(0, depth - head.length));
    out.push(ranking);
  }
  return out;
}
