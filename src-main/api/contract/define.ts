/**
 * Building blocks of the API contract. Each method is a pair of zod schemas; TypeScript types are
 * inferred from them so validation and types cannot drift apart. This folder is imported by main,
 * preload and renderer alike, so it may import nothing but zod.
 */
import { z } from 'zod';

export interface MethodDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
  summary: string;
}

export function method<I extends z.ZodType, O extends z.ZodType>(input: I, output: O, summary: string): MethodDef<I, O> {
  return { input, output, summary };
}

/**
 * A module's table of methods, built on its first use (issue 25): a process that never serves the API
 * (`fairground run`, which imports a few spec schemas from here) does not build the method tables'
 * hundreds of schemas. index.ts's `contract` calls every table once.
 */
export function lazyMethods<T extends Record<string, MethodDef>>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

export const Empty = z.object({}).strict();

/** Error codes every transport returns verbatim; the UI shows `message` as is. */
export const ApiErrorCode = z.enum([
  'validation', // the request did not match the contract; `field` names the path
  'invalid-data', // user data (a file, a spec) is malformed; `field`/`file`/`line` say where
  'not-found',
  'conflict',
  'workspace',
  'engine',
  'cancelled',
  'unauthorized',
  'forbidden',
  'internal',
]);
export type ApiErrorCode = z.infer<typeof ApiErrorCode>;

export const ApiErrorSchema = z.object({
  code: ApiErrorCode,
  message: z.string(),
  field: z.string().optional(),
  file: z.string().optional(),
  line: z.number().int().optional(),
});
export type ApiErrorBody = z.infer<typeof ApiErrorSchema>;

export type Envelope<T> = { ok: true; data: T } | { ok: false; error: ApiErrorBody };

/** Path of a zod issue in the form researchers read: `spec.alphas[2]`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}
