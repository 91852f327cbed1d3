/**
 * The declared behaviour of a simulated reader (issue 14): what it knows and how it reads. Stored with
 * the model in the model library (services/simulation/simModels.ts); its canonical JSON is part of the
 * engine's cache identity, so two profiles never share a cached call.
 *
 * - `collection`: the collection whose queries, answers, sub-aspects and documents it knows.
 * - `utility`: the planted utility u(q, d) ∈ [0, 1] of a document for a query:
 *     'labels' (default): the collection's utility label of (q, d) if there is one, else its relevance
 *     grade divided by the query's largest grade, else 0;
 *     'answer-in-document': 1 when the document's text contains one of the query's answers, else 0.
 *   `utilities` (query id → document id → u) overrides either for the pairs it names.
 * - `bias`: the position-bias curve a over the L documents of a prompt (positions 1..L), normalised
 *   to Σ a = 1 (biasCurve below): a named shape or an explicit vector.
 * - `closedBookAccuracy` c: how often a prompt without any useful document is answered correctly.
 * - `noise` ∈ [0, 1]: 0 = deterministic thresholds; see simEngine.ts for what it does to each call.
 * - `utilityScale` (default 1) multiplies every planted utility and coverage; 0 plants the null effect.
 * - `biasStrength` s (default 1) weakens the position bias towards no bias with the same total attention:
 *   a_j(s) = (1 − s)/L + s·a_j (still Σ = 1), and the relative attention the answer rule uses is
 *   a_j(s) / max a (not / max a(s)), so Σ ã is kept: at s = 0 every position gets the mean of ã and no
 *   order of the same documents can change an answer; the gap between two orders is linear in s (below
 *   the answer rule's cap of 1). The planted effect of a MoI power simulation (services/simulation/power.ts).
 * - `lapse` λ ∈ [0, 1] (default 0): on every call the reader loses a share λ of what the documents give,
 *   p = c + (1 − c)·(1 − λ)·min(1, Σ ã_j u_j) (for an answer, and per sub-aspect with coverages in place
 *   of u): with λ > 0 and c < 1 no answer is certain (p ≤ 1 − λ(1 − c)), so answers to the same query are
 *   random in every condition. Independent of the order and the condition, it is the exchangeable noise
 *   of a planted null for measuring a test's level (services/simulation/power.ts): without it a query
 *   whose useful passages saturate the answer rule (min(1, …) = 1) is answered right by every order and
 *   adds an exact tie (a degenerate null with no noise), which makes any test on it conservative.
 * - `coverages` (query id → document id → f ∈ [0, 1], absent = 1) multiplies that document's sub-aspect
 *   coverage for that query (as the answer rule, the list-wise ranker and the attribution judge see it):
 *   the planted effect of a RichRAG power simulation.
 * - `seed`: every random choice is a hash of (seed, request), so equal requests get equal answers.
 */
export const BIAS_SHAPES = ['uniform', 'primacy', 'recency', 'u-shaped'] as const;
export type BiasShape = (typeof BIAS_SHAPES)[number];

export interface SimProfile {
  collection: string;
  utility: 'labels' | 'answer-in-document';
  utilities?: Record<string, Record<string, number>> | undefined;
  bias: BiasShape | number[];
  closedBookAccuracy: number;
  noise: number;
  seed: number;
  /** Multiplies every planted utility and coverage (default 1): the planted effect of `simulate power`; 0 = no document helps. */
  utilityScale?: number | undefined;
  /** Position-bias strength in [0, 1] (default 1; see the module comment); 0 = no order matters, the null of MoI's Table 1. */
  biasStrength?: number | undefined;
  /** Lapse rate in [0, 1] (default 0; module comment): p = c + (1 − c)(1 − λ)·min(1, Σ ã u). */
  lapse?: number | undefined;
  /** Per-(query, document) factors on the sub-aspect coverage (module comment); absent = 1. */
  coverages?: Record<string, Record<string, number>> | undefined;
}

export const DEFAULT_SIM_PROFILE: Omit<SimProfile, 'collection'> = {
  utility: 'labels',
  bias: 'u-shaped',
  closedBookAccuracy: 0.2,
  noise: 0,
  seed: 0,
};

/** Bumped whenever a change to the simulated reader changes any output (part of the cache identity). */
export const SIM_ENGINE_VERSION = '3';

/**
 * The position-bias vector a (Σ a = 1) for a prompt with L documents. Named shapes, before normalising:
 *   uniform   1
 *   primacy   1/j
 *   recency   1/(L + 1 − j)
 *   u-shaped  1/j² + 1/(2(L + 1 − j)²)   (lost in the middle: both ends favoured, the start more)
 * An explicit vector is used as given when it has L entries; a longer one is cut to its first L, a
 * shorter one extended with its last value; then normalised.
 */
export function biasCurve(bias: SimProfile['bias'], length: number): number[] {
  if (length <= 0) return [];
  const j = Array.from({ length }, (_, i) => i + 1);
  let raw: number[];
  if (Array.isArray(bias)) {
    if (bias.length === 0) throw new RangeError('an explicit bias vector needs at least one value');
    raw = j.map((p) => bias[Math.min(p, bias.length) - 1]!);
  } else if (bias === 'uniform') raw = j.map(() => 1);
  else if (bias === 'primacy') raw = j.map((p) => 1 / p);
  else if (bias === 'recency') raw = j.map((p) => 1 / (length + 1 - p));
  else if (bias === 'u-shaped') raw = j.map((p) => 1 / p ** 2 + 1 / (2 * (length + 1 - p) ** 2));
  else throw new RangeError(`unknown bias shape '${String(bias)}'`);
  const sum = raw.reduce((a, b) => a + b, 0);
  if (!(sum > 0) || raw.some((v) => !(v >= 0))) throw new RangeError('a bias vector needs non-negative values with a positive sum');
  return raw.map((v) => v / sum);
}

/**
 * The bias vector at strength s (module comment): a(s) = (1 − s)/L + s·a for a = biasCurve(bias, L), and
 * its relative form ã(s) = a(s) / max a, which keeps the total relative attention Σ ã of the full bias.
 */
export function biasAtStrength(bias: SimProfile['bias'], length: number, strength = 1): { a: number[]; relative: number[] } {
  const full = biasCurve(bias, length);
  const max = Math.max(...full, 0);
  const s = Math.min(1, Math.max(0, strength));
  const a = s === 1 ? full : full.map((v) => (1 - s) / length + s * v);
  return { a, relative: a.map((v) => (max > 0 ? v / max : 0)) };
}

/** A one-line description for model lists and captions, e.g. "u-shaped bias, closed-book 0.2, noise 0". */
export function describeProfile(p: SimProfile): string {
  const bias = Array.isArray(p.bias) ? `bias [${p.bias.join(', ')}]` : `${p.bias} bias`;
  const strength = p.biasStrength !== undefined && p.biasStrength !== 1 ? ` at strength ${p.biasStrength}` : '';
  const lapse = p.lapse ? `, lapse ${p.lapse}` : '';
  return `simulated reader of '${p.collection}': ${bias}${strength}, utility from ${p.utility}, closed-book ${p.closedBookAccuracy}, noise ${p.noise}${lapse}, seed ${p.seed}`;
}
