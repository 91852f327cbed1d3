/**
 * ROUGE as Google `rouge-score` 0.1.2 computes it (`RougeScorer(types, use_stemmer, split_summaries=
 * False).score(target, prediction)`), the ROUGE behind LaMP / HF `evaluate` (reference note rouge.md
 * §3.1). Here every function takes (prediction, reference) — note the library takes target FIRST.
 *
 * Tokens come from `rougeScoreTokenize` (lower-case, [a-z0-9] runs, optional Porter stem for len > 3).
 *   ROUGE-N  : n-gram multisets; overlap = Σ_g min(count_ref(g), count_pred(g));
 *              P = overlap / max(#pred n-grams, 1), R = overlap / max(#ref n-grams, 1).
 *   ROUGE-L  : LCS of the whole token sequences; P = LCS/|pred|, R = LCS/|ref|; 0 if either is empty.
 *   ROUGE-Lsum: summary-level LCS (Lin 2004 §3.2 as ROUGE-1.5.5 implements it): sentences are the
 *              "\n"-separated lines (empty strings dropped, whitespace-only lines kept as empty token
 *              lists); per reference sentence, the union of the LCS index sets against every
 *              prediction sentence; each union token is a hit only while both texts still have an
 *              unused occurrence of it (per-token count clipping across the summary);
 *              P = hits / Σ|pred sentences|, R = hits / Σ|ref sentences|.
 *   F = 2PR/(P+R), 0 when P+R = 0 (rouge-score `scoring.fmeasure`).
 */
import { lcsIndicesRougeScore, lcsLength } from './longestCommonSubsequence';
import { bestByF, type PrfScore, ZERO_PRF } from './prfScore';
import { rougeScoreTokenize } from './rougeScoreTokenizer';

export type RougeScoreType = 'rouge1' | 'rouge2' | 'rougeL' | 'rougeLsum';

export interface RougeScoreOptions {
  /** use_stemmer: NLTK Porter stemmer on tokens longer than 3 characters. Default false (LaMP / HF default). */
  stem?: boolean;
}

/** rouge-score `scoring.fmeasure`, same operation order for bit-identical results. */
function fmeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

function prf(precision: number, recall: number): PrfScore {
  return { precision, recall, f: fmeasure(precision, recall) };
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  // Tokens are [a-z0-9]+, so joining with a space identifies the n-gram uniquely.
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** ROUGE-N over token lists (rouge-score `_score_ngrams`). */
export function rougeNTokens(prediction: readonly string[], reference: readonly string[], n: number): PrfScore {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`ROUGE-N needs a positive integer n, got ${n}`);
  const pred = ngramCounts(prediction, n);
  const ref = ngramCounts(reference, n);
  let overlap = 0;
  for (const [g, c] of ref) overlap += Math.min(c, pred.get(g) ?? 0);
  const predTotal = Math.max(0, prediction.length - n + 1);
  const refTotal = Math.max(0, reference.length - n + 1);
  return prf(overlap / Math.max(predTotal, 1), overlap / Math.max(refTotal, 1));
}

/** ROUGE-L over token lists (rouge-score `_score_lcs`). */
export function rougeLTokens(prediction: readonly string[], reference: readonly string[]): PrfScore {
  if (prediction.length === 0 || reference.length === 0) return { ...ZERO_PRF };
  const lcs = lcsLength(reference, prediction);
  return prf(lcs / prediction.length, lcs / reference.length);
}

/** Summary-level ROUGE-Lsum over tokenized sentences (rouge-score `_summary_level_lcs`). */
export function rougeLsumSentences(prediction: readonly (readonly string[])[], reference: readonly (readonly string[])[]): PrfScore {
  if (prediction.length === 0 || reference.length === 0) return { ...ZERO_PRF };
  const m = reference.reduce((s, x) => s + x.length, 0);
  const n = prediction.reduce((s, x) => s + x.length, 0);
  if (m === 0 || n === 0) return { ...ZERO_PRF };

  const countsRef = new Map<string, number>();
  const countsPred = new Map<string, number>();
  for (const s of reference) for (const t of s) countsRef.set(t, (countsRef.get(t) ?? 0) + 1);
  for (const s of prediction) for (const t of s) countsPred.set(t, (countsPred.get(t) ?? 0) + 1);

  let hits = 0;
  for (const r of reference) {
    // Union of LCS positions in r over all prediction sentences, read in position order.
    const union = new Set<number>();
    for (const c of prediction) for (const i of lcsIndicesRougeScore(r, c)) union.add(i);
    for (const i of [...union].sort((a, b) => a - b)) {
      const t = r[i]!;
      const cp = countsPred.get(t) ?? 0;
      const cr = countsRef.get(t) ?? 0;
      // Clip: a token is a hit only while both sides still have an unused occurrence (ROUGE-1.5.5).
      if (cp > 0 && cr > 0) {
        hits++;
        countsPred.set(t, cp - 1);
        countsRef.set(t, cr - 1);
      }
    }
  }
  return prf(hits / n, hits / m);
}

/** rougeLsum's sentence split with split_summaries=False: "\n" only, empty strings dropped. */
function newlineSentences(text: string, stem: boolean): string[][] {
  return text
    .split('\n')
    .filter((s) => s.length > 0)
    .map((s) => rougeScoreTokenize(s, stem));
}

/** One prediction against one reference (rouge-score `score(target=reference, prediction)`). */
export function rougeScore(type: RougeScoreType, prediction: string, reference: string, options: RougeScoreOptions = {}): PrfScore {
  const stem = options.stem ?? false;
  if (type === 'rougeLsum') return rougeLsumSentences(newlineSentences(prediction, stem), newlineSentences(reference, stem));
  const pred = rougeScoreTokenize(prediction, stem);
  const ref = rougeScoreTokenize(reference, stem);
  if (type === 'rougeL') return rougeLTokens(pred, ref);
  return rougeNTokens(pred, ref, type === 'rouge1' ? 1 : 2);
}

/** Several references: the reference with the highest F, first on ties (rouge-score `score_multi`). */
export function rougeScoreMulti(
  type: RougeScoreType,
  prediction: string,
  references: readonly string[],
  options: RougeScoreOptions = {},
): PrfScore {
  return bestByF(references, (ref) => rougeScore(type, prediction, ref, options));
}
