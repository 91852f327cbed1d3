/**
 * Expected-exposure metrics of Fair RAG (Sec. 3.3.1, App. C.1–C.2) under the step user model:
 *   EE-D = ‖ε‖²            (disparity; Eq. 3)      EE-D̄ = EE-D / k                     (Eq. 16)
 *   EE-R = ⟨ε, ε*⟩         (relevance; Eq. 3)      EE-R̄ = EE-R / ‖ε*_paper‖²           (Eq. 26–28)
 *   EE-L = ‖ε − ε*‖²       (difference; Eq. 3)     EE-L̄ = EE-L / (‖ε*_paper‖² + k)     (code's `difference`)
 * Lower bounds are taken as 0 as in the paper. Note the true minimum of EE-D (uniform policy) is
 * k²/n, i.e. EE-D̄ = k/n, and finite N biases EE-D up by Σ_d ε_d(1 − ε_d)/N.
 * EE-D̄ divides by k even when n < k (then EE-D̄ ≤ n/k), as Eq. 16 and the code do.
 */
import { DataError } from '../errors';
import type { UtilityLabelledItem } from '../sampling/oracleRetriever';
import { systemExposure } from './systemExposure';
import { relevanceUpperBound, targetExposure, type TargetVariant } from './targetExposure';
import { dot, squaredDistance, squaredNorm } from './vectors';

export interface ExpectedExposureInput {
  /** All n candidates of the query with their utility labels (m = number useful). */
  items: readonly UtilityLabelledItem[];
  /** The N sampled rankings (ids); positions after k are ignored. */
  rankings: readonly (readonly string[])[];
  k: number;
  target?: TargetVariant;
}

export interface ExpectedExposure {
  n: number;
  m: number;
  /** ε aligned with `items`. */
  exposure: number[];
  /** ε* aligned with `items`, in the chosen variant. */
  target: number[];
  eeD: number;
  eeR: number;
  eeL: number;
  eeDNorm: number;
  eeRNorm: number;
  eeLNorm: number;
  /** The EE-R bound used for EE-R̄ (Eq. 26/27). */
  relevanceBound: number;
}

export function expectedExposure(input: ExpectedExposureInput): ExpectedExposure {
  const { items, rankings, k, target: variant = 'paper' } = input;
  const n = items.length;
  if (n === 0) throw new DataError('the query has no candidates (n = 0)');
  const useful = items.map((it) => it.useful);
  const m = useful.filter(Boolean).length;
  const exposure = systemExposure(
    items.map((it) => it.id),
    rankings,
    k,
  );
  const target = targetExposure(useful, k, variant);
  const eeD = squaredNorm(exposure);
  const eeR = dot(exposure, target);
  const eeL = squaredDistance(exposure, target);
  // n ≥ 1 and k ≥ 1 make the bound positive: m > 0 gives ≥ min(m,k)²/m, m = 0 gives reach²/n.
  const relevanceBound = relevanceUpperBound(n, m, k, variant);
  return {
    n,
    m,
    exposure,
    target,
    eeD,
    eeR,
    eeL,
    eeDNorm: eeD / k,
    eeRNorm: eeR / relevanceBound,
    eeLNorm: eeL / (relevanceBound + k),
    relevanceBound,
  };
}
