/**
 * The fast number parsers of the run readers (issue 25): one parser each for a plain integer and a
 * plain decimal, read through a code-at accessor so that the string reader (run.ts, UTF-16 char
 * codes) and the byte reader (runBytes.ts, UTF-8 bytes) share them. Both return NaN for anything
 * else; the caller then lets `Number` of the text decide (and report).
 *
 * Each reader passes one fixed accessor, so the call stays monomorphic where it is hot and V8
 * inlines it (test/bench/evalFiles.bench.ts measures the byte reader).
 */

/** The character code (or byte) at index i of src. */
export type CodeAt<S> = (src: S, i: number) => number;

/** `codeAt` for UTF-8 bytes. */
export const byteAt: CodeAt<Uint8Array> = (b, i) => b[i]!;
/** `codeAt` for a JS string (UTF-16 code units). */
export const charAt: CodeAt<string> = (s, i) => s.charCodeAt(i);

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** `[-+]digits` with at most 15 digits in [from, to), or NaN. */
export function plainInteger<S>(src: S, codeAt: CodeAt<S>, from: number, to: number): number {
  let i = from;
  const first = codeAt(src, i);
  const neg = first === 45;
  if (neg || first === 43) i++;
  if (i === to || to - i > 15) return Number.NaN;
  let n = 0;
  for (; i < to; i++) {
    const d = codeAt(src, i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return neg ? -n : n;
}

/**
 * `[-+]digits[.digits]` with at most 15 digits in all in [from, to), or NaN. Exact: the digits form
 * an integer below 2^53 and 10^f is exact, so one IEEE division gives the correctly rounded double,
 * the same value `Number` (strtod) gives (Clinger's fast path).
 */
export function plainDecimal<S>(src: S, codeAt: CodeAt<S>, from: number, to: number): number {
  let i = from;
  const first = codeAt(src, i);
  const neg = first === 45;
  if (neg || first === 43) i++;
  let n = 0;
  let digits = 0;
  let frac = -1;
  for (; i < to; i++) {
    const c = codeAt(src, i);
    if (c === 46 && frac < 0) {
      frac = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
    digits++;
    if (frac >= 0) frac++;
  }
  if (digits === 0 || digits > 15) return Number.NaN;
  const v = frac > 0 ? n / POW10[frac]! : n;
  return neg ? -v : v;
}
