/**
 * The generic run API as every kind's views use it: runs.metrics and runs.items answer with a
 * union on `kind`; these narrow it to the view's kind (another kind is an error shown once), so a
 * view is written against its own kind's types and loads the same way as every other kind.
 */
import type { ApiInput, ItemsOf, MetricsOf, RunKind } from '$contract';
import { api } from '../../api/client';
import { attempt, showError } from '../../state/errors.svelte';

function ofKind<K extends RunKind, T extends { kind: string }>(kind: K, value: T | undefined, runId: number, title: string): Extract<T, { kind: K }> | undefined {
  if (!value) return undefined;
  if (value.kind !== kind) {
    showError(new Error(`run ${runId} is a '${value.kind}' run, not '${kind}'`), title);
    return undefined;
  }
  return value as Extract<T, { kind: K }>;
}

/** runs.metrics of a run of kind K. */
export async function loadRunMetrics<K extends RunKind>(kind: K, runId: number): Promise<MetricsOf<K> | undefined> {
  const title = 'Could not compute the metrics';
  return ofKind(kind, await attempt(title, () => api.call('runs.metrics', { runId })), runId, title);
}

/** One page of runs.items of a run of kind K. */
export async function loadRunItems<K extends RunKind>(kind: K, input: ApiInput<'runs.items'>, title = 'Could not load the items'): Promise<ItemsOf<K> | undefined> {
  return ofKind(kind, await attempt(title, () => api.call('runs.items', input)), input.runId, title);
}

/** Each kind's drill-down item (for the kinds whose item is a query: its full per-query view). */
type QueryItem = { [K in RunKind]: ItemsOf<K>['items'][number] };

/** The drill-down item of one query of a run of such a kind. */
export async function loadQueryItem<K extends keyof QueryItem>(kind: K, runId: number, queryId: string): Promise<QueryItem[K] | undefined> {
  const page = (await loadRunItems(kind, { runId, queryId, limit: 1 }, 'Could not load the query')) as { items: QueryItem[K][] } | undefined;
  return page?.items[0];
}
