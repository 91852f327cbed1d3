/**
 * Seeded pseudo-random numbers for everything stochastic in Fairground (Plackett–Luce sampling,
 * randomization tests, permutation sets, tiny-model weights). Seeds are always explicit: there is
 * no global generator.
 *
 * Generator: xoshiro128** (Blackman & Vigna), state seeded from the user's seed by SplitMix32 so
 * that nearby seeds give unrelated streams. 32-bit arithmetic only, so results are identical on
 * every platform and JS engine.
 */
export interface Rng {
  /** Uniform float in [0, 1) with 53 random bits. */
  nextFloat(): number;
  /** Uniform float in (0, 1): never 0, safe for log(). */
  nextOpenFloat(): number;
  /** Uniform integer in [0, n). */
  nextInt(n: number): number;
  /** Raw 32-bit unsigned output. */
  nextUint32(): number;
  /** Standard Gumbel variate G = −log(−log U). */
  nextGumbel(): number;
  /**
   * Writes `count` (default: the whole array) standard Gumbel variates into `target` from index 0:
   * exactly the values, in order, that as many `nextGumbel()` calls would return, and the generator
   * ends in the same state. Faster: the state stays in local variables for the whole batch.
   */
  fillGumbel(target: Float64Array, count?: number): void;
  /** Standard normal variate (Box–Muller, one value per call). */
  nextNormal(): number;
  /** Fisher–Yates shuffle of a copy of `items`. */
  shuffled<T>(items: readonly T[]): T[];
  /** An independent generator derived from this one's seed and a label (for sub-streams). */
  fork(label: string | number): Rng;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a over the UTF-16 code units of a string: folds labels and big seeds into 32 bits. */
export function hash32(text: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function seedTo32(seed: number | string): number {
  if (typeof seed === 'string') return hash32(seed);
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
  if (Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff) return seed >>> 0;
  return hash32(String(seed));
}

export function createRng(seed: number | string): Rng {
  const seed32 = seedTo32(seed);
  const sm = splitmix32(seed32);
  let a = sm();
  let b = sm();
  let c = sm();
  let d = sm();
  if ((a | b | c | d) === 0) a = 1;

  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    return result;
  };

  const nextFloat = (): number => {
    const hi = nextUint32() >>> 5; // 27 bits
    const lo = nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  };

  const nextOpenFloat = (): number => {
    let u = nextFloat();
    while (u === 0) u = nextFloat();
    return u;
  };

  const rng: Rng = {
    nextUint32,
    nextFloat,
    nextOpenFloat,
    nextInt(n: number): number {
      if (!Number.isInteger(n) || n <= 0) throw new RangeError(`nextInt needs a positive integer, got ${n}`);
      if (n <= 0x100000000) {
        // Rejection sampling removes modulo bias.
        const limit = Math.floor(0x100000000 / n) * n;
        let x = nextUint32();
        while (x >= limit) x = nextUint32();
        return x % n;
      }
      return Math.floor(nextFloat() * n);
    },
    nextGumbel(): number {
      return -Math.log(-Math.log(nextOpenFloat()));
    },
    fillGumbel(target: Float64Array, count: number = target.length): void {
      if (!Number.isInteger(count) || count < 0 || count > target.length) throw new RangeError(`fillGumbel: count must be an integer in 0..${target.length}, got ${count}`);
      // xoshiro128** and nextOpenFloat inlined on int32 locals (same arithmetic as nextUint32).
      let s0 = a | 0;
      let s1 = b | 0;
      let s2 = c | 0;
      let s3 = d | 0;
      for (let i = 0; i < count; i++) {
        let u = 0;
        while (u === 0) {
          // Two outputs: the high 27 bits of the first and the high 26 of the second (nextFloat).
          let bits = 0;
          for (let half = 0; half < 2; half++) {
            const x = Math.imul(s1, 5);
            const out = Math.imul((x << 7) | (x >>> 25), 9);
            const t = s1 << 9;
            s2 ^= s0;
            s3 ^= s1;
            s1 ^= s2;
            s0 ^= s3;
            s2 ^= t;
            s3 = (s3 << 11) | (s3 >>> 21);
            bits = half === 0 ? out >>> 5 : bits * 67108864 + (out >>> 6);
          }
          u = bits / 9007199254740992;
        }
        target[i] = -Math.log(-Math.log(u));
      }
      a = s0 >>> 0;
      b = s1 >>> 0;
      c = s2 >>> 0;
      d = s3 >>> 0;
    },
    nextNormal(): number {
      const u1 = nextOpenFloat();
      const u2 = nextFloat();
      return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    },
    shuffled<T>(items: readonly T[]): T[] {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = rng.nextInt(i + 1);
        const tmp = out[i] as T;
        out[i] = out[j] as T;
        out[j] = tmp;
      }
      return out;
    },
    fork(label: string | number): Rng {
      return createRng(hash32(String(label), seed32 ^ 0x5bd1e995));
    },
  };
  return rng;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
