/**
 * LaMP-3 (review rating 1..5) conventions from the LaMP evaluation code and Fair-RAG (reference note
 * fair-rag.md §4 and §6), kept apart from the plain MAE/RMSE of numericError.ts because they change
 * the numbers: an unparsable prediction is not an error here, and Fair-RAG flips the error into a
 * higher-is-better utility.
 */
import { pyStrip } from './pythonWhitespace';

/** Largest possible error on the 1..5 scale. */
export const LAMP_RATING_MAX_ERROR = 4;

const DIGITS = '[0-9](?:_?[0-9])*'; // PEP 515: single underscores between digits
const PYTHON_FLOAT_RE = new RegExp(
  `^[+-]?(?:(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`,
  'i',
);

/**
 * Python `float(text.strip())` for ASCII input, or null where Python raises ValueError. Accepts what
 * Python accepts: "4", "4.", ".5", "1e3", "1_000", "inf", "-Infinity", "nan" (→ NaN, as in Python).
 * Non-ASCII digits, which Python also accepts, are treated as unparsable.
 */
export function parsePythonFloat(text: string): number | null {
  const t = pyStrip(text);
  if (!PYTHON_FLOAT_RE.test(t)) return null;
  const lower = t.toLowerCase().replace(/_/g, '');
  const sign = lower.startsWith('-') ? -1 : 1;
  const body = lower.replace(/^[+-]/, '');
  if (body === 'nan') return Number.NaN;
  if (body === 'inf' || body === 'infinity') return sign * Number.POSITIVE_INFINITY;
  return Number(lower);
}

/**
 * LaMP-3 absolute error of one prediction (LaMP `create_mapping`): |float(pred) − float(gold)|, where a
 * prediction that is not a float is replaced by 1.0 if |1 − gold| > |5 − gold|, else by 5.0 — the
 * farther end of the scale, 5.0 on the tie at gold = 3. Throws if the gold itself is not a number.
 */
export function lampRatingAbsoluteError(prediction: string, gold: string): number {
  const g = parsePythonFloat(gold);
  if (g === null) throw new RangeError(`LaMP-3 gold rating is not a number: ${JSON.stringify(gold)}`);
  let p = parsePythonFloat(prediction);
  if (p === null) p = Math.abs(1 - g) > Math.abs(5 - g) ? 1.0 : 5.0;
  return Math.abs(p - g);
}

/**
 * Fair-RAG's conversion of a lower-is-better error into a higher-is-better utility (fair-rag.md §4,
 * "Lower-is-better (LaMP-3 MAE)"): u ↦ 4 − u, applied alike to the expected utility and to u_max
 * (so u_max = 4 − the smallest error). `maxError` is the worst possible error (4 on the 1..5 scale).
 */
export function errorToUtility(error: number, maxError: number = LAMP_RATING_MAX_ERROR): number {
  return maxError - error;
}
