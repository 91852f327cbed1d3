/** Number and distribution formatting of the Conversations screens. */
import type { AttributeSet } from '$contract';

/** GFRC2, EGNP and EGF are sums over clusters divided by L, so they are small: six decimals, as the paper prints. */
export function fixed(x: number | null | undefined, digits = 6): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}

/** A probability as a small fraction when it is one (3/4, 1/6), else three decimals. */
export function fraction(x: number): string {
  if (x === 0 || x === 1) return String(x);
  for (let d = 2; d <= 12; d++) {
    const n = Math.round(x * d);
    if (Math.abs(n / d - x) < 1e-9) return `${n}/${d}`;
  }
  return x.toFixed(3);
}

/** A distribution as the paper writes it: (3/4,1/4,0). */
export function distribution(v: readonly number[] | undefined): string {
  return v ? `(${v.map(fraction).join(',')})` : '–';
}

/** The group label of a one-hot vector, '' when there is none, or the vector itself when it is soft. */
export function groupLabel(set: AttributeSet, v: readonly number[] | undefined): string {
  if (!v) return '';
  const one = v.findIndex((x) => x === 1);
  if (one >= 0 && v.every((x, i) => i === one || x === 0)) return set.groups[one] ?? '';
  return distribution(v);
}

export function runLabel(run: string): string {
  return run === '' ? '(no run)' : run;
}

export const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The group select's value that keeps a soft membership vector unchanged. */
export const KEEP = '__keep__';
