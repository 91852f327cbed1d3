import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { fromHalfBits, quantizeQ8_0, toHalfBits } from '../../../src-main/engine/gguf/tensorEncoding';

describe('toHalfBits', () => {
  it('encodes exact values, rounds to nearest even and saturates', () => {
    expect(toHalfBits(1)).toBe(0x3c00);
    expect(toHalfBits(-2)).toBe(0xc000);
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(65520)).toBe(0x7c00); // rounds up past the largest finite half
    expect(toHalfBits(2 ** -24)).toBe(0x0001); // smallest subnormal
    expect(toHalfBits(2 ** -26)).toBe(0x0000);
    expect(toHalfBits(1 + 2 ** -11)).toBe(0x3c00); // halfway between 1 and the next half: ties to even
    expect(toHalfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(Number.isNaN(fromHalfBits(toHalfBits(NaN)))).toBe(true);
  });

  it('round-trips within half a unit in the last place', () => {
    const rng = createRng(5);
    for (let i = 0; i < 2000; i++) {
      const x = (rng.nextFloat() * 2 - 1) * 100;
      const y = fromHalfBits(toHalfBits(x));
      const ulp = 2 ** (Math.floor(Math.log2(Math.abs(x))) - 10);
      expect(Math.abs(y - x)).toBeLessThanOrEqual(ulp / 2 + 1e-12);
    }
  });
});

describe('quantizeQ8_0', () => {
  it('stores an f16 scale amax/127 and int8 values within half a step', () => {
    const rng = createRng(9);
    const values = Float32Array.from({ length: 64 }, () => rng.nextNormal());
    const q = quantizeQ8_0(values);
    expect(q.length).toBe(2 * 34);
    const view = new DataView(q.buffer);
    for (let b = 0; b < 2; b++) {
      const d = fromHalfBits(view.getUint16(b * 34, true));
      const amax = Math.max(...Array.from(values.subarray(b * 32, b * 32 + 32), Math.abs));
      expect(d).toBeCloseTo(amax / 127, 3);
      for (let j = 0; j < 32; j++) {
        const x = values[b * 32 + j] as number;
        expect(Math.abs(view.getInt8(b * 34 + 2 + j) * d - x)).toBeLessThanOrEqual(d * 0.51 + 1e-3 * amax);
      }
    }
  });

  it('rejects lengths that are not whole blocks', () => {
    expect(() => quantizeQ8_0(new Float32Array(33))).toThrow(/multiple of 32/);
  });
});
