/**
 * What a RichRAG run reads from the collection: the evaluation queries (spec.queries, spec.tasks) and
 * the training queries of the preference data (spec.preferences.queries, default the evaluation
 * queries), each with its reference answers and golden sub-aspects with sub-answers (the collection's
 * `subaspects`). A query needs both: the answer for F1/ROUGE and the reward's φ(r, a), the sub-answers
 * for com-rouge, the coverage ranker, NCOM and the reward's coverage term. A query that lacks either is
 * skipped with the reason; an explicitly listed id the collection does not have is an error naming
 * its field.
 */
import type { RichRagSpec } from '../../api/contract/richrag';
import { subAnswerWeights } from '../../core/richrag/comRouge';
import { DataError } from '../../core/errors';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { QueryRow } from '../../store/collectionTypes';
import type { QueryPayload } from './items';
import { selectQueries } from '../selectQueries';

export interface RichRagQuery extends QueryPayload {
  queryId: string;
}

export interface RichRagData {
  collection: { id: number; name: string; contentHash: string };
  /** Evaluation queries first (collection order), then training-only queries. */
  queries: RichRagQuery[];
  skipped: { queryId: string; reason: string }[];
}

type LoadSpec = Pick<RichRagSpec, 'collection' | 'queries' | 'tasks' | 'preferences'>;

export function loadRichRagData(spec: LoadSpec, repo: CollectionsRepo): RichRagData {
  const collection = repo.byName(spec.collection);
  if (!collection) throw new DataError(`no collection named '${spec.collection}' in the workspace`, { field: 'collection' });
  const evaluation = selectQueries(repo, collection, spec.queries).filter(
    (q) => !spec.tasks || spec.tasks.includes(q.task ?? ''),
  );
  const training = spec.preferences.enabled ? (spec.preferences.queries ? selectQueries(repo, collection, spec.preferences.queries, 'preferences.queries') : evaluation) : [];
  const trainIds = new Set(training.map((q) => q.queryId));
  const evalIds = new Set(evaluation.map((q) => q.queryId));
  const rows = [...evaluation, ...training.filter((q) => !evalIds.has(q.queryId))];
  const queries: RichRagQuery[] = [];
  const skipped: { queryId: string; reason: string }[] = [];
  for (const q of rows) {
    const reason = unusable(q);
    if (reason) {
      skipped.push({ queryId: q.queryId, reason });
      continue;
    }
    const golden = (q.subaspects ?? []).filter((s) => s.answer.trim() !== '');
    const weights = subAnswerWeights(golden.map((s) => s.answer));
    const qrels: Record<string, number> = {};
    for (const j of repo.judgmentsOf(collection.id, q.queryId)) if (j.kind === 'relevance') qrels[j.docId] = j.label;
    queries.push({
      type: 'query',
      queryId: q.queryId,
      text: q.text,
      answers: q.answers,
      golden: golden.map((s, i) => ({ aspect: s.aspect, answer: s.answer, weight: weights[i]! })),
      candidates: q.candidates,
      roles: { evaluate: evalIds.has(q.queryId), train: trainIds.has(q.queryId) },
      qrels,
    });
  }
  return { collection: { id: collection.id, name: collection.name, contentHash: collection.contentHash }, queries, skipped };
}

function unusable(q: QueryRow): string | null {
  if (q.answers.every((a) => a.trim() === '')) return 'no reference answer';
  if (!(q.subaspects ?? []).some((s) => s.answer.trim() !== '')) return 'no sub-aspects with sub-answers (RichRAG needs them for com-rouge, coverage and rewards)';
  return null;
}

