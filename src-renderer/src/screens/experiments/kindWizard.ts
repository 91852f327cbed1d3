/**
 * Form helpers every kind's wizard uses: the spec basics (name, collection, query subset), number
 * fields that may be empty, a generator chosen by name (`model:<name>`, `remote:<name>`) as a spec
 * selector and back, and "Create and run" (experiments.create, then experiments.run; the job goes to
 * the job tray). The wizards' shared state (choices, live validation, the MoI and RichRAG form, which problems show) is
 * wizardState.svelte.ts.
 */
import type { ApiOutput, FairRagSpecInput } from '$contract';
import { api, ApiCallError } from '../../api/client';
import { upsertJob } from '../../state/jobs.svelte';
import type { BasicsForm, Issue } from './wizardState.svelte';

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

export function toggle<T>(list: T[], value: T, on: boolean): T[] {
  return on ? [...new Set([...list, value])] : list.filter((x) => x !== value);
}

export function generatorSelector(value: string): FairRagSpecInput['generator'] | undefined {
  const i = value.indexOf(':');
  if (i < 0) return undefined;
  const kind = value.slice(0, i);
  const rest = value.slice(i + 1);
  if (kind === 'model') return { model: rest };
  if (kind === 'remote') return { remote: rest };
  if (kind === 'local-id') return { kind: 'local', modelId: Number(rest) };
  if (kind === 'remote-id') return { kind: 'remote', endpointId: Number(rest) };
  return undefined;
}

export function generatorValue(selector: unknown): string {
  if (!selector || typeof selector !== 'object') return '';
  const s = selector as Record<string, unknown>;
  if (typeof s.model === 'string') return `model:${s.model}`;
  if (typeof s.remote === 'string') return `remote:${s.remote}`;
  if (s.kind === 'local') return `local-id:${String(s.modelId)}`;
  if (s.kind === 'remote') return `remote-id:${String(s.endpointId)}`;
  return '';
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
