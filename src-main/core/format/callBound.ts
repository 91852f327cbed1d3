/**
 * A kind's upper bound on a run's LLM calls in words (issue 34 item 8e), the same in `run --dry-run`
 * and the wizard's review step: the total, its parts as the kind names them, and how it was taken,
 * beside the estimate (whose later stages may be an expected count only).
 */
export interface CallBoundLike {
  total: number;
  parts: Record<string, number>;
  basis: string;
}

/** Two lines: the bound with its parts and the expected count it bounds, then its basis. */
export function describeCallBound(bound: CallBoundLike, expected: number): [string, string] {
  const parts = Object.entries(bound.parts).map(([k, v]) => `${k} ${v}`);
  return [
    `bound: at most ${bound.total} LLM call(s) in all, computed or from the cache${parts.length > 0 ? ` (${parts.join(', ')})` : ''}; the estimate (${expected}) is the expected count`,
    `bound taken with ${bound.basis}`,
  ];
}
