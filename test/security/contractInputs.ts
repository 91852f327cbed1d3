/**
 * Inputs for every API method, made from the contract's zod schemas (zod 4 definitions), so a
 * security test covers methods added after it was written. Strings that look like file-system
 * locations (by their key) get a caller-chosen value; the rest get small valid values, repaired
 * from the schema's own validation errors until the input parses (or a few tries run out — then
 * the call is still made and must fail validation).
 */
import type { z } from 'zod';

/** Keys whose string values a method may treat as a file-system location. */
export const PATH_KEY = /path|file|dir|folder|model|output|dest|target|location/i;

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  valueType?: z.ZodType;
  options?: z.ZodType[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  in?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Paths (key lists) of every string leaf whose key matches PATH_KEY. */
export function pathFields(schema: z.ZodType, prefix: (string | number)[] = [], seen = new Set<z.ZodType>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const d = defOf(schema);
  const out: string[] = [];
  const key = String(prefix[prefix.length - 1] ?? '');
  switch (d.type) {
    case 'object':
      for (const [k, v] of Object.entries(d.shape ?? {})) out.push(...pathFields(v, [...prefix, k], seen));
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      out.push(...pathFields(d.innerType!, prefix, seen));
      break;
    case 'array':
      out.push(...pathFields(d.element!, [...prefix, '[]'], new Set()));
      break;
    case 'union':
      for (const o of d.options ?? []) out.push(...pathFields(o, prefix, seen));
      break;
    case 'pipe':
      out.push(...pathFields(d.in!, prefix, seen));
      break;
    case 'string': {
      const named = prefix.filter((p) => p !== '[]').map(String);
      if (PATH_KEY.test(key === '[]' ? String(named[named.length - 1] ?? '') : key)) out.push(named.join('.') + (key === '[]' ? '[]' : ''));
      break;
    }
    default:
      break;
  }
  return [...new Set(out)];
}

export interface SynthOptions {
  /** Value for a path-like string (by key); undefined keeps the ordinary value. */
  pathValue: (key: string) => string | undefined;
  /**
   * Even variants fill every optional field, odd ones leave them out; variant / 2 picks the option
   * of each union (mod its length).
   */
  variant: number;
  /** Ids to use for integer fields whose key ends in `id`/`Id`. */
  id: number;
}

function synth(schema: z.ZodType, key: string, o: SynthOptions, depth: number): unknown {
  if (depth > 12) return undefined;
  const d = defOf(schema);
  switch (d.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(d.shape ?? {})) {
        const value = synth(v, k, o, depth + 1);
        if (value !== undefined) out[k] = value;
      }
      return out;
    }
    case 'optional':
      return o.variant % 2 === 1 ? undefined : synth(d.innerType!, key, o, depth + 1);
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return synth(d.innerType!, key, o, depth + 1);
    case 'string':
      return o.pathValue(key) ?? 'x';
    case 'number':
      return /id$/i.test(key) ? o.id : 1;
    case 'bigint':
      return 1n;
    case 'boolean':
      return false;
    case 'literal':
      return d.values?.[0];
    case 'enum':
      return Object.values(d.entries ?? {})[0];
    case 'array':
      return [synth(d.element!, key, o, depth + 1)];
    case 'tuple':
      return (d.items ?? []).map((it) => synth(it, key, o, depth + 1));
    case 'record':
      return { x: synth(d.valueType!, 'x', o, depth + 1) };
    case 'union': {
      const opts = d.options ?? [];
      return opts.length ? synth(opts[Math.floor(o.variant / 2) % opts.length]!, key, o, depth + 1) : undefined;
    }
    case 'pipe':
      return synth(d.in!, key, o, depth + 1);
    case 'lazy':
      return synth(d.getter!(), key, o, depth + 1);
    case 'intersection':
      return { ...(synth(d.left!, key, o, depth + 1) as object), ...(synth(d.right!, key, o, depth + 1) as object) };
    case 'null':
      return null;
    case 'unknown':
    case 'any':
      return 'x';
    default:
      return undefined;
  }
}

const STRING_TRIES = ['x', 'xx', 'http://127.0.0.1:9/v1', 'x'.repeat(12), 'a@b.co', '2024-01-01T00:00:00Z', 'q1', 'nDCG@10'];
const NUMBER_TRIES = [1, 0, 2, 5, 10, 100, 1000, 0.5, 0.05];

function getAt(root: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], root);
}
function setAt(root: unknown, path: readonly PropertyKey[], value: unknown): void {
  if (path.length === 0) return;
  const parent = getAt(root, path.slice(0, -1)) as Record<PropertyKey, unknown> | undefined;
  if (parent && typeof parent === 'object') parent[path[path.length - 1]!] = value;
}

/** An input for `schema` that parses if small repairs can make it (see the module comment). */
export function synthesizeInput(schema: z.ZodType, o: SynthOptions): unknown {
  return repaired(schema, o).input;
}

/** The input and whether it parses. */
export function repaired(schema: z.ZodType, o: SynthOptions): { input: unknown; valid: boolean } {
  const input = synth(schema, '', o, 0);
  const tried = new Map<string, number>();
  for (let round = 0; round < 40; round++) {
    const r = schema.safeParse(input);
    if (r.success) return { input, valid: true };
    const issue = r.error.issues[0]!;
    const where = issue.path as PropertyKey[];
    const id = where.join('.');
    const n = tried.get(id) ?? 0;
    tried.set(id, n + 1);
    const current = getAt(input, where);
    const key = String(where[where.length - 1] ?? '');
    if (typeof current === 'number') {
      if (n >= NUMBER_TRIES.length) break;
      setAt(input, where, NUMBER_TRIES[n]);
    } else if (typeof current === 'string' && !o.pathValue(key)) {
      if (n >= STRING_TRIES.length) break;
      setAt(input, where, STRING_TRIES[n]);
    } else if (Array.isArray(current) && issue.code === 'too_small') {
      if (n > 3) break;
      current.push(structuredClone(current[0]));
    } else if (current === undefined && o.pathValue(key) !== undefined && n === 0) {
      // "give either path or file": a refinement that wants the left-out path.
      setAt(input, where, o.pathValue(key));
    } else if (current !== undefined && issue.code === 'custom' && n === 0) {
      // A refinement against a filled optional field ("not both"): leave it out.
      const parent = getAt(input, where.slice(0, -1)) as Record<PropertyKey, unknown>;
      delete parent[where[where.length - 1]!];
    } else if (issue.code === 'unrecognized_keys' && 'keys' in issue) {
      const parent = getAt(input, where) as Record<string, unknown>;
      for (const k of issue.keys as string[]) delete parent[k];
    } else break;
  }
  return { input, valid: schema.safeParse(input).success };
}
