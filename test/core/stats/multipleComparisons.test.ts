import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { adjustPValues, benjaminiHochberg, bonferroni, holm, significantAt } from '../../../src-main/core/stats/multipleComparisons';

const close = (got: number[], want: number[]) => {
  expect(got).toHaveLength(want.length);
  got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 14));
};

describe('Holm and Bonferroni', () => {
  // Textbook example (Wikipedia, "Holm–Bonferroni method", Example): four hypotheses with
  // p = 0.01, 0.04, 0.03, 0.005 at α = 0.05; Holm rejects H1 and H4 only.
  const p = [0.01, 0.04, 0.03, 0.005];

  it('Holm: sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.04·1, 0.06) = 0.06', () => {
    const adj = holm(p);
    close(adj, [0.03, 0.06, 0.06, 0.02]);
    expect(adj.map((x) => x <= 0.05)).toEqual([true, false, false, true]);
  });

  it('Bonferroni: min(1, 4p)', () => {
    close(bonferroni(p), [0.04, 0.16, 0.12, 0.02]);
    expect(bonferroni(p).map((x) => x <= 0.05)).toEqual([true, false, false, true]);
  });

  it('Holm enforces monotonicity with a running maximum', () => {
    // sorted: 0.01·3 = 0.03, 0.011·2 = 0.022 → raised to 0.03, 0.04·1 = 0.04
    close(holm([0.04, 0.01, 0.011]), [0.04, 0.03, 0.03]);
  });

  it('caps at 1, keeps ties, and handles one and zero tests', () => {
    close(holm([0.5, 0.6]), [1, 1]);
    close(bonferroni([0.5, 0.6]), [1, 1]);
    close(holm([0.02, 0.02]), [0.04, 0.04]);
    close(holm([0.3]), [0.3]);
    expect(holm([])).toEqual([]);
    expect(bonferroni([])).toEqual([]);
  });

  it('Holm is never larger than Bonferroni and never smaller than the raw p', () => {
    const raw = [0.001, 0.2, 0.04, 0.013, 0.5, 0.049];
    const h = holm(raw);
    const b = bonferroni(raw);
    raw.forEach((r, i) => {
      expect(h[i]).toBeGreaterThanOrEqual(r);
      expect(h[i]).toBeLessThanOrEqual(b[i]!);
    });
  });

  it('dispatches by name and rejects invalid p-values', () => {
    close(adjustPValues(p, 'holm'), holm(p));
    close(adjustPValues(p, 'bonferroni'), bonferroni(p));
    expect(adjustPValues(p, 'none')).toEqual(p);
    expect(() => holm([0.1, Number.NaN])).toThrow(DataError);
    expect(() => bonferroni([1.2])).toThrow(DataError);
    expect(() => adjustPValues([-0.1], 'none')).toThrow(DataError);
  });
});

describe('Benjamini–Hochberg (#16.5)', () => {
  it('adjusts a hand-computed case in input order (statsmodels fdr_bh)', () => {
    // sorted 0.005, 0.01, 0.03, 0.04 → m·p/i = 0.02, 0.02, 0.04, 0.04; running minimum from the top.
    const adjusted = benjaminiHochberg([0.01, 0.04, 0.03, 0.005]);
    [0.02, 0.04, 0.04, 0.02].forEach((v, i) => expect(adjusted[i]).toBeCloseTo(v, 15));
    expect(adjustPValues([0.01, 0.04, 0.03, 0.005], 'bh')).toEqual(adjusted);
    expect(benjaminiHochberg([])).toEqual([]);
    expect(benjaminiHochberg([0.9, 0.8])).toEqual([0.9, 0.9]);
  });

  it("rejects the 4 hypotheses of Benjamini & Hochberg's (1995) 15-test example at q = 0.05 (Bonferroni: 3)", () => {
    const p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528, 0.759, 1];
    expect(benjaminiHochberg(p).filter((x) => x <= 0.05)).toHaveLength(4);
    expect(bonferroni(p).filter((x) => x <= 0.05)).toHaveLength(3);
    // The fourth: 15 · 0.0095 / 4 = 0.035625.
    expect(benjaminiHochberg(p)[3]).toBeCloseTo(0.035625, 15);
  });
});

describe('significantAt: the one rejection rule (p ≤ α)', () => {
  it('is significant at exactly α and not two ulps above it', () => {
    expect(significantAt(0.05, 0.05)).toBe(true);
    expect(significantAt(0.05 + 2 ** -56, 0.05)).toBe(false);
    expect(significantAt(0.049, 0.05)).toBe(true);
    expect(significantAt(0.5, 0.5)).toBe(true);
  });
});
