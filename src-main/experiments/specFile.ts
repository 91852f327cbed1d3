/**
 * Experiment specs as files (JSON or YAML) and their validation against the kind's schema. Every
 * problem names the field path as written in the file (`retrievers[1].params.k1`) and the file, so
 * `fairground run SPEC` and the API report the same sentence.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { formatIssuePath } from '../api/contract/define';
import { DataError } from '../core/errors';
import { decodeUtf8 } from '../io/lines';
import type { ExperimentKind, ExperimentRegistry } from './registry';
import { parseJsonText } from '../io/jsonText';
import { humanMessage, humanPath } from './specMessages';

export interface SpecIssue {
  path: string;
  message: string;
}

export type SpecValidation = { ok: true; kind: ExperimentKind; spec: Record<string, unknown> } | { ok: false; issues: SpecIssue[] };

/** Validate a spec object: its `kind` picks the schema; every issue with its field path. */
export function validateSpec(registry: ExperimentRegistry, raw: unknown): SpecValidation {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, issues: [{ path: '', message: 'a spec is an object (a JSON or YAML mapping)' }] };
  const kindName = (raw as { kind?: unknown }).kind;
  if (typeof kindName !== 'string') return { ok: false, issues: [{ path: 'kind', message: `required: one of ${registry.list().map((k) => `'${k.kind}'`).join(', ')}` }] };
  const kind = registry.get(kindName);
  if (!kind) return { ok: false, issues: [{ path: 'kind', message: `unknown experiment kind '${kindName}'; known: ${registry.list().map((k) => k.kind).join(', ')}` }] };
  const parsed = kind.schema.safeParse(raw);
  // Messages for people, not the schema library's texts (issue 17 item 2; specMessages.ts).
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.map((i) => ({ path: formatIssuePath(humanPath(i)), message: humanMessage(i) })) };
  return { ok: true, kind, spec: parsed.data as Record<string, unknown> };
}

/** The validated spec, or a DataError naming the file and the first problem's field (and how many more). */
export function requireValidSpec(registry: ExperimentRegistry, raw: unknown, file?: string): { kind: ExperimentKind; spec: Record<string, unknown> } {
  const v = validateSpec(registry, raw);
  if (v.ok) return v;
  const first = v.issues[0]!;
  const more = v.issues.length > 1 ? ` (and ${v.issues.length - 1} more: ${v.issues.slice(1, 4).map((i) => i.path || '(spec)').join(', ')}${v.issues.length > 4 ? ', …' : ''})` : '';
  throw new DataError(first.message + more, { ...(file !== undefined ? { file } : {}), ...(first.path ? { field: first.path } : {}) });
}

let yamlModule: typeof Yaml | undefined;
/** The YAML parser, loaded by the first YAML spec: a JSON spec (what `fairground run` is mostly given) does not load it at start-up. */
function yaml(): typeof Yaml {
  return (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

/** Parse spec text: JSON for `.json`, YAML otherwise (YAML also reads JSON); errors carry the line. */
export function parseSpecText(text: string, file: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  if (/\.json$/i.test(file)) return parseJsonText(body, file);
  const doc = yaml().parseDocument(body, { prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    // linePos is only filled in with prettyErrors; the offset always is.
    const line = err.linePos?.[0]?.line ?? body.slice(0, err.pos[0]).split('\n').length;
    throw new DataError(`invalid YAML: ${err.message.split('\n')[0]}`, { file, line });
  }
  try {
    // toJS expands aliases: a document of nested aliases (a "billion laughs") is refused past the yaml package's
    // maxAliasCount (100) with a ReferenceError, which is bad input like any other (issue 36 item 6).
    return doc.toJS() as unknown;
  } catch (err) {
    throw new DataError(`invalid YAML: ${(err as Error).message.split('\n')[0]}`, { file });
  }
}

export function readSpecFile(path: string, displayName = path): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: displayName });
  }
  return parseSpecText(decodeUtf8(bytes, displayName), displayName);
}

