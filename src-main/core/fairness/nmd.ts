/**
 * Normalised Match Distance (the 1-D earth mover's distance over ordinal groups) between an achieved
 * distribution p and a target p* (Sakai, ACL 2021; NTCIREVAL `sysgold2nmd`):
 *   NMD(p‖p*) = Σ_{i=1..|C|} |CP_i − CP*_i| / (|C| − 1),   CP = cumulative sum.
 * Summing through i = |C| (not |C|−1) keeps the definition honest for targets that do not sum to
 * exactly 1 (e.g. a gold file with 0.333333 × 3); for proper distributions that last term is 0.
 */
export function nmd(p: readonly number[], q: readonly number[]): number {
  if (p.length !== q.length) throw new RangeError(`nmd: distributions differ in length (${p.length} vs ${q.length})`);
  if (p.length < 2) throw new RangeError('nmd: needs at least 2 groups');
  let cp = 0;
  let cq = 0;
  let sum = 0;
  for (let i = 0; i < p.length; i++) {
    cp += p[i]!;
    cq += q[i]!;
    sum += Math.abs(cp - cq);
  }
  return sum / (p.length - 1);
}
