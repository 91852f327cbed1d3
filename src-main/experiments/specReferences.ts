/**
 * Workspace checks of a schema-valid spec (issue 17 item 2): the collection it names exists, each
 * listed query exists in it (or, with `queries: all`, it has queries at all), and every model or
 * server it names (`generator`, `agent`, a stage's own `generator`) is in this workspace. Each
 * missing thing is one issue naming its field, so the wizard and `fairground run` list them all.
 */
import type { GeneratorSelector } from '../api/contract/experiments';
import { DataError } from '../core/errors';
import type { CollectionsRepo } from '../store/collectionsRepo';
import type { QueryRow } from '../store/collectionTypes';
import { selectQueries } from './selectQueries';
import type { ExperimentKind } from './registry';
import type { SpecIssue } from './specFile';

export interface ReferenceDeps {
  collections: Pick<CollectionsRepo, 'byName' | 'getQuery' | 'counts' | 'list' | 'listQueries'>;
  /** Throws (an Error whose message names what is missing) when the selector names nothing here. */
  resolveGenerator(selector: GeneratorSelector, field: string): unknown;
}

/** Keys whose value is a GeneratorSelector in every kind's spec. */
export const MODEL_KEYS = new Set(['generator', 'agent']);

export function checkSpecReferences(spec: Record<string, unknown>, deps: ReferenceDeps): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const name = spec.collection;
  if (typeof name === 'string') {
    const collection = deps.collections.byName(name);
    if (!collection) {
      const known = deps.collections.list().map((c) => `'${c.name}'`);
      issues.push({
        path: 'collection',
        message: `no collection named '${name}' in this workspace${known.length ? ` (it has ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', …' : ''})` : ' (it has none yet: import one on the Collections screen)'}`,
      });
    } else if (Array.isArray(spec.queries)) {
      spec.queries.forEach((id, i) => {
        if (typeof id === 'string' && !deps.collections.getQuery(collection.id, id)) issues.push({ path: `queries[${i}]`, message: `no query '${id}' in collection '${name}'` });
      });
    } else if (deps.collections.counts(collection.id).queries === 0) {
      issues.push({ path: 'queries', message: `collection '${name}' has no queries: import queries into it first` });
    }
  }
  walk(spec, '', (key, value, path) => {
    if (!MODEL_KEYS.has(key) || value === null || typeof value !== 'object' || Array.isArray(value)) return;
    try {
      deps.resolveGenerator(value as GeneratorSelector, path);
    } catch (err) {
      issues.push({ path, message: err instanceof DataError ? err.reason : err instanceof Error ? err.message : String(err) });
    }
  });
  return issues;
}

/**
 * What a run would refuse only after its run was written (issue 26): its kind's own content checks
 * (`ExperimentKind.checkContent`: e.g. Fair RAG's prompt template and tasks), and a dense retriever's
 * embedding model named by library name. Checked with the references, so the wizard and `fairground
 * run` refuse before anything is written.
 */
export function checkSpecContent(kind: Pick<ExperimentKind, 'checkContent'>, spec: Record<string, unknown>, deps: ReferenceDeps): SpecIssue[] {
  const issues: SpecIssue[] = [...(kind.checkContent?.(spec, deps) ?? [])];
  // A task filter that leaves no query (every kind filters its queries by `tasks`): refused here, so
  // `run`, `run --dry-run` and the wizard say so instead of planning 0 calls (issue 34). A kind's own
  // check of the tasks (Fair RAG names each unknown task) is not repeated.
  if (!issues.some((i) => i.path === 'tasks' || i.path.startsWith('tasks['))) {
    const empty = emptyTaskSelection(spec, deps);
    if (empty) issues.push(empty);
  }
  // A dense retriever's embedding model by library name; a GGUF path is refused as well (a spec opens no file by
  // path: the run would only fail on it).
  if (Array.isArray(spec.retrievers)) {
    spec.retrievers.forEach((r: unknown, i) => {
      const model = (r as { method?: unknown; params?: { model?: unknown } } | null)?.params?.model;
      if ((r as { method?: unknown }).method !== 'dense' || typeof model !== 'string') return;
      try {
        deps.resolveGenerator({ model } as GeneratorSelector, `retrievers[${i}].params.model`);
      } catch (err) {
        issues.push({ path: `retrievers[${i}].params.model`, message: err instanceof DataError ? err.reason : err instanceof Error ? err.message : String(err) });
      }
    });
  }
  return issues;
}

/** The issue of a `tasks` filter that selects none of the spec's queries (listed ids, or all), if it does. */
function emptyTaskSelection(spec: Record<string, unknown>, deps: ReferenceDeps): SpecIssue | undefined {
  if (!Array.isArray(spec.tasks) || typeof spec.collection !== 'string') return undefined;
  const collection = deps.collections.byName(spec.collection);
  if (!collection) return undefined;
  let rows: QueryRow[];
  try {
    rows = selectQueries(deps.collections as CollectionsRepo, collection, Array.isArray(spec.queries) ? (spec.queries as string[]) : 'all');
  } catch {
    return undefined; // an unknown query id: checkSpecReferences names it
  }
  if (rows.length === 0) return undefined; // no queries at all: checkSpecReferences names that
  const wanted = new Set(spec.tasks as unknown[]);
  if (rows.some((q) => wanted.has(q.task ?? ''))) return undefined;
  const theirs = [...new Set(rows.map((q) => q.task).filter((t): t is string => !!t))].sort();
  const asked = (spec.tasks as unknown[]).map((t) => `'${String(t)}'`).join(', ') || 'none';
  const scope = Array.isArray(spec.queries) ? `the ${rows.length} listed quer${rows.length === 1 ? 'y' : 'ies'}` : `the ${rows.length} quer${rows.length === 1 ? 'y' : 'ies'}`;
  return {
    path: 'tasks',
    message: `tasks (${asked}) select none of ${scope} of collection '${collection.name}' (their tasks: ${theirs.length ? theirs.join(', ') : 'none'}): a run would have nothing to compute; choose tasks among theirs, or leave tasks out to use every query`,
  };
}

export function walk(value: unknown, path: string, visit: (key: string, value: unknown, path: string) => void): void {
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, visit));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      visit(k, v, p);
      walk(v, p, visit);
    }
  }
}
