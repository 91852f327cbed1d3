/**
 * SQuAD v1.1 answer metrics (official `evaluate-v1.1.py`): `normalize_answer`, token F1 and exact match,
 * max over the ground truths — RichRAG's F1 (reference note richrag.md §1.7).
 *
 * normalize_answer(s) = white_space_fix(remove_articles(remove_punc(lower(s)))):
 *   lower            Python `str.lower()` (JS `toLowerCase()` has the same Unicode mappings);
 *   remove_punc      drop every ASCII `string.punctuation` character  !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
 *                    (so "U.S." → "us", "don't" → "dont"; non-ASCII punctuation such as "…" or "。" stays);
 *   remove_articles  `re.sub(r"\b(a|an|the)\b", " ", text)` — Python 3's \b is Unicode-aware, so the
 *                    word characters are letters, digits (any script) and "_": "éthe" keeps its "the".
 *                    JS \b is ASCII-only, hence the explicit look-arounds below;
 *   white_space_fix  `" ".join(text.split())` with Python's whitespace set.
 * F1: multiset overlap of the normalised tokens, P = common/|pred|, R = common/|gold|, F = 2PR/(P+R);
 * 0 when nothing is common — including when both are empty (v1.1 behaviour; SQuAD 2.0 scores two empty
 * answers 1, which this module does not do).
 */
import { requireReferences } from './prfScore';
import { pySplit } from './pythonWhitespace';

const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
// Python `\w` for str patterns ≈ Unicode letters, numbers and "_" (marks such as U+0301 are not \w).
const ARTICLE_RE = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function squadNormalize(text: string): string {
  let noPunct = '';
  for (const ch of text.toLowerCase()) if (!ASCII_PUNCTUATION.has(ch)) noPunct += ch;
  return pySplit(noPunct.replace(ARTICLE_RE, ' ')).join(' ');
}

/** SQuAD token F1 of one prediction against one ground truth. */
export function squadF1(prediction: string, groundTruth: string): number {
  const pred = pySplit(squadNormalize(prediction));
  const gold = pySplit(squadNormalize(groundTruth));
  const goldCounts = new Map<string, number>();
  for (const t of gold) goldCounts.set(t, (goldCounts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of pred) {
    const c = goldCounts.get(t) ?? 0;
    if (c > 0) {
      common++;
      goldCounts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / pred.length;
  const recall = common / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

/** SQuAD exact match: 1 iff the normalised strings are equal. */
export function squadExactMatch(prediction: string, groundTruth: string): number {
  return squadNormalize(prediction) === squadNormalize(groundTruth) ? 1 : 0;
}

/** `metric_max_over_ground_truths(squadF1, prediction, groundTruths)`. */
export function squadF1Max(prediction: string, groundTruths: readonly string[]): number {
  requireReferences(groundTruths);
  return Math.max(...groundTruths.map((g) => squadF1(prediction, g)));
}

/** `metric_max_over_ground_truths(exact_match_score, prediction, groundTruths)`. */
export function squadExactMatchMax(prediction: string, groundTruths: readonly string[]): number {
  requireReferences(groundTruths);
  return Math.max(...groundTruths.map((g) => squadExactMatch(prediction, g)));
}

/**
 * RichRAG's answer F1 (richrag.md §1.7, Pitfall 6): the SQuAD max over the ground truths AND over
 * their concatenation `", ".join(gts)` — so a long answer covering several aspects is not penalised
 * against each short one. Separate from `squadF1Max` because plain SQuAD F1 has no such extra term.
 */
export function richRagAnswerF1(prediction: string, groundTruths: readonly string[]): number {
  requireReferences(groundTruths);
  return Math.max(squadF1Max(prediction, groundTruths), squadF1(prediction, groundTruths.join(', ')));
}
