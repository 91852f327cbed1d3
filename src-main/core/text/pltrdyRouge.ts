/**
 * ROUGE as pltrdy `rouge` 1.0.1 computes it (`Rouge().get_scores(hyp, ref)`, default exclusive=True):
 * the ROUGE of RichRAG and of Fair-RAG's LaMP utility (reference notes rouge.md §3.3, richrag.md §1.7,
 * fair-rag.md §6). Here every function takes (prediction, reference); the library takes hyp FIRST too.
 *
 * Text → sentences: `[" ".join(x.split()) for x in text.split(".") if len(x) > 0]` — the filter runs
 * BEFORE whitespace is collapsed, so ". ." yields one empty sentence (and so an empty-string word).
 * Words: each sentence `.split(" ")`, flattened (so bigrams run across sentence boundaries). No lower-
 * casing, no punctuation removal ("world!" ≠ "world"), no stemming.
 *   rouge-1/2: n-gram SETS (distinct n-grams): P = |H∩R|/|H|, R = |H∩R|/|R| (0 when a side has none).
 *   rouge-l  : summary-level over '.'-sentences on distinct words: m = #distinct ref words, n = #distinct
 *              hyp words, llcs = |∪ over (ref sentence, hyp sentence) of set(LCS tokens)| with pltrdy's
 *              read-out (ref as x, hyp as y); R = llcs/m, P = llcs/n.
 *   F = 2·((P·R)/(P+R+1e−8)) in that operation order — so identical texts give F = 0.999999995, not 1.
 *
 * Empty input: pltrdy raises ValueError when either text has no sentence ("" or only dots). RichRAG's
 * wrapper turns any exception into (0, 0, 0); we return that zero score (Fair-RAG instead replaces an
 * empty prediction by "<empty>" before scoring, which also scores 0 against any ordinary reference).
 * pltrdy also raises RecursionError in its recursive LCS read-out for sentence pairs of ≳1000 words;
 * we compute the value without that limit (RichRAG would have recorded 0 there).
 */
import { lcsTokensPltrdy } from './longestCommonSubsequence';
import { bestByF, type PrfScore, ZERO_PRF } from './prfScore';
import { pySplit } from './pythonWhitespace';

export type PltrdyRougeType = 'rouge-1' | 'rouge-2' | 'rouge-l';

/** pltrdy's sentence split (see module comment). */
export function pltrdySentences(text: string): string[] {
  return text
    .split('.')
    .filter((x) => x.length > 0)
    .map((x) => pySplit(x).join(' '));
}

function words(sentences: readonly string[]): string[] {
  return sentences.flatMap((s) => s.split(' '));
}

function pltrdyF(precision: number, recall: number): number {
  return 2.0 * ((precision * recall) / (precision + recall + 1e-8));
}

function ngramSet(tokens: readonly string[], n: number): Set<string> {
  const out = new Set<string>();
  // Words never contain " " (they come from split(" ")), so the joined key is unambiguous.
  for (let i = 0; i + n <= tokens.length; i++) out.add(tokens.slice(i, i + n).join(' '));
  return out;
}

function rougeNSentences(hyp: readonly string[], ref: readonly string[], n: number): PrfScore {
  const h = ngramSet(words(hyp), n);
  const r = ngramSet(words(ref), n);
  let overlap = 0;
  for (const g of h) if (r.has(g)) overlap++;
  // f_r_p_rouge_n: a side without n-grams gives 0 instead of dividing by zero.
  const precision = h.size === 0 ? 0 : overlap / h.size;
  const recall = r.size === 0 ? 0 : overlap / r.size;
  return { precision, recall, f: pltrdyF(precision, recall) };
}

function rougeLSummarySentences(hyp: readonly string[], ref: readonly string[]): PrfScore {
  const m = new Set(words(ref)).size;
  const n = new Set(words(hyp)).size;
  const union = new Set<string>();
  for (const refSentence of ref) {
    const x = refSentence.split(' ');
    for (const hypSentence of hyp) for (const t of lcsTokensPltrdy(x, hypSentence.split(' '))) union.add(t);
  }
  const recall = union.size / m;
  const precision = union.size / n;
  return { precision, recall, f: pltrdyF(precision, recall) };
}

/** One prediction (hyp) against one reference (ref). */
export function pltrdyRouge(type: PltrdyRougeType, prediction: string, reference: string): PrfScore {
  const hyp = pltrdySentences(prediction);
  const ref = pltrdySentences(reference);
  if (hyp.length === 0 || ref.length === 0) return { ...ZERO_PRF }; // pltrdy: ValueError; RichRAG: 0
  if (type === 'rouge-l') return rougeLSummarySentences(hyp, ref);
  return rougeNSentences(hyp, ref, type === 'rouge-1' ? 1 : 2);
}

/** Several references: the one with the highest F, first on ties (RichRAG's max over references). */
export function pltrdyRougeMulti(type: PltrdyRougeType, prediction: string, references: readonly string[]): PrfScore {
  return bestByF(references, (ref) => pltrdyRouge(type, prediction, ref));
}

/**
 * pltrdy `get_scores(hyps, refs, avg=True)`: the plain arithmetic mean of each of P, R, F over the
 * pairs (no bootstrap, no micro-averaging of counts).
 */
export function pltrdyAverage(scores: readonly PrfScore[]): PrfScore {
  if (scores.length === 0) throw new RangeError('pltrdy averaging needs at least one score (it divides by the count)');
  const sum = scores.reduce((a, s) => ({ precision: a.precision + s.precision, recall: a.recall + s.recall, f: a.f + s.f }), { ...ZERO_PRF });
  return { precision: sum.precision / scores.length, recall: sum.recall / scores.length, f: sum.f / scores.length };
}
