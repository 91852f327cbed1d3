/**
 * Descriptive statistics of a sample of per-query scores: mean, sample variance and standard
 * deviation (n − 1 denominator, as scipy's `ddof=1` and R's `sd`), standard error of the mean.
 * Inputs are validated here once so that no NaN can travel on into a p-value or a table cell.
 */
import { DataError } from '../errors';

/** Throws a DataError when `values` is empty or holds a non-finite number; `name` goes into the message. */
export function checkSample(values: readonly number[], name = 'sample'): void {
  if (values.length === 0) throw new DataError('no values', { field: name });
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new DataError(`value ${i + 1} is not a finite number (${String(v)})`, { field: name });
    }
  }
}

/** Throws unless the sample has at least `min` values (after `checkSample`). */
export function requireSize(values: readonly number[], min: number, name: string, why: string): void {
  checkSample(values, name);
  if (values.length < min) throw new DataError(`${why} needs at least ${min} values, got ${values.length}`, { field: name });
}

export function mean(values: readonly number[]): number {
  checkSample(values);
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * Σ (x − x̄)², two-pass (numerically stable). A constant sample gives exactly 0 even when x̄ is
 * off by an ulp (0.1 + 0.1 + 0.1 ≠ 0.3), so "zero variance" is detected exactly downstream.
 */
export function sumSquaredDeviations(values: readonly number[]): number {
  checkSample(values);
  const first = values[0] as number;
  if (values.every((v) => v === first)) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return ss;
}

/** Sample variance with n − 1 denominator; needs n ≥ 2. */
export function sampleVariance(values: readonly number[]): number {
  requireSize(values, 2, 'sample', 'sample variance');
  return sumSquaredDeviations(values) / (values.length - 1);
}

/** Sample standard deviation (n − 1 denominator); needs n ≥ 2. */
export function sampleSd(values: readonly number[]): number {
  return Math.sqrt(sampleVariance(values));
}

/** Standard error of the mean, s / √n; needs n ≥ 2. */
export function standardError(values: readonly number[]): number {
  return sampleSd(values) / Math.sqrt(values.length);
}

/** Element-wise b − a of two equally long samples (the paired differences). */
export function pairedDifferences(a: readonly number[], b: readonly number[]): number[] {
  checkSample(a, 'a');
  checkSample(b, 'b');
  if (a.length !== b.length) throw new DataError(`paired samples differ in length (${a.length} vs ${b.length})`);
  return a.map((x, i) => (b[i] as number) - x);
}
