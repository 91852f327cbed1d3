/**
 * Which parts of an answer match each sub-answer, for the per-query view (pure).
 *
 * Rule: words are runs of letters and digits compared case-insensitively (NFKC); an answer word is
 * marked for sub-answer i when it lies inside a run of at least `minRun` (3) consecutive answer words
 * that also occurs, word for word and contiguously, in a_i — every such common run, not only the
 * longest, found with the longest-common-suffix table of the two word sequences. The answer is cut
 * into segments at every change of the set of sub-answers that mark it; text between words (spaces,
 * punctuation) joins the segment when both neighbours carry the same marks.
 */

export interface Segment {
  text: string;
  /** Indices of the sub-answers this text matches (empty: no match). */
  subAnswers: number[];
}

export const HIGHLIGHT_RULE =
  'An answer word is highlighted for a sub-answer when it lies in a run of at least 3 consecutive words (letters and digits, case-insensitive) that also occurs contiguously in that sub-answer.';

const WORD = /[\p{L}\p{N}]+/gu;

function words(text: string): { word: string; start: number; end: number }[] {
  return [...text.matchAll(WORD)].map((m) => ({ word: m[0].normalize('NFKC').toLowerCase(), start: m.index, end: m.index + m[0].length }));
}

/** Marked[i] = whether answer word i is in a common run of ≥ minRun words with `reference`. */
export function commonRunMask(answer: readonly string[], reference: readonly string[], minRun = 3): boolean[] {
  const marked = new Array<boolean>(answer.length).fill(false);
  let prev = new Array<number>(reference.length + 1).fill(0);
  for (let i = 1; i <= answer.length; i++) {
    const cur = new Array<number>(reference.length + 1).fill(0);
    for (let j = 1; j <= reference.length; j++) {
      if (answer[i - 1] !== reference[j - 1]) continue;
      const run = prev[j - 1]! + 1;
      cur[j] = run;
      if (run >= minRun) for (let t = i - run; t < i; t++) marked[t] = true;
    }
    prev = cur;
  }
  return marked;
}

export function highlightSegments(answer: string, subAnswers: readonly string[], minRun = 3): Segment[] {
  const tokens = words(answer);
  const masks = subAnswers.map((a) =>
    commonRunMask(
      tokens.map((t) => t.word),
      words(a).map((t) => t.word),
      minRun,
    ),
  );
  const marksOf = (i: number): number[] => masks.flatMap((m, s) => (m[i] ? [s] : []));
  const segments: Segment[] = [];
  const push = (text: string, marks: number[]) => {
    if (text === '') return;
    const last = segments[segments.length - 1];
    if (last && last.subAnswers.join() === marks.join()) last.text += text;
    else segments.push({ text, subAnswers: marks });
  };
  let pos = 0;
  tokens.forEach((t, i) => {
    const marks = marksOf(i);
    const gapMarks = i > 0 && marksOf(i - 1).join() === marks.join() ? marks : [];
    push(answer.slice(pos, t.start), gapMarks);
    push(answer.slice(t.start, t.end), marks);
    pos = t.end;
  });
  push(answer.slice(pos), []);
  return segments;
}
