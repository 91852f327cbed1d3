/**
 * Longest common subsequence of two token sequences: the length, and the two read-outs (back-tracks)
 * that the ROUGE implementations use. Which LCS a read-out returns when several exist decides the
 * summary-level scores, so each tie-break is kept exactly as its library has it (rouge.md §3.1, §3.3).
 * Both read-outs are iterative: pltrdy's own is recursive and raises RecursionError for sentence
 * pairs of ≳1000 words; we return the value it would have computed without that limit.
 */

/** Length of an LCS, in O(|a|·|b|) time and O(|b|) memory. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint32Array(b.length + 1);
  let curr = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const ai = a[i - 1];
    for (let j = 1; j <= b.length; j++) {
      curr[j] = ai === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, curr[j - 1]!);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[b.length]!;
}

/** Full DP table t[i][j] = LCS length of x[:i], y[:j], row-major with width |y|+1. */
function lcsTable(x: readonly string[], y: readonly string[]): Uint32Array {
  const w = y.length + 1;
  const t = new Uint32Array((x.length + 1) * w);
  for (let i = 1; i <= x.length; i++) {
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      t[i * w + j] = xi === y[j - 1] ? t[(i - 1) * w + j - 1]! + 1 : Math.max(t[(i - 1) * w + j]!, t[i * w + j - 1]!);
    }
  }
  return t;
}

/**
 * rouge-score `lcs_ind(ref, can)` / `_backtrack_norec`: indices into `ref` of one LCS, ascending.
 * From the end: on a match go diagonally; else go left (j−1) if t[i][j−1] > t[i−1][j], otherwise up.
 */
export function lcsIndicesRougeScore(ref: readonly string[], can: readonly string[]): number[] {
  const t = lcsTable(ref, can);
  const w = can.length + 1;
  const out: number[] = [];
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out.push(i - 1);
      i--;
      j--;
    } else if (t[i * w + j - 1]! > t[(i - 1) * w + j]!) {
      j--;
    } else {
      i--;
    }
  }
  return out.reverse();
}

/**
 * pltrdy `_recon_lcs(x, y)`: the tokens of one LCS (taken from x), in order. From the end: on a match
 * go diagonally; else go up (i−1) if t[i−1][j] > t[i][j−1], otherwise left — the opposite tie-break
 * to rouge-score's.
 */
export function lcsTokensPltrdy(x: readonly string[], y: readonly string[]): string[] {
  const t = lcsTable(x, y);
  const w = y.length + 1;
  const out: string[] = [];
  let i = x.length;
  let j = y.length;
  while (i > 0 && j > 0) {
    if (x[i - 1] === y[j - 1]) {
      out.push(x[i - 1]!);
      i--;
      j--;
    } else if (t[(i - 1) * w + j]! > t[i * w + j - 1]!) {
      i--;
    } else {
      j--;
    }
  }
  return out.reverse();
}
