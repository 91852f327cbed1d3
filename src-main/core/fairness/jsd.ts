/**
 * Jensen-Shannon divergence between an achieved distribution p and a target p* (Sakai, ACL 2021, as
 * used by GFR/GFRC; Sakai, Tao & Song 2025, Sec. 2.1). Log base 2 and no square root, so it lies in
 * [0, 1]: D = (1,0,0) against the uniform target gives 0.459148, the value printed in the paper
 * ("DistrSim = 1 − 0.459148"). Natural log or √JSD (scipy's `jensenshannon`) would not.
 */

/** JSD(p‖q) = ½·KL(p‖m) + ½·KL(q‖m), m = (p+q)/2, with 0·log 0 = 0. Symmetric. */
export function jsd(p: readonly number[], q: readonly number[]): number {
  if (p.length !== q.length) throw new RangeError(`jsd: distributions differ in length (${p.length} vs ${q.length})`);
  const m = p.map((pi, i) => (pi + q[i]!) / 2);
  return 0.5 * klToMixture(p, m) + 0.5 * klToMixture(q, m);
}

/** KL(p‖m) in bits. Terms with p_i = 0 vanish; m_i > 0 wherever p_i > 0 because m is the mixture. */
function klToMixture(p: readonly number[], m: readonly number[]): number {
  let kl = 0;
  for (let i = 0; i < p.length; i++) {
    const pi = p[i]!;
    if (pi > 0) kl += pi * Math.log2(pi / m[i]!);
  }
  return kl;
}
