/**
 * groupThousands writes every integer exactly as `toLocaleString('en-US')` does (the import's
 * counts, issue 25 item 3), without loading ICU: hand-checked values at each group boundary, and
 * random integers of every length (seed printed).
 */
import { describe, expect, it } from 'vitest';
import { groupThousands } from '../../../src-main/core/format/thousands';
import { createRng } from '../../../src-main/core/random/rng';

describe('groupThousands', () => {
  it('groups by threes from the right, with the sign in front', () => {
    expect(groupThousands(0)).toBe('0');
    expect(groupThousands(7)).toBe('7');
    expect(groupThousands(999)).toBe('999');
    expect(groupThousands(1000)).toBe('1,000');
    expect(groupThousands(12345)).toBe('12,345');
    expect(groupThousands(100000)).toBe('100,000');
    expect(groupThousands(1234567)).toBe('1,234,567');
    expect(groupThousands(-1000)).toBe('-1,000');
    expect(groupThousands(-999)).toBe('-999');
    expect(groupThousands(Number.MAX_SAFE_INTEGER)).toBe('9,007,199,254,740,991');
  });

  it('equals toLocaleString("en-US") on random integers of every length', () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`groupThousands seed ${seed}`);
    const rng = createRng(seed);
    for (let i = 0; i < 2000; i++) {
      const digits = 1 + rng.nextInt(16);
      const n = Math.floor(rng.nextFloat() * 10 ** digits) * (rng.nextFloat() < 0.2 ? -1 : 1);
      expect(groupThousands(n), String(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
