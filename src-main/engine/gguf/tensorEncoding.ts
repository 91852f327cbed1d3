/**
 * Encoding float32 weights into the ggml storage types the tiny-model writer uses: F32, F16 and
 * Q8_0. Q8_0 follows ggml's reference quantizer (ggml-quants.c `quantize_row_q8_0_ref`): blocks of
 * 32 values, an f16 scale d = amax/127 and 32 int8 values round(x/d), rounding half away from zero
 * like C's roundf.
 */
import { GgmlType } from './ggufFormat';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE binary16 bits of a number, rounded to nearest even (overflow to ±Inf, underflow to subnormals/0). */
export function toHalfBits(value: number): number {
  f32[0] = value;
  const x = u32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // too small even for a subnormal
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) half++; // a carry into the exponent is still correct
  return sign | half;
}

/** The number a binary16 bit pattern stands for. */
export function fromHalfBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** Bytes of `elements` values encoded as `type`. */
export function encodedSize(type: GgmlType, elements: number): number {
  switch (type) {
    case GgmlType.F32:
      return elements * 4;
    case GgmlType.F16:
      return elements * 2;
    case GgmlType.Q8_0:
      return (elements / 32) * 34;
  }
}

/** Encode float32 values (row-major, row length first) into a ggml tensor's bytes. */
export function encodeTensor(type: GgmlType, values: Float32Array): Uint8Array {
  switch (type) {
    case GgmlType.F32:
      return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    case GgmlType.F16: {
      const out = new Uint16Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = toHalfBits(values[i] as number);
      return new Uint8Array(out.buffer);
    }
    case GgmlType.Q8_0:
      return quantizeQ8_0(values);
  }
}

export function quantizeQ8_0(values: Float32Array): Uint8Array {
  if (values.length % 32 !== 0) throw new RangeError(`Q8_0 needs a multiple of 32 values, got ${values.length}`);
  const blocks = values.length / 32;
  const out = new Uint8Array(blocks * 34);
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    const base = b * 32;
    let amax = 0;
    for (let j = 0; j < 32; j++) {
      const a = Math.abs(values[base + j] as number);
      if (a > amax) amax = a;
    }
    // ggml computes id from the float32 d, then stores d as f16.
    const d = Math.fround(amax / 127);
    const id = d ? Math.fround(1 / d) : 0;
    const o = b * 34;
    view.setUint16(o, toHalfBits(d), true);
    for (let j = 0; j < 32; j++) view.setInt8(o + 2 + j, roundHalfAway(Math.fround((values[base + j] as number) * id)));
  }
  return out;
}
