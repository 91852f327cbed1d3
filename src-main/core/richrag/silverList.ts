/**
 * RichRAG's greedy coverage silver list (Eq. 8) and the comprehensiveness measures of App. C:
 * COM* (the silver list's total gain), COM(L) (Eq. 13) and NCOM = COM(L) / COM*.
 * Reference note richrag.md §1.4 (`get_ideal_score` and NCOM in `diversity_metric_raw.py`).
 *
 * Silver list: k times, take the not-yet-chosen document with the largest marginal gain Φ^t(d)
 * (coverageGain.ts); ties go to the document that comes FIRST in pool order (numpy argmax). COM* sums
 * the chosen gains, with the code's fallback weights (`reweight=True`). If the pool has fewer than k
 * documents the list holds all of them.
 * COM(L) = Σ_t Φ^t(L[t]) with coverage built from L[:t] and no fallback (`reweight=False`); NCOM uses the
 * first k entries of L (a shorter L just has fewer terms). NCOM is null when COM* = 0 (no document covers
 * any sub-answer at all), where the ratio is undefined. Under either preset a silver list has NCOM 1,
 * but NCOM is not capped at 1: the greedy list is not the best list, and another order of the pool can
 * gain more (see the tests).
 */
import { checkCoverageMatrix, CoverageState, gainRule, type GainPreset, type GainRule } from './coverageGain';

type Matrix = readonly (readonly number[])[];

export interface SilverList {
  /** Document indices (columns of phi) in the chosen order. */
  order: number[];
  /** Φ^t of each chosen document. */
  gains: number[];
  /** COM*: the sum of `gains`. */
  comStar: number;
}

export function silverList(phi: Matrix, k: number, rule: GainPreset | Partial<GainRule> = 'code'): SilverList {
  const docs = checkCoverageMatrix(phi);
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  const state = new CoverageState(phi, gainRule(rule));
  const chosen = new Array<boolean>(docs).fill(false);
  const order: number[] = [];
  const gains: number[] = [];
  let comStar = 0;
  for (let t = 0; t < Math.min(k, docs); t++) {
    const w = state.weights(true);
    let best = -1;
    let bestGain = -Infinity;
    for (let d = 0; d < docs; d++) {
      if (chosen[d]) continue;
      const g = state.gain(w, d);
      if (g > bestGain) {
        best = d;
        bestGain = g;
      }
    }
    chosen[best] = true;
    order.push(best);
    gains.push(bestGain);
    comStar += bestGain;
    state.add(best);
  }
  return { order, gains, comStar };
}

export interface Comprehensiveness {
  /** Φ^t(L[t]) for each position. */
  gains: number[];
  /** COM(L) (Eq. 13): the sum of `gains`. */
  com: number;
}

/** COM(L) of a ranking of document indices (all of it; see `ncom` for the cut at k). */
export function comprehensiveness(phi: Matrix, ranking: readonly number[], rule: GainPreset | Partial<GainRule> = 'code'): Comprehensiveness {
  const docs = checkCoverageMatrix(phi);
  const seen = new Set<number>();
  ranking.forEach((d, t) => {
    if (!Number.isInteger(d) || d < 0 || d >= docs) throw new RangeError(`ranking[${t}] = ${d} is not a document index (0..${docs - 1})`);
    if (seen.has(d)) throw new RangeError(`ranking[${t}] repeats document ${d}`);
    seen.add(d);
  });
  const state = new CoverageState(phi, gainRule(rule));
  const gains = ranking.map((d) => {
    const g = state.gain(state.weights(false), d);
    state.add(d);
    return g;
  });
  return { gains, com: gains.reduce((a, b) => a + b, 0) };
}

export interface NcomResult {
  silver: SilverList;
  /** COM of ranking[:k]. */
  com: number;
  /** COM / COM*, null when COM* = 0. */
  ncom: number | null;
}

/** NCOM of a ranking at cutoff k against the silver list of the same pool (App. C). */
export function ncom(phi: Matrix, ranking: readonly number[], k: number, rule: GainPreset | Partial<GainRule> = 'code'): NcomResult {
  const silver = silverList(phi, k, rule);
  const { com } = comprehensiveness(phi, ranking.slice(0, k), rule);
  return { silver, com, ncom: silver.comStar > 0 ? com / silver.comStar : null };
}
