import { describe, expect, it } from 'vitest';
import { formatFixed } from '../../../src-main/core/format/fixed';

/** k / 2^m rounded to p places, half to even, with exact integer arithmetic (k ≥ 0). */
function reference(k: bigint, m: number, p: number): string {
  // k / 2^m = k·5^m / 10^m; scale to p places: k·5^m·10^p / 10^m.
  const num = k * 5n ** BigInt(m) * 10n ** BigInt(p);
  const den = 10n ** BigInt(m);
  let q = num / den;
  const r = num % den;
  if (2n * r > den || (2n * r === den && q % 2n === 1n)) q++;
  const s = q.toString().padStart(p + 1, '0');
  return p === 0 ? s : `${s.slice(0, -p)}.${s.slice(-p)}`;
}

describe('formatFixed (printf %.Nf)', () => {
  it('rounds exact ties to even, as trec_eval and Python print them', () => {
    // toFixed printed 0.0313, 3, 0.13 and 1 (ties away from zero).
    expect(formatFixed(1 / 32, 4)).toBe('0.0312');
    expect(formatFixed(2.5, 0)).toBe('2');
    expect(formatFixed(0.125, 2)).toBe('0.12');
    expect(formatFixed(-0.125, 2)).toBe('-0.12');
    expect(formatFixed(0.5, 0)).toBe('0');
    // Odd last digit: up, as before.
    expect(formatFixed(0.375, 2)).toBe('0.38');
    expect(formatFixed(3.5, 0)).toBe('4');
  });

  it('leaves values that are not exact ties to the nearest (0.03135 is 0.031350000000000003 in binary)', () => {
    expect(formatFixed(0.03135, 4)).toBe('0.0314');
    expect(formatFixed(0.00015, 4)).toBe('0.0001'); // 0.000149999…
    expect(formatFixed(1 / 3, 6)).toBe('0.333333');
    expect(formatFixed(Number.NaN, 4)).toBe('NaN');
  });

  it('agrees with exact half-to-even rounding on every k/2^m, m ≤ 12, k < 2^m·3', () => {
    for (let m = 1; m <= 12; m++) {
      for (let k = 0; k < 3 * 2 ** m; k += m > 8 ? 7 : 1) {
        for (const p of [0, 1, 2, 4, 6]) {
          expect(formatFixed(k / 2 ** m, p), `${k}/2^${m} at ${p}`).toBe(reference(BigInt(k), m, p));
        }
      }
    }
  });
});
