/**
 * Confidence intervals of the mean of a bounded measure (issue 17 item 7): accuracy, EU, EU̅,
 * normalised exposure, coverage, nDCG, AP, P@k … lie in [0, 1], and a t-interval of their mean can
 * pass the bounds (a mean of 0.2 over four queries, one of them 0.8: [−0.437, 0.837]). Two ways,
 * and every interval says which it used (`method`):
 *   - values that are all at the bounds (0/1 outcomes: accuracy, success, P@1): the Wilson score
 *     interval of the proportion (Wilson 1927; Brown, Cai & DasGupta 2001), inside the bounds by
 *     construction — "Wilson score (0/1 values)";
 *   - otherwise the Student-t interval clipped to the bounds — "t, clipped to [0, 1]" — with
 *     `clipped` telling whether the clip changed it and `unclipped` the t-interval itself.
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
}

export function clippedMethod(bounds: Bounds = UNIT): string {
  return `t, clipped to [${bounds.lower}, ${bounds.upper}]`;
}
export const WILSON_METHOD = 'Wilson score (0/1 values)';
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

/** The interval of the mean of values of a measure bounded to `bounds` (see the file comment). */
export function boundedMeanInterval(values: readonly number[], bounds: Bounds = UNIT, level = 0.95, what = 'value'): MeasureInterval {
  checkSample(values);
  requireSize(values, 2, 'sample', 'a confidence interval');
  if (!(bounds.lower < bounds.upper)) throw new RangeError(`bounds must have lower < upper, got [${bounds.lower}, ${bounds.upper}]`);
  // Rounding may leave 1.0000000000000002 for a measure of 1: a hair past a bound is inside.
  const tol = 1e-9 * (bounds.upper - bounds.lower);
  const outside = values.findIndex((v) => v < bounds.lower - tol || v > bounds.upper + tol);
  if (outside >= 0) throw new DataError(`${what} ${outside + 1} is ${values[outside]}, outside the measure's range [${bounds.lower}, ${bounds.upper}]`);
  const n = values.length;
  const width = bounds.upper - bounds.lower;
  if (values.every((v) => v === bounds.lower || v === bounds.upper)) {
    const k = values.filter((v) => v === bounds.upper).length;
    const w = wilsonInterval(k, n, level);
    return { mean: bounds.lower + (width * k) / n, lower: bounds.lower + width * w.lower, upper: bounds.lower + width * w.upper, level, method: WILSON_METHOD, clipped: false };
  }
  const t = meanConfidenceInterval(values, level);
  const lower = Math.max(bounds.lower, t.lower);
  const upper = Math.min(bounds.upper, t.upper);
  const clipped = lower !== t.lower || upper !== t.upper;
  return { mean: t.mean, lower, upper, level, method: clippedMethod(bounds), clipped, ...(clipped ? { unclipped: { lower: t.lower, upper: t.upper } } : {}) };
}

/** The interval of the mean of a named measure: bounded ones as above, others the plain t-interval. */
export function measureMeanInterval(measure: string, values: readonly number[], level = 0.95): MeasureInterval {
  const bounds = measureBounds(measure);
  if (bounds) return boundedMeanInterval(values, bounds, level, `${measure} value`);
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

/** One line for a legend, caption or export note naming the methods used. */
export function describeCiMethods(intervals: readonly Pick<MeasureInterval, 'method' | 'clipped' | 'level'>[]): string {
  if (!intervals.length) return '';
  const level = `${Math.round(intervals[0]!.level * 1000) / 10}%`;
  const methods = [...new Set(intervals.map((i) => i.method))];
  const clipped = intervals.filter((i) => i.clipped).length;
  const parts = methods.map((m) => (m === T_METHOD ? 'Student t' : m === WILSON_METHOD ? 'Wilson score for 0/1 values' : `Student t clipped to the measure's range ${m.slice(m.indexOf('['))}`));
  return `${level} CIs: ${parts.join('; ')}${clipped ? ` (${clipped} of ${intervals.length} clipped)` : ''}.`;
}
