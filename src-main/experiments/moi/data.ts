/**
 * What a MoI run reads from the workspace for each query: the question, its reference answers, the
 * N passages in retriever order φ (0 = the retriever's best) with their retriever scores, and which
 * of them are gold (utility labels, else relevance judgments, label ≥ gold.minLabel).
 *
 * The candidate pool of `bm25` and `candidate-order` is the query's candidate set, else the
 * documents judged for it. A query without passages (fewer than 2), without a reference answer or
 * without a usable metric is skipped with a reason; a listed query id the collection does not have
 * is an error naming `queries[i]`.
 */
import type { MoiSpec } from '../../api/contract/moi';
import { DataError } from '../../core/errors';
import { bm25Scores } from '../../core/retrieval/bm25';
import { topK } from '../../core/retrieval/ranking';
import { FAIR_RAG_TOKENIZER } from '../../core/retrieval/tokenizer';
import { documentText } from '../../retrieval/dense/embedDocuments';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { QueryRow } from '../../store/collectionTypes';
import type { ExperimentDeps } from '../registry';
import { answerScorer, type AnswerScorer } from './answerMetrics';
import { selectQueries } from '../selectQueries';

export interface PassageDoc {
  /** = docId (what a prompt template sees as {{id}}). */
  id: string;
  docId: string;
  title: string;
  text: string;
  attrs: Record<string, unknown>;
  retrieverScore: number | null;
  /** null: no judgments for the query (gold unknown). */
  gold: boolean | null;
}

export interface MoiQueryData {
  queryId: string;
  text: string;
  answers: string[];
  task: string | null;
  scorer: AnswerScorer;
  /** Retriever order φ, length n ≤ spec.n. */
  passages: PassageDoc[];
  /** Where gold labels came from (null: none known). */
  goldSource: 'utility' | 'relevance' | null;
}

export interface MoiData {
  collection: { id: number; name: string; contentHash: string };
  queries: MoiQueryData[];
  skipped: { queryId: string; reason: string }[];
}

type LoadSpec = Pick<MoiSpec, 'collection' | 'queries' | 'tasks' | 'retriever' | 'n' | 'metric' | 'extraMetrics' | 'gold'>;

export function loadMoiData(spec: LoadSpec, deps: Pick<ExperimentDeps, 'collections' | 'retrievalRuns'>): MoiData {
  const repo = deps.collections;
  const collection = repo.byName(spec.collection);
  if (!collection) throw new DataError(`no collection named '${spec.collection}' in the workspace`, { field: 'collection' });
  if (spec.retriever.method === 'run') {
    const run = deps.retrievalRuns.run(spec.retriever.params.runId);
    if (!run) throw new DataError(`no retrieval run with id ${spec.retriever.params.runId}`, { field: 'retriever.params.runId' });
    if (run.collectionId !== collection.id) throw new DataError(`retrieval run ${run.id} belongs to another collection`, { field: 'retriever.params.runId' });
  }
  const queries: MoiQueryData[] = [];
  const skipped: { queryId: string; reason: string }[] = [];
  for (const q of selectQueries(repo, collection, spec.queries)) {
    if (spec.tasks && !spec.tasks.includes(q.task ?? '')) continue;
    const result = queryData(spec, deps, collection.id, q);
    if ('reason' in result) skipped.push({ queryId: q.queryId, reason: result.reason });
    else queries.push(result);
  }
  return { collection: { id: collection.id, name: collection.name, contentHash: collection.contentHash }, queries, skipped };
}

function queryData(spec: LoadSpec, deps: Pick<ExperimentDeps, 'collections' | 'retrievalRuns'>, collectionId: number, q: QueryRow): MoiQueryData | { reason: string } {
  const repo = deps.collections;
  if (q.answers.length === 0) return { reason: 'no reference answer' };
  const scorer = answerScorer(spec, q.metric);
  if ('error' in scorer) return { reason: scorer.error };
  const judgments = repo.judgmentsOf(collectionId, q.queryId);
  const labels = { utility: new Map<string, number>(), relevance: new Map<string, number>() };
  for (const j of judgments) labels[j.kind].set(j.docId, j.label);
  const goldSource = spec.gold.source === 'auto' ? (labels.utility.size > 0 ? 'utility' : labels.relevance.size > 0 ? 'relevance' : null) : labels[spec.gold.source].size > 0 ? spec.gold.source : null;
  const goldLabels = goldSource ? labels[goldSource] : null;

  let ranked: { docId: string; score: number | null }[];
  const r = spec.retriever;
  if (r.method === 'run') {
    ranked = deps.retrievalRuns.results(r.params.runId, { queryId: q.queryId, perQuery: spec.n }).map((x) => ({ docId: x.docId, score: x.score }));
    if (ranked.length === 0) return { reason: `retrieval run ${r.params.runId} has no results for the query` };
  } else {
    const pool = [...new Set(q.candidates ?? judgments.map((j) => j.docId))];
    if (pool.length === 0) return { reason: 'no candidates (no candidate set and no judgments; use a stored retrieval run)' };
    if (r.method === 'candidate-order') ranked = pool.slice(0, spec.n).map((docId) => ({ docId, score: null }));
    else {
      const docs = pool.map((id) => requireDoc(repo, collectionId, q.queryId, id));
      const tokenizer = r.params.tokenizer === 'whitespace' ? FAIR_RAG_TOKENIZER : { mode: 'words' as const };
      const { k1, b, idf, epsilon } = r.params;
      const scores = bm25Scores(
        q.text,
        docs.map((d) => documentText(d.title, d.text)),
        { params: { k1, b, idf, epsilon }, tokenizer },
      );
      ranked = topK(
        pool.map((id, i) => ({ id, score: scores[i]! })),
        spec.n,
      ).map((h) => ({ docId: h.id, score: h.score }));
    }
  }
  if (ranked.length < 2) return { reason: `${ranked.length} passage(s): MoI needs at least 2` };
  const passages = ranked.map(({ docId, score }): PassageDoc => {
    const d = requireDoc(repo, collectionId, q.queryId, docId);
    return { id: docId, docId, title: d.title, text: d.text, attrs: d.attrs, retrieverScore: score, gold: goldLabels ? (goldLabels.get(docId) ?? Number.NEGATIVE_INFINITY) >= spec.gold.minLabel : null };
  });
  return { queryId: q.queryId, text: q.text, answers: q.answers, task: q.task, scorer, passages, goldSource };
}

function requireDoc(repo: CollectionsRepo, collectionId: number, queryId: string, docId: string) {
  const d = repo.getDocument(collectionId, docId);
  if (!d) throw new DataError(`query '${queryId}' refers to document '${docId}', which is not in the collection`, { field: 'collection' });
  return d;
}
