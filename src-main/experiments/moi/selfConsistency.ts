/**
 * Self-consistency over K random permutations (Wang et al. 2023a as MoI's MoA baseline, App. C):
 * one greedy answer per permutation, the most frequent answer wins. The paper does not say how
 * answers are compared; here (notes §2.5):
 *
 * - `exact`: answers are equal when their SQuAD `normalize_answer` forms are equal (lower case, no
 *   ASCII punctuation, no articles, single spaces); the largest class wins, ties → the class whose
 *   first answer came earliest; the class is represented by its earliest answer;
 * - `mbr-f1` (long-form answers, e.g. MS MARCO): minimum-Bayes-risk choice, the answer with the
 *   highest mean SQuAD token F1 to the other K − 1 answers, ties → earliest.
 */
import { squadF1, squadNormalize } from '../../core/text/squadAnswer';

export interface Choice {
  /** Index of the chosen answer among the inputs. */
  index: number;
  /** exact: answers in the chosen class; mbr-f1: the chosen answer's mean F1 to the others. */
  support: number;
}

export function chooseAnswer(answers: readonly string[], rule: 'exact' | 'mbr-f1'): Choice {
  if (answers.length === 0) throw new RangeError('self-consistency needs at least one answer');
  if (rule === 'exact') {
    const classes = new Map<string, { first: number; count: number }>();
    answers.forEach((a, i) => {
      const key = squadNormalize(a);
      const c = classes.get(key);
      if (c) c.count++;
      else classes.set(key, { first: i, count: 1 });
    });
    let best: { first: number; count: number } | undefined;
    for (const c of classes.values()) if (!best || c.count > best.count || (c.count === best.count && c.first < best.first)) best = c;
    return { index: best!.first, support: best!.count };
  }
  if (answers.length === 1) return { index: 0, support: 1 };
  let index = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  answers.forEach((a, i) => {
    let total = 0;
    answers.forEach((b, j) => {
      if (i !== j) total += squadF1(a, b);
    });
    const mean = total / (answers.length - 1);
    if (mean > bestScore) {
      bestScore = mean;
      index = i;
    }
  });
  return { index, support: bestScore };
}
