/**
 * Paging of a run's drill-down items (`runs.items`), once for every kind. A kind's item is either
 * a stored row of one type (Fair RAG: a sampled ranking, joined with what it points to) or a query
 * of the run turned into its per-query view (MoI, RichRAG); the page, the filters and the total are
 * the same either way. With `condition`, a per-query view keeps only that method or condition.
 */
import { DataError } from '../core/errors';
import type { ExperimentsRepo, RunItem } from '../store/experimentsRepo';
import type { ItemsPage, ItemsQuery } from './registry';

/** A page of stored items whose keys start with `keyPrefix`, filtered by query and condition, mapped to rows. */
export function pageOfItems<R>(repo: ExperimentsRepo, runId: number, keyPrefix: string, query: ItemsQuery, rows: (items: RunItem[]) => R[]): ItemsPage<R> {
  const filter = { queryId: query.queryId, condition: query.condition, keyPrefix };
  return { total: repo.countItems(runId, filter), items: rows(repo.items(runId, filter, { offset: query.offset, limit: query.limit })) };
}

/**
 * A page of the run's queries (one stored item each, keys starting with `queryKeyPrefix`), each as
 * its view over all its items; `view` narrows the view to `query.condition` when one is given (a
 * condition the run has no item of is an error naming those it has).
 */
export function pageOfQueries<R>(
  repo: ExperimentsRepo,
  runId: number,
  queryKeyPrefix: string,
  query: ItemsQuery,
  view: (queryId: string, items: RunItem[], condition: string | undefined) => R,
): ItemsPage<R> {
  if (query.condition !== undefined) {
    const known = repo.conditions(runId);
    if (!known.includes(query.condition)) throw new DataError(`no condition '${query.condition}' in this run (it has ${known.join(', ') || 'none yet'})`, { field: 'condition' });
  }
  const filter = { queryId: query.queryId, keyPrefix: queryKeyPrefix };
  const queryIds = repo.items(runId, filter, { offset: query.offset, limit: query.limit }).map((it) => it.queryId);
  return { total: repo.countItems(runId, filter), items: queryIds.map((qid) => view(qid, repo.items(runId, { queryId: qid }), query.condition)) };
}
