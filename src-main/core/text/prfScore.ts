/**
 * Precision / recall / F triple shared by the ROUGE implementations, and the multi-reference rule.
 */
import { DataError } from '../errors';

export interface PrfScore {
  precision: number;
  recall: number;
  f: number;
}

export const ZERO_PRF: Readonly<PrfScore> = Object.freeze({ precision: 0, recall: 0, f: 0 });

/**
 * Multi-reference ROUGE: score against each reference and keep the whole triple of the one with the
 * highest F, the FIRST on ties — rouge-score `score_multi` (np.argmax over fmeasure, rouge.md §3.1);
 * RichRAG applies the same max-of-F rule around pltrdy (richrag.md §1.7).
 */
export function bestByF(references: readonly string[], scoreOne: (reference: string) => PrfScore): PrfScore {
  requireReferences(references);
  let best: PrfScore | undefined;
  for (const ref of references) {
    const s = scoreOne(ref);
    if (best === undefined || s.f > best.f) best = s;
  }
  return best!;
}

/** Every multi-reference metric needs at least one reference (score_multi raises on an empty list). */
export function requireReferences(references: readonly string[]): void {
  if (references.length === 0) throw new DataError('at least one reference is required', { field: 'references' });
}
