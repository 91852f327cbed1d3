/**
 * Marginal coverage gain Φ^t(d) = Σ_i w_i^t · φ(d, a_i) (RichRAG Eq. 8) with the sub-answer weights
 * w^t of Eq. 9, as the released code computes them (`get_next_doc_score` in `diversity_metric_raw.py`,
 * reference note richrag.md §1.4) or as the paper prints them.
 *
 * Coverage c_i after a list L is max_{d∈L} φ(d, a_i), updated document by document. Weights:
 *   'code'  (default)  w_i = (1 − c_i) / Σ_j (1 − c_j), and w = 0 when every c_j = 1. The normalisation is
 *                      applied to the complement, so at t = 1 (c = 0) w_i = 1/n. With `fallback` (the silver
 *                      list's `reweight=True`) an all-zero w becomes 1/n; COM/NCOM use no fallback.
 *   'paper'            Eq. 9 as printed: w_i = 1 − Norm_i(c) with sum normalisation Norm_i(c) = c_i / Σ_j c_j,
 *                      and Norm = 0 while Σ_j c_j = 0 (so w_i = 1 at t = 1). No fallback. Note that with a
 *                      single sub-answer this gives w = 0 after the first document.
 * Reset (the code's, default on with 'code' weights and off with 'paper'): after a document is added, if
 * every c_i equals its pool maximum max_d φ(d, a_i), coverage restarts from 0 — once nothing more can be
 * covered, the next documents are chosen as if the list were empty. (With reset on, the code's fallback can
 * never fire: c = 1 everywhere implies every c_i is at its maximum.)
 */

export type WeightRule = 'code' | 'paper';

export interface GainRule {
  weights: WeightRule;
  reset: boolean;
}

export const GAIN_PRESETS = {
  code: { weights: 'code', reset: true },
  paper: { weights: 'paper', reset: false },
} as const satisfies Record<string, GainRule>;

export type GainPreset = keyof typeof GAIN_PRESETS;
export const GAIN_PRESET_NAMES = Object.keys(GAIN_PRESETS) as GainPreset[];

export function gainRule(rule: GainPreset | Partial<GainRule> = 'code'): GainRule {
  if (typeof rule === 'string') return GAIN_PRESETS[rule];
  const weights = rule.weights ?? 'code';
  return { weights, reset: rule.reset ?? GAIN_PRESETS[weights].reset };
}

/** Checks that phi is a non-empty rectangular matrix of finite, non-negative numbers; returns #documents. */
export function checkCoverageMatrix(phi: readonly (readonly number[])[]): number {
  if (phi.length === 0) throw new RangeError('coverage needs at least one sub-answer (phi has no rows)');
  const docs = phi[0]!.length;
  phi.forEach((row, i) => {
    if (row.length !== docs) throw new RangeError(`phi row ${i} has ${row.length} documents, row 0 has ${docs}`);
    row.forEach((x, d) => {
      if (!Number.isFinite(x) || x < 0) throw new RangeError(`phi[${i}][${d}] = ${x}; coverage must be finite and non-negative`);
    });
  });
  return docs;
}

/** Coverage of the sub-answers by the documents added so far, with the code's reset. */
export class CoverageState {
  private readonly coverage: number[];
  private readonly maxCoverage: number[];

  constructor(
    private readonly phi: readonly (readonly number[])[],
    private readonly rule: GainRule,
  ) {
    this.coverage = phi.map(() => 0);
    this.maxCoverage = phi.map((row) => row.reduce((m, x) => Math.max(m, x), 0));
  }

  /** Adds document `d` (a column of phi). */
  add(d: number): void {
    this.phi.forEach((row, i) => {
      this.coverage[i] = Math.max(this.coverage[i]!, row[d]!);
    });
    // Exact equality is right here: coverage values are copies of phi entries.
    if (this.rule.reset && this.coverage.every((c, i) => c === this.maxCoverage[i])) this.coverage.fill(0);
  }

  /** w^t for the current coverage (Eq. 9, see module comment); `fallback` is the code's `reweight`. */
  weights(fallback: boolean): number[] {
    const n = this.coverage.length;
    if (this.rule.weights === 'paper') {
      const total = sum(this.coverage);
      return this.coverage.map((c) => 1 - (total > 0 ? c / total : 0));
    }
    const uncovered = this.coverage.map((c) => 1 - c);
    const total = sum(uncovered);
    const w = total > 0 ? uncovered.map((u) => u / total) : uncovered;
    return fallback && sum(w) === 0 ? w.map(() => 1 / n) : w;
  }

  /** Φ(d) = Σ_i w_i φ(d, a_i) for weights `w`, summed in sub-answer order. */
  gain(w: readonly number[], d: number): number {
    let g = 0;
    this.phi.forEach((row, i) => {
      g += w[i]! * row[d]!;
    });
    return g;
  }
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
