/**
 * What a Fair RAG run reads from the collection: the selected queries with their reference answers,
 * their candidate documents (the query's own candidate set, e.g. a LaMP profile, else every document
 * with a utility label for it) and the binary utility labels (label > 0 = useful; Sec. 3.1).
 *
 * Queries that cannot take part are skipped with a reason (no candidates, no reference answer, no
 * usable metric, fewer useful candidates than `minUseful`); an explicitly listed query id that the
 * collection does not have is an error naming `queries[i]`.
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import { DataError } from '../../core/errors';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { QueryRow } from '../../store/collectionTypes';
import { retrievalText } from './retrievalQuery';
import { utilityScorer, type UtilityScorer } from './utility';
import { selectQueries } from '../selectQueries';

export interface CandidateDoc {
  docId: string;
  title: string;
  text: string;
  attrs: Record<string, unknown>;
  useful: boolean;
  provider: string | null;
}

export interface QueryData {
  queryId: string;
  text: string;
  retrievalText: string;
  answers: string[];
  task: string | null;
  candidates: CandidateDoc[];
  scorer: UtilityScorer;
}

export interface FairRagData {
  collection: { id: number; name: string; contentHash: string };
  queries: QueryData[];
  skipped: { queryId: string; reason: string }[];
}

type LoadSpec = Pick<FairRagSpec, 'collection' | 'queries' | 'tasks' | 'minUseful' | 'retrievalQuery' | 'utilityMetric' | 'providerAttribute'>;

export function loadFairRagData(spec: LoadSpec, repo: CollectionsRepo): FairRagData {
  const collection = repo.byName(spec.collection);
  if (!collection) throw new DataError(`no collection named '${spec.collection}' in the workspace`, { field: 'collection' });
  const rows = selectQueries(repo, collection, spec.queries);
  const queries: QueryData[] = [];
  const skipped: { queryId: string; reason: string }[] = [];
  if (spec.tasks) {
    // A task no query of the collection has is a typo, not an empty selection (issue 15 item 1).
    const known = new Set(rows.map((q) => q.task ?? ''));
    spec.tasks.forEach((t, i) => {
      if (!known.has(t)) {
        const list = [...known].filter((k) => k !== '').sort();
        throw new DataError(`no query of collection '${collection.name}' has task '${t}' (its tasks: ${list.length ? list.join(', ') : 'none'})`, { field: `tasks[${i}]` });
      }
    });
  }
  for (const q of rows) {
    if (spec.tasks && !spec.tasks.includes(q.task ?? '')) continue;
    const result = queryData(spec, repo, collection.id, q);
    if ('reason' in result) skipped.push({ queryId: q.queryId, reason: result.reason });
    else queries.push(result);
  }
  if (queries.length === 0) {
    // A run over nothing would "succeed" with 0 queries: fail with the reasons instead.
    const reasons = new Map<string, number>();
    for (const s of skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + 1);
    const why = rows.length === 0 ? `the collection has no queries${spec.queries === 'all' ? '' : ' of those listed'}` : [...reasons].map(([r, n]) => `${n} × ${r}`).join('; ');
    throw new DataError(`no usable query in collection '${collection.name}': ${why}`, { field: 'queries' });
  }
  return { collection: { id: collection.id, name: collection.name, contentHash: collection.contentHash }, queries, skipped };
}

function queryData(spec: LoadSpec, repo: CollectionsRepo, collectionId: number, q: QueryRow): QueryData | { reason: string } {
  if (q.answers.length === 0) return { reason: 'no reference answer' };
  const scorer = utilityScorer(spec, q.metric);
  if ('error' in scorer) return { reason: scorer.error };
  const labels = new Map<string, number>();
  for (const j of repo.judgmentsOf(collectionId, q.queryId)) if (j.kind === 'utility') labels.set(j.docId, j.label);
  const ids = q.candidates ?? [...labels.keys()];
  if (ids.length === 0) return { reason: 'no candidates (no candidate set and no utility labels)' };
  const seen = new Set<string>();
  const candidates: CandidateDoc[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const doc = repo.getDocument(collectionId, id);
    if (!doc) throw new DataError(`query '${q.queryId}' lists candidate '${id}', which is not a document of the collection`, { field: 'collection' });
    const provider = doc.attrs[spec.providerAttribute] ?? doc.attrs.group;
    candidates.push({
      docId: doc.docId,
      title: doc.title,
      text: doc.text,
      attrs: doc.attrs,
      useful: (labels.get(id) ?? 0) > 0,
      provider: provider === undefined || provider === null ? null : String(provider),
    });
  }
  const m = candidates.filter((c) => c.useful).length;
  if (m < spec.minUseful) return { reason: `${m} useful candidate(s), fewer than minUseful = ${spec.minUseful}` };
  return { queryId: q.queryId, text: q.text, retrievalText: retrievalText(q.text, spec.retrievalQuery), answers: q.answers, task: q.task, candidates, scorer };
}
