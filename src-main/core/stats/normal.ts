/**
 * The standard normal distribution: CDF through erfc (a power series of erf below 2.5, a continued
 * fraction of erfc above; both to about 1e-15 relative) and its quantile (Acklam's rational start,
 * polished by Newton steps on that CDF). Used by the Wilson score interval (boundedInterval.ts).
 */

const SQRT_PI = Math.sqrt(Math.PI);

/** erfc(y) for y ≥ 0. */
function erfcNonNegative(y: number): number {
  if (y < 2.5) {
    // erf(y) = 2/√π Σ (−1)ⁿ y^(2n+1) / (n! (2n+1))
    let term = y;
    let sum = y;
    for (let n = 1; n < 200; n++) {
      term *= (-y * y) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 1 - (2 / SQRT_PI) * sum;
  }
  // erfc(y) = e^(−y²)/√π · 1/(y + (1/2)/(y + 1/(y + (3/2)/(y + 2/(y + …))))), by modified Lentz.
  const tiny = 1e-300;
  let f = y;
  let c = y;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = y + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = y + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-y * y) / (SQRT_PI * f);
}

/** Φ(x) = P(Z ≤ x). */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  const e = erfcNonNegative(Math.abs(x) / Math.SQRT2) / 2;
  return x < 0 ? e : 1 - e;
}

function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/** Acklam's rational approximation (relative error < 1.2e-9) for p in (0, ½]. */
function acklam(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** z with Φ(z) = p; p = 0 and 1 give ∓Infinity. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`probability must be in [0, 1], got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  if (p === 0.5) return 0;
  if (p > 0.5) return -normalQuantile(1 - p);
  let z = acklam(p);
  for (let i = 0; i < 4; i++) {
    const step = (normalCdf(z) - p) / normalPdf(z);
    z -= step;
    if (Math.abs(step) <= 1e-16 * Math.abs(z)) break;
  }
  return z;
}
