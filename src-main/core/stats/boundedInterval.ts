/**
 * Confidence intervals of the mean of a bounded measure (issue 17 item 7): accuracy, EU, EU̅,
 * normalised exposure, coverage, nDCG, AP, P@k … lie in [0, 1], and a t-interval of their mean can
 * pass the bounds (a mean of 0.2 over four queries, one of them 0.8: [−0.437, 0.837]).
 *
 * The method follows the measure's declared scale, never the values that happen to occur
 * (issue 23 item 4: "Wilson whenever every value is exactly 0 or 1" gave the same mean 1.0 the
 * interval [1, 1] for values 0.9999999999999999 and [0.68, 1] for values 1, and Wilson intervals to
 * continuous measures such as EE-R̄, RR, AP and EU). Every interval says which it used (`method`):
 *   - a binary measure (per-query 0/1 outcomes: accuracy, exact match, Success@k, P@1, hit rate;
 *     `measureScale`): the Wilson score interval of the proportion (Wilson 1927; Brown, Cai &
 *     DasGupta 2001), inside the bounds by construction — "Wilson score (binary measure)"; values
 *     within 1e-9 of a bound count as at it; a value strictly between the bounds is a DataError
 *     (the measure is not binary as declared);
 *   - a continuous measure: the Student-t interval clipped to the bounds — "t, clipped to [0, 1]" —
 *     with `clipped` telling whether the clip changed it and `unclipped` the t-interval itself;
 *   - a column without variance (all values equal, n ≥ 2), whatever its scale: no interval is
 *     claimed — method "no variance (n = …)", `noVariance: true`, lower = upper = the mean — and
 *     displays write that text instead of an interval.
 * An unbounded measure gets the plain t-interval ("t"). Values outside a measure's bounds are a
 * DataError (they say the measure is not what its name claims); within 1e-9 of a bound counts as inside.
 */
import { DataError } from '../errors';
import { meanConfidenceInterval } from './confidenceInterval';
import { checkSample, requireSize } from './descriptive';
import { normalQuantile } from './normal';

export interface Bounds {
  lower: number;
  upper: number;
}

export const UNIT: Bounds = { lower: 0, upper: 1 };

export interface MeasureInterval {
  mean: number;
  lower: number;
  upper: number;
  level: number;
  /** How the interval was computed, for payloads, legends and exports. */
  method: string;
  /** The t-interval was cut at a bound (always false for Wilson and plain t). */
  clipped: boolean;
  /** The t-interval before clipping, when it was clipped. */
  unclipped?: { lower: number; upper: number };
  /** Every value equal: no interval (lower = upper = mean); show `method` ("no variance (n = …)") instead. */
  noVariance?: true;
}

/** A measure's declared scale: per-query 0/1 outcomes, or anything else. */
export type MeasureScale = 'binary' | 'continuous';

/** "no variance (n = 8)": what a display shows for a column of equal values. */
export function noVarianceMethod(n: number): string {
  return `no variance (n = ${n})`;
}

/** The interval as text for tables and CSV: "[lo, hi]" or "no variance (n = …)". */
export function formatInterval(ci: Pick<MeasureInterval, 'lower' | 'upper' | 'noVariance' | 'method'>, digits = 3): string {
  return ci.noVariance ? ci.method : `[${ci.lower.toFixed(digits)}, ${ci.upper.toFixed(digits)}]`;
}

export function clippedMethod(bounds: Bounds = UNIT): string {
  return `t, clipped to [${bounds.lower}, ${bounds.upper}]`;
}
export const WILSON_METHOD = 'Wilson score (binary measure)';
export const T_METHOD = 't';

/** Wilson score interval of k successes in n trials at `level`, on [0, 1]. */
export function wilsonInterval(successes: number, n: number, level = 0.95): { lower: number; upper: number; center: number } {
  if (!(Number.isInteger(n) && n >= 1)) throw new DataError(`a Wilson interval needs at least one trial, got n = ${n}`);
  if (!(Number.isInteger(successes) && successes >= 0 && successes <= n)) throw new DataError(`successes must be an integer in [0, ${n}], got ${successes}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  const z = normalQuantile((1 + level) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const denom = 1 + z2n;
  const center = (p + z2n / 2) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  // The exact endpoints at 0 and n (rounding can leave ±1e-17).
  return { lower: successes === 0 ? 0 : Math.max(0, center - half), upper: successes === n ? 1 : Math.min(1, center + half), center };
}

/** The interval of the mean of values of a measure bounded to `bounds` on its declared `scale` (see the file comment). */
export function boundedMeanInterval(input: readonly number[], bounds: Bounds = UNIT, level = 0.95, what = 'value', scale: MeasureScale = 'continuous'): MeasureInterval {
  let values = input;
  checkSample(values);
  requireSize(values, 2, 'sample', 'a confidence interval');
  if (!(bounds.lower < bounds.upper)) throw new RangeError(`bounds must have lower < upper, got [${bounds.lower}, ${bounds.upper}]`);
  // Rounding may leave 1.0000000000000002 for a measure of 1: a hair past a bound is inside.
  const tol = 1e-9 * (bounds.upper - bounds.lower);
  const outside = values.findIndex((v) => v < bounds.lower - tol || v > bounds.upper + tol);
  if (outside >= 0) throw new DataError(`${what} ${outside + 1} is ${values[outside]}, outside the measure's range [${bounds.lower}, ${bounds.upper}]`);
  // Values within 1e-9 of a bound count as the bound (issue 34 item 5): 0.9999999999999977 and 1 in
  // one column are one value, so rounding never changes the method (no variance, Wilson, t).
  values = snapToBounds(values, bounds);
  const n = values.length;
  const width = bounds.upper - bounds.lower;
  const noVar = noVarianceInterval(values, level);
  if (noVar) return noVar;
  if (scale === 'binary') {
    const between = values.findIndex((v) => Math.abs(v - bounds.lower) > tol && Math.abs(v - bounds.upper) > tol);
    if (between >= 0) throw new DataError(`${what} ${between + 1} is ${values[between]}, but the measure is declared binary (${bounds.lower} or ${bounds.upper} per query)`);
    const k = values.filter((v) => Math.abs(v - bounds.upper) <= tol).length;
    const w = wilsonInterval(k, n, level);
    return { mean: bounds.lower + (width * k) / n, lower: bounds.lower + width * w.lower, upper: bounds.lower + width * w.upper, level, method: WILSON_METHOD, clipped: false };
  }
  const t = meanConfidenceInterval(values, level);
  const lower = Math.max(bounds.lower, t.lower);
  const upper = Math.min(bounds.upper, t.upper);
  const clipped = lower !== t.lower || upper !== t.upper;
  return { mean: t.mean, lower, upper, level, method: clippedMethod(bounds), clipped, ...(clipped ? { unclipped: { lower: t.lower, upper: t.upper } } : {}) };
}

/** `values` with every value within 1e-9 (of the range's width) of a bound replaced by the bound. */
export function snapToBounds(values: readonly number[], bounds: Bounds): number[] {
  const tol = 1e-9 * (bounds.upper - bounds.lower);
  return values.map((v) => (Math.abs(v - bounds.lower) <= tol ? bounds.lower : Math.abs(v - bounds.upper) <= tol ? bounds.upper : v));
}

/** Equal values: the "no variance (n = …)" record, else null. */
function noVarianceInterval(values: readonly number[], level: number): MeasureInterval | null {
  const first = values[0]!;
  if (!values.every((v) => v === first)) return null;
  return { mean: first, lower: first, upper: first, level, method: noVarianceMethod(values.length), clipped: false, noVariance: true };
}

/** The interval of the mean of a named measure: bounded ones as above (by their declared scale), others the plain t-interval. */
export function measureMeanInterval(measure: string, values: readonly number[], level = 0.95): MeasureInterval {
  const bounds = measureBounds(measure);
  if (bounds) return boundedMeanInterval(values, bounds, level, `${measure} value`, measureScale(measure));
  checkSample(values);
  requireSize(values, 2, 'sample', 'a confidence interval');
  const noVar = noVarianceInterval(values, level);
  if (noVar) return noVar;
  const t = meanConfidenceInterval(values, level);
  return { mean: t.mean, lower: t.lower, upper: t.upper, level, method: T_METHOD, clipped: false };
}

/**
 * The range of a measure known by name, or undefined for one without bounds (counts such as
 * NumRet, exposure distances EE-D/EE-R/EE-L, raw metric means). IR measures in ir_measures syntax
 * (nDCG@10, AP, RR, P@5, R@100, Success@1, Bpref, Judged@10, Rprec, ERR, infAP, iP, SetP/R/F),
 * Fair RAG's normalised ones (EE-D̄, EE-R̄, EE-L̄, EU̅, EAR, EAE-D̄) and answer metrics in [0, 1].
 */
export function measureBounds(measure: string): Bounds | undefined {
  const m = measure.trim();
  if (/^(nDCG|AP|MAP|RR|MRR|P|R|Rprec|Success|Bpref|Judged|ERR|infAP|iP|SetP|SetR|SetF|SetAP|F|Accuracy)(@|\(|\[|$)/i.test(m)) return UNIT;
  if (/^(eeDNorm|eeRNorm|eeLNorm|euNorm|ear|eaeDNorm)$/.test(m)) return UNIT;
  if (/^(accuracy|acc|coverage|ncom|exact[-_ ]?match|em|f1|token[-_ ]?f1|rouge[-_]?\w*|bertscore|recall|precision|hit[-_ ]?rate|success)$/i.test(m)) return UNIT;
  return undefined;
}

/**
 * The declared scale of a measure known by name: binary for per-query 0/1 outcomes (accuracy, exact
 * match, Success@k, P@1, hit rate, success), continuous for everything else (EE-R̄, EE-L̄, RR, AP,
 * nDCG, EU, EU̅, ROUGE, F1 …).
 */
export function measureScale(measure: string): MeasureScale {
  const m = measure.trim();
  if (/^(Success(@\d+)?|P@1|Accuracy)$/i.test(m)) return 'binary';
  if (/^(accuracy|acc|exact[-_ ]?match|em|hit[-_ ]?rate|success)$/i.test(m)) return 'binary';
  return 'continuous';
}

/** One line for a legend, caption or export note naming the methods used. */
export function describeCiMethods(intervals: readonly Pick<MeasureInterval, 'method' | 'clipped' | 'level'>[]): string {
  if (!intervals.length) return '';
  const level = `${Math.round(intervals[0]!.level * 1000) / 10}%`;
  const methods = [...new Set(intervals.map((i) => (i.method.startsWith('no variance') ? 'no variance' : i.method)))];
  const clipped = intervals.filter((i) => i.clipped).length;
  const parts = methods.map((m) =>
    m === T_METHOD
      ? 'Student t'
      : m === WILSON_METHOD
        ? 'Wilson score for binary measures'
        : m === 'no variance'
          ? 'none where a column has no variance'
          : m.startsWith('t, clipped')
            ? `Student t clipped to the measure's range ${m.slice(m.indexOf('['))}`
            : m,
  );
  return `${level} CIs: ${parts.join('; ')}${clipped ? ` (${clipped} of ${intervals.length} clipped)` : ''}.`;
}
