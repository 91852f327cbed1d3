import { describe, expect, it } from 'vitest';
import { incompleteBetaTails, regularizedIncompleteBeta } from '../../../src-main/core/stats/incompleteBeta';
import { logBeta, logGamma } from '../../../src-main/core/stats/logGamma';
import { studentTCdf, studentTPdf, studentTQuantile, studentTSf, studentTTwoSided } from '../../../src-main/core/stats/studentT';

// Closed forms of the t CDF for small integer df (e.g. Wikipedia "Student's t-distribution",
// "Cumulative distribution function", special cases; derived by integrating the density).
const closedCdf: Record<number, (t: number) => number> = {
  1: (t) => 0.5 + Math.atan(t) / Math.PI,
  2: (t) => 0.5 + t / (2 * Math.sqrt(2 + t * t)),
  3: (t) => 0.5 + (1 / Math.PI) * ((t / Math.sqrt(3)) / (1 + (t * t) / 3) + Math.atan(t / Math.sqrt(3))),
  4: (t) => 0.5 + (3 / 8) * (t / Math.sqrt(1 + (t * t) / 4)) * (1 - (1 / 12) * ((t * t) / (1 + (t * t) / 4))),
};

// Closed-form quantiles (same source): df = 1 Cauchy, df = 2, and df = 4 via a trigonometric cubic solution.
const closedQuantile: Record<number, (p: number) => number> = {
  // tan(π(p − ½)) = −cot(πp), written so that p near 0 or 1 does not lose digits near the pole
  1: (p) => (p < 0.5 ? -1 / Math.tan(Math.PI * p) : 1 / Math.tan(Math.PI * (1 - p))),
  2: (p) => (2 * p - 1) / Math.sqrt(2 * p * (1 - p)),
  4: (p) => {
    const alpha = 4 * p * (1 - p);
    const q = Math.cos(Math.acos(Math.sqrt(alpha)) / 3) / Math.sqrt(alpha);
    return Math.sign(p - 0.5) * 2 * Math.sqrt(q - 1);
  },
};

const ts = [-40, -7.5, -3, -2, -1, -0.25, 0, 0.1, 0.9, 1.5, 2.7, 6, 55];

describe('Student t CDF', () => {
  for (const df of [1, 2, 3, 4]) {
    it(`matches the closed form for df = ${df} to 1e-12`, () => {
      for (const t of ts) expect(Math.abs(studentTCdf(t, df) - closedCdf[df]!(t))).toBeLessThan(1e-12);
    });
  }

  it('keeps small tails accurate in relative terms (df = 1: P(T < t) = atan-based, ≈ 1/(π|t|))', () => {
    // For df = 1, P(T < −t) = (π/2 − atan t)/π = atan(1/t)/π exactly, no cancellation.
    for (const t of [1e3, 1e6, 1e10]) {
      const exact = Math.atan(1 / t) / Math.PI;
      expect(Math.abs(studentTCdf(-t, 1) / exact - 1)).toBeLessThan(1e-12);
      expect(Math.abs(studentTSf(t, 1) / exact - 1)).toBeLessThan(1e-12);
    }
    // Beyond the range where t² is representable the leading series term takes over.
    expect(studentTCdf(-1e200, 1) / (1e-200 / Math.PI)).toBeCloseTo(1, 12);
  });

  it('is accurate for fractional and large df (reference values: mpmath, 40 digits)', () => {
    // mpmath: betainc(ν/2, 1/2, 0, ν/(ν+t²), regularized=True)/2
    expect(studentTCdf(-2.5, 1e6) / 0.006209744751081623103865 - 1).toBeLessThan(1e-10);
    expect(Math.abs(studentTCdf(-30, 7) / 5.894234440366570060985e-9 - 1)).toBeLessThan(1e-12);
    // scipy.stats.t.cdf(1.5, 2.5) = 0.8760817734568519
    expect(Math.abs(studentTCdf(1.5, 2.5) - 0.8760817734568519)).toBeLessThan(1e-12);
  });

  it('gives symmetric tails and the two-sided tail as twice the one-sided', () => {
    for (const df of [0.7, 3.3, 12, 250]) {
      for (const t of [0.3, 1.96, 4]) {
        expect(studentTCdf(-t, df) + studentTCdf(t, df)).toBeCloseTo(1, 14);
        expect(studentTTwoSided(t, df)).toBeCloseTo(2 * studentTSf(t, df), 14);
        expect(studentTTwoSided(-t, df)).toBe(studentTTwoSided(t, df));
      }
    }
    expect(studentTCdf(Infinity, 3)).toBe(1);
    expect(studentTCdf(-Infinity, 3)).toBe(0);
    expect(studentTTwoSided(0, 3)).toBe(1);
  });

  it('density matches the df = 1 Cauchy density and the df = 2 closed form', () => {
    for (const t of [-3, 0, 0.5, 10]) {
      expect(studentTPdf(t, 1)).toBeCloseTo(1 / (Math.PI * (1 + t * t)), 14);
      expect(studentTPdf(t, 2)).toBeCloseTo(1 / (2 + t * t) ** 1.5, 14);
    }
  });

  it('rejects invalid df and NaN', () => {
    expect(() => studentTCdf(1, 0)).toThrow(RangeError);
    expect(() => studentTCdf(1, -2)).toThrow(RangeError);
    expect(() => studentTCdf(1, Infinity)).toThrow(RangeError);
    expect(() => studentTCdf(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe('Student t quantile', () => {
  const ps = [1e-9, 0.001, 0.025, 0.2, 0.5, 0.6, 0.975, 0.999];
  for (const df of [1, 2, 4]) {
    it(`matches the closed form for df = ${df}`, () => {
      for (const p of ps) {
        const exact = closedQuantile[df]!(p);
        expect(Math.abs(studentTQuantile(p, df) - exact)).toBeLessThanOrEqual(1e-10 * Math.max(1, Math.abs(exact)));
      }
    });
  }

  it('inverts the CDF for fractional df and handles the ends', () => {
    for (const df of [0.5, 2.5, 7.303937043328908, 40, 5000]) {
      for (const p of [1e-6, 0.05, 0.3, 0.8, 0.99]) expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 12);
    }
    expect(studentTQuantile(0, 3)).toBe(-Infinity);
    expect(studentTQuantile(1, 3)).toBe(Infinity);
    expect(studentTQuantile(0.5, 3)).toBe(0);
    // The 97.5% point for df = 2 is 0.95/√(2·0.975·0.025) = 4.302652729749464.
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.302652729749464, 12);
    // scipy.stats.t.ppf(0.975, 10)
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228138851986274, 12);
    expect(() => studentTQuantile(1.5, 3)).toThrow(RangeError);
  });
});

describe('special functions', () => {
  it('logGamma matches factorials and Γ(½) = √π', () => {
    expect(logGamma(1)).toBeCloseTo(0, 15);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 14);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
    expect(logGamma(0.1)).toBeCloseTo(Math.log(9.513507698668731836), 13);
    // ln(20!) via the Stirling branch
    expect(logGamma(21) / Math.log(2432902008176640000) - 1).toBeLessThan(1e-15);
    expect(() => logGamma(0)).toThrow(RangeError);
  });

  it('logBeta agrees across its branches: B(a, b) = Γ(a)Γ(b)/Γ(a+b)', () => {
    // B(3, 4) = 2!·3!/6! = 1/60; B(½, ½) = π; B(12, 15) and B(0.5, 30) checked against the log-gamma sum
    expect(logBeta(3, 4)).toBeCloseTo(-Math.log(60), 14);
    expect(logBeta(0.5, 0.5)).toBeCloseTo(Math.log(Math.PI), 14);
    expect(logBeta(12, 15)).toBeCloseTo(logGamma(12) + logGamma(15) - logGamma(27), 11);
    expect(logBeta(0.5, 30)).toBeCloseTo(logGamma(0.5) + logGamma(30) - logGamma(30.5), 12);
  });

  it('regularized incomplete beta matches closed forms', () => {
    // I_x(1, b) = 1 − (1 − x)^b;  I_x(a, 1) = x^a;  I_x(2, 2) = 3x² − 2x³
    for (const x of [0.01, 0.3, 0.5, 0.77, 0.999]) {
      expect(regularizedIncompleteBeta(x, 1, 3.5)).toBeCloseTo(1 - (1 - x) ** 3.5, 14);
      expect(regularizedIncompleteBeta(x, 2.5, 1)).toBeCloseTo(x ** 2.5, 14);
      expect(regularizedIncompleteBeta(x, 2, 2)).toBeCloseTo(3 * x * x - 2 * x ** 3, 14);
    }
    expect(incompleteBetaTails(0, 2, 3)).toEqual({ lower: 0, upper: 1 });
    expect(incompleteBetaTails(1, 2, 3)).toEqual({ lower: 1, upper: 0 });
    // The upper tail near x = 1 stays accurate: 1 − I_x(1, b) = (1 − x)^b
    expect(incompleteBetaTails(1 - 1e-6, 1, 4).upper / 1e-24 - 1).toBeLessThan(1e-8);
  });
});
