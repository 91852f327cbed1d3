/**
 * Root Normalised Order-aware Divergence (Sakai, ACL 2021; NTCIREVAL `sysgold2rnod`) of an achieved
 * distribution p from a target p*. Asymmetric: the argument order is (achieved ‖ target).
 *   DW_i = Σ_{j∈C} |i − j| · (p_j − p*_j)²
 *   OD   = (1/|C*|) Σ_{i∈C*} DW_i,   C* = { i : p*_i > 0 }   (classes taken from the TARGET)
 *   NOD  = OD / (|C| − 1),  RNOD = √NOD
 * Taking C* from the target is what reproduces the paper: (0,0,0,1) against the uniform target over
 * 4 groups gives RNOD = 0.595119, DistrSim = 0.404881 (Tables 1-5). DialEval-style code that keeps
 * the classes where the *system* distribution is positive would give 0.646447.
 */
export function rnod(p: readonly number[], target: readonly number[]): number {
  if (p.length !== target.length) throw new RangeError(`rnod: distributions differ in length (${p.length} vs ${target.length})`);
  if (p.length < 2) throw new RangeError('rnod: needs at least 2 groups');
  const sq = p.map((pj, j) => (pj - target[j]!) ** 2);
  let od = 0;
  let classes = 0;
  for (let i = 0; i < p.length; i++) {
    if (!(target[i]! > 0)) continue;
    classes++;
    let dw = 0;
    for (let j = 0; j < p.length; j++) dw += Math.abs(i - j) * sq[j]!;
    od += dw;
  }
  if (classes === 0) throw new RangeError('rnod: the target has no group with positive probability');
  return Math.sqrt(od / classes / (p.length - 1));
}
