/**
 * Kendall's rank correlation between two score vectors over the same items, the measure the MoI
 * notes use to compare rankings (recovered u vs planted u, u vs the retriever order): rankings are
 * what MoI feeds the generator, while u and a are only identified up to an affine family.
 *
 * tau-b (default) corrects for ties as scipy.stats.kendalltau does:
 *   tau_b = (C − D) / sqrt((n0 − T_x)(n0 − T_y)),  n0 = n(n−1)/2,
 * T_x / T_y = pairs tied in x / in y. tau-a = (C − D) / n0 ignores ties. A pair tied in both counts
 * in neither C nor D. O(n²), which is all MoI's N ≤ a few dozen passages need.
 */
export type KendallVariant = 'a' | 'b';

/**
 * Kendall's tau of `x` and `y` (same length ≥ 2). Returns NaN when tau-b is undefined, i.e. when
 * either vector is constant (and for fewer than two items).
 */
export function kendallTau(x: readonly number[], y: readonly number[], variant: KendallVariant = 'b'): number {
  if (x.length !== y.length) throw new RangeError(`kendallTau: vectors differ in length (${x.length} vs ${y.length})`);
  const n = x.length;
  if (n < 2) return Number.NaN;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign((x[j] as number) - (x[i] as number));
      const dy = Math.sign((y[j] as number) - (y[i] as number));
      if (Number.isNaN(dx) || Number.isNaN(dy)) throw new RangeError('kendallTau: NaN in input');
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      const prod = dx * dy;
      if (prod > 0) concordant++;
      else if (prod < 0) discordant++;
    }
  }
  const pairs = (n * (n - 1)) / 2;
  if (variant === 'a') return (concordant - discordant) / pairs;
  const denom = Math.sqrt((pairs - tiedX) * (pairs - tiedY));
  return denom === 0 ? Number.NaN : (concordant - discordant) / denom;
}

/**
 * Kendall's tau between two rankings given as item lists (best first) over the same items, e.g.
 * MoI's `ranking` and the retriever order [0, 1, …, N−1]. Rankings have no ties, so tau-a = tau-b.
 */
export function kendallTauOfRankings(first: readonly number[], second: readonly number[]): number {
  if (first.length !== second.length) throw new RangeError(`kendallTauOfRankings: rankings differ in length (${first.length} vs ${second.length})`);
  const posFirst = new Map<number, number>();
  first.forEach((item, i) => posFirst.set(item, i));
  if (posFirst.size !== first.length) throw new RangeError('kendallTauOfRankings: repeated item in the first ranking');
  const x: number[] = [];
  const y: number[] = [];
  second.forEach((item, i) => {
    const p = posFirst.get(item);
    if (p === undefined) throw new RangeError(`kendallTauOfRankings: item ${item} is not in the first ranking`);
    x.push(-p);
    y.push(-i);
  });
  if (new Set(second).size !== second.length) throw new RangeError('kendallTauOfRankings: repeated item in the second ranking');
  return kendallTau(x, y, 'a');
}
