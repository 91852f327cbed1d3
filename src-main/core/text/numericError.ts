/**
 * Rating-prediction errors (LaMP-3: MAE, RMSE; reference note fair-rag.md §6) for predictions and gold
 * values given as text. Per pair: absolute error |p − g| (for MAE) or squared error (p − g)² (for RMSE).
 * Over a collection: MAE = mean |p − g|; RMSE = sqrt(mean (p − g)²) — the square root of the mean, not
 * the mean of per-pair roots (which would just be the MAE).
 */
import { DataError } from '../errors';
import { pyStrip } from './pythonWhitespace';

const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A finite decimal number written as text ("4", " 3.5 ", "-1e-2"), surrounding whitespace allowed.
 * Stricter than JS Number(): "", "0x10", "Infinity" and "4 stars" are rejected. `field` names the
 * input in the error.
 */
export function parseDecimal(text: string, field: string): number {
  const t = pyStrip(text);
  const value = Number(t);
  if (!DECIMAL_RE.test(t) || !Number.isFinite(value)) {
    throw new DataError(`expected a number, got ${JSON.stringify(text)}`, { field });
  }
  return value;
}

/** The single numeric gold value; rating metrics take exactly one reference. */
function singleReference(references: readonly string[]): number {
  if (references.length !== 1) {
    throw new DataError(`mae/rmse need exactly one reference, got ${references.length}`, { field: 'references' });
  }
  return parseDecimal(references[0]!, 'references[0]');
}

/** |prediction − reference| of numbers given as text. */
export function absoluteError(prediction: string, references: readonly string[]): number {
  return Math.abs(parseDecimal(prediction, 'prediction') - singleReference(references));
}

/** (prediction − reference)² of numbers given as text. */
export function squaredError(prediction: string, references: readonly string[]): number {
  const d = parseDecimal(prediction, 'prediction') - singleReference(references);
  return d * d;
}

/** Arithmetic mean; null for no values (there is no mean to report). */
export function meanOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** RMSE from per-pair squared errors: sqrt(mean). */
export function rootMeanOf(squaredErrors: readonly number[]): number | null {
  const m = meanOf(squaredErrors);
  return m === null ? null : Math.sqrt(m);
}
