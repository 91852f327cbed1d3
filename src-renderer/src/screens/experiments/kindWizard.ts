/**
 * Shared by the compact MoI and RichRAG wizards: the basics every kind has (name, collection, query
 * subset, generator), loading what they choose from, and "Create and run" (experiments.create, then
 * experiments.run; the job goes to the job tray).
 */
import type { ApiOutput } from '$contract';
import { api, ApiCallError } from '../../api/client';
import { attempt } from '../../state/errors.svelte';
import { upsertJob } from '../../state/jobs.svelte';
import { generatorSelector } from './fair-rag/specForm';
import type { Issue, QuerySummary } from './fair-rag/wizard/context';

export type { Issue, QuerySummary };
export { generatorSelector, generatorValue, pathWithin } from './fair-rag/specForm';
export { issueId } from './fair-rag/wizard/context';

export interface BasicsForm {
  name: string;
  description: string;
  collection: string;
  queryMode: 'all' | 'tasks' | 'ids';
  tasks: string[];
  queryIds: string[];
}

export interface KindChoices {
  collections: ApiOutput<'collections.list'>;
  models: ApiOutput<'models.list'>;
  remotes: ApiOutput<'remotes.list'>;
  queries: QuerySummary[];
}

/** A number input's value, or undefined when it is empty (the service then fills the default). */
export type Num = number | null | undefined;
export const isNum = (v: Num): v is number => typeof v === 'number' && !Number.isNaN(v);
/** `{ key: v }` when v is set, else `{}`. */
export const num = <K extends string>(key: K, v: Num): Partial<Record<K, number>> => (isNum(v) ? ({ [key]: v } as Record<K, number>) : {});

/** name, description, collection, queries and tasks of a spec. */
export function basicsToSpec(f: BasicsForm): Record<string, unknown> {
  return {
    name: f.name,
    ...(f.description.trim() ? { description: f.description } : {}),
    collection: f.collection,
    queries: f.queryMode === 'ids' ? f.queryIds : 'all',
    ...(f.queryMode === 'tasks' ? { tasks: f.tasks } : {}),
  };
}

export async function loadChoices(): Promise<Omit<KindChoices, 'queries'>> {
  const [collections, models, remotes] = await Promise.all([
    attempt('Could not list the collections', () => api.call('collections.list', {})),
    attempt('Could not list the models', () => api.call('models.list', {})),
    attempt('Could not list the servers', () => api.call('remotes.list', {})),
  ]);
  return { collections: collections ?? [], models: models ?? [], remotes: remotes ?? [] };
}

/** The first ready library model, else the first server ('' when there is none). */
export function defaultGenerator(c: Omit<KindChoices, 'queries'>, preferred?: string): string {
  const ready = c.models.filter((m) => m.status === 'ready');
  if (preferred && ready.some((m) => m.name === preferred)) return `model:${preferred}`;
  return ready[0] ? `model:${ready[0].name}` : c.remotes[0] ? `remote:${c.remotes[0].name}` : '';
}

export async function loadQueries(collectionId: number): Promise<QuerySummary[]> {
  const queries: QuerySummary[] = [];
  for (let offset = 0; offset < 20_000; offset += 500) {
    const page = await attempt('Could not list the queries', () => api.call('queries.list', { collectionId, offset, limit: 500 }));
    if (!page) break;
    queries.push(...page.items);
    if (queries.length >= page.total || page.items.length === 0) break;
  }
  return queries;
}

/** The tasks of a collection's queries with their counts. */
export function taskCounts(queries: QuerySummary[]): { task: string; count: number }[] {
  const by = new Map<string, number>();
  for (const q of queries) if (q.task) by.set(q.task, (by.get(q.task) ?? 0) + 1);
  return [...by].map(([task, count]) => ({ task, count }));
}

export function toggle<T>(list: T[], value: T, on: boolean): T[] {
  return on ? [...new Set([...list, value])] : list.filter((x) => x !== value);
}

export function selector(value: string): Record<string, unknown> | undefined {
  return generatorSelector(value) as Record<string, unknown> | undefined;
}

export type CreateResult = { ok: true; id: number; message: string } | { ok: false; issue?: Issue; error?: unknown };

/** Create the experiment from a validated spec and start its first run. */
export async function createAndRun(spec: Record<string, unknown>): Promise<CreateResult> {
  let created: ApiOutput<'experiments.create'>;
  try {
    created = await api.call('experiments.create', { spec: spec as { kind: string; name: string } });
  } catch (err) {
    if (err instanceof ApiCallError && err.field?.startsWith('spec.')) return { ok: false, issue: { path: err.field.slice(5), message: err.message.replace(/^spec\.[^:]+: /, '') } };
    return { ok: false, error: err };
  }
  try {
    const job = await api.call('experiments.run', { id: created.id });
    upsertJob(job);
    return { ok: true, id: created.id, message: `Created ${created.name} (version ${created.version}) and started a run.` };
  } catch (err) {
    return { ok: true, id: created.id, message: `Created ${created.name} (version ${created.version}), but the run did not start: ${err instanceof Error ? err.message : String(err)}` };
  }
}
