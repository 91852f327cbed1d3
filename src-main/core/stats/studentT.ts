/**
 * Student's t distribution with ν > 0 degrees of freedom (ν need not be an integer: Welch's test
 * uses a fractional ν). CDF, survival function and density; quantile by a bracketed Newton
 * iteration on the CDF. Measured against mpmath (40 digits) over t ∈ [−1e6, 100]: relative error
 * of the CDF below 4e-14 for ν ≤ 1000, 3e-13 at ν ≈ 1e4, 4e-11 at ν = 1e6 (the continued fraction
 * loses digits as x → 1), absolute error below 1e-11 up to ν = 1e7.
 *
 * Tail identity (Abramowitz & Stegun 26.7.1 / DLMF 8.17 with the t–beta relation):
 *   P(|T| > |t|) = I_x(ν/2, ½),  x = ν / (ν + t²),
 * so F(t) = ½ I_x(ν/2, ½) for t < 0 and F(t) = ½ + ½ I_{1−x}(½, ν/2) for t > 0.
 */
import { incompleteBetaTails } from './incompleteBeta';
import { logBeta } from './logGamma';

function checkDf(df: number): void {
  if (!(df > 0) || !Number.isFinite(df)) throw new RangeError(`degrees of freedom must be finite and positive, got ${df}`);
}

/** { twoSided: P(|T| ≥ |t|), inner: P(|T| < |t|) }, each computed directly. */
function tails(t: number, df: number): { twoSided: number; inner: number } {
  if (t === 0) return { twoSided: 1, inner: 0 };
  if (!Number.isFinite(t)) return { twoSided: 0, inner: 1 };
  const z = (t * t) / df;
  if (!(z < 1e200)) {
    // x = ν/(ν+t²) < 1e-200 (or t² overflows): the leading term of the power series,
    // I_x(a, ½) = x^a / (a B(a, ½)) · (1 + O(x)), evaluated in logs so that it cannot underflow early.
    const a = df / 2;
    const twoSided = Math.exp(a * (Math.log(df) - 2 * Math.log(Math.abs(t))) - Math.log(a) - logBeta(a, 0.5));
    return { twoSided, inner: 1 - twoSided };
  }
  // x = ν/(ν+t²) = 1/(1+z), y = z/(1+z), both without cancellation.
  const x = 1 / (1 + z);
  const y = z / (1 + z);
  const { lower, upper } = incompleteBetaTails(x, df / 2, 0.5, y);
  return { twoSided: lower, inner: upper };
}

/** F(t) = P(T ≤ t). */
export function studentTCdf(t: number, df: number): number {
  checkDf(df);
  if (Number.isNaN(t)) throw new RangeError('t is NaN');
  const { twoSided, inner } = tails(t, df);
  return t < 0 ? twoSided / 2 : 0.5 + inner / 2;
}

/** P(T > t) = F(−t), computed without 1 − F cancellation. */
export function studentTSf(t: number, df: number): number {
  return studentTCdf(-t, df);
}

/** P(|T| ≥ |t|), the two-sided tail probability. */
export function studentTTwoSided(t: number, df: number): number {
  checkDf(df);
  if (Number.isNaN(t)) throw new RangeError('t is NaN');
  return tails(t, df).twoSided;
}

/** Density f(t) = (1 + t²/ν)^(−(ν+1)/2) / (√ν B(ν/2, ½)). */
export function studentTPdf(t: number, df: number): number {
  checkDf(df);
  if (!Number.isFinite(t)) return 0;
  return Math.exp(-logBeta(df / 2, 0.5) - 0.5 * Math.log(df) - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/**
 * The p-quantile t with F(t) = p. p = 0 and p = 1 give ∓Infinity. Solved for the lower half
 * (p < ½, t < 0) and mirrored, because the lower tail is the one computed without cancellation.
 */
export function studentTQuantile(p: number, df: number): number {
  checkDf(df);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`probability must be in [0, 1], got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p === 0.5) return 0;
  if (p > 0.5) return -lowerQuantile(1 - p, df);
  return lowerQuantile(p, df);
}

/** t < 0 with F(t) = p, p in (0, ½). */
function lowerQuantile(p: number, df: number): number {
  // Bracket [lo, hi] with F(lo) ≤ p ≤ F(hi).
  let hi = 0;
  let lo = -1;
  while (studentTCdf(lo, df) > p) {
    hi = lo;
    lo *= 2;
    if (!Number.isFinite(lo)) return -Infinity;
  }
  let t = (lo + hi) / 2;
  for (let i = 0; i < 500; i++) {
    const f = studentTCdf(t, df) - p;
    if (f === 0) return t;
    if (f > 0) hi = t;
    else lo = t;
    // Newton step, rejected in favour of bisection when it leaves the bracket.
    const step = f / studentTPdf(t, df);
    let next = t - step;
    if (!(next > lo && next < hi) || !Number.isFinite(next)) next = (lo + hi) / 2;
    if (Math.abs(next - t) <= 1e-15 * Math.abs(t) || hi - lo <= 1e-15 * Math.abs(lo)) return next;
    t = next;
  }
  return t;
}
