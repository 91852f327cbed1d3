/**
 * Fair RAG's own wizard blockers (its KindUi `blockers` member; the generic ones are in
 * ../designBlockers.ts): no selected query with usable utility labels (Fair RAG reads utility labels,
 * never relevance judgments: a query's candidates are its own candidate set, else the documents
 * labelled for it), and k at least the candidates of every usable query (every arm would show the
 * same documents).
 */
import { plural, type Blocker, type BlockerQuery, type KindBlockers } from '../designBlockers';

/** Fair RAG's candidate count of a query: its own set, else the documents with a utility label for it (experiments/fair-rag/data.ts). */
export const fairRagCandidates = (q: Pick<BlockerQuery, 'candidateCount' | 'utilityJudged'>): number => q.candidateCount ?? q.utilityJudged;

/** The queries a Fair RAG run can use: candidates, a reference answer, and ≥ minUseful useful candidates by their utility labels. */
export function usableFairRag<Q extends BlockerQuery>(selected: readonly Q[], minUseful: number): Q[] {
  return selected.filter((q) => fairRagCandidates(q) > 0 && q.answers > 0 && q.utilityUseful >= minUseful);
}

/** The form's `minUseful` (queries need at least this many useful candidates) and `k` (documents shown). */
export const fairRagBlockers: KindBlockers = (selected, form) => {
  const out: Blocker[] = [];
  const min = Math.max(0, typeof form.minUseful === 'number' ? form.minUseful : 0);
  const k = typeof form.k === 'number' ? form.k : undefined;
  const usable = usableFairRag(selected, min);
  if (usable.length === 0) {
    const labelled = selected.filter((q) => q.utilityJudged > 0).length;
    const withCandidates = selected.filter((q) => fairRagCandidates(q) > 0).length;
    out.push({
      code: 'no-utility-labels',
      path: 'minUseful',
      message:
        labelled === 0 && withCandidates === 0
          ? `None of the ${plural(selected.length, 'selected query', 'selected queries')} has utility labels or a candidate set: Fair RAG reads utility labels, not relevance judgments.`
          : `None of the ${plural(selected.length, 'selected query', 'selected queries')} has ≥ ${min} useful candidates by its utility labels (${labelled} labelled${withCandidates > labelled ? `, ${withCandidates} with candidates` : ''}); relevance judgments do not count.`,
      fix:
        labelled === 0
          ? "label utility on the collection's page (Label utility…, with a retrieval run's top-k as the candidates of queries without their own)"
          : `lower "Useful documents: at least" below ${min}, or label more candidates on the collection's page`,
    });
  } else if (k !== undefined && k >= 1) {
    const smallest = Math.min(...usable.map(fairRagCandidates));
    const largest = Math.max(...usable.map(fairRagCandidates));
    if (k >= largest)
      out.push({
        code: 'k-covers-candidates',
        path: 'k',
        message: `k = ${k} is at least the number of candidates of every usable query (${smallest === largest ? smallest : `${smallest}–${largest}`}): every α arm would show the same documents.`,
        fix: smallest > 1 ? `choose k below ${smallest} (k ≤ ${smallest - 1})` : 'label more candidates per query (a larger top-k of the retrieval run)',
      });
  }
  return out;
};
