/**
 * Maps the contract onto handlers: validates every request against its zod schema, runs the
 * handler, validates (and strips) the response, and turns every failure into a typed error body.
 * Both transports (Electron IPC, HTTP) call `router.call` and nothing else.
 */
import { DataError } from '../core/errors';
import { ApiFailure } from './apiFailure';
import { EngineError } from '../engine/types';
import { WorkspaceError } from '../store/workspace';
import {
  contract,
  formatIssuePath,
  isApiMethod,
  type ApiErrorBody,
  type ApiMethod,
  type ApiOutput,
  type ApiParsedInput,
  type Envelope,
} from './contract/index';

/** Thrown by services for an expected failure with a code the UI understands (defined in ./apiFailure). */
export { ApiFailure };

export type Handler<M extends ApiMethod> = (input: ApiParsedInput<M>) => Promise<ApiOutput<M>> | ApiOutput<M>;
export type Handlers = { [M in ApiMethod]: Handler<M> };

export interface Router {
  call(method: string, rawInput: unknown): Promise<Envelope<unknown>>;
}

export function createRouter(handlers: Handlers, onInternalError: (err: unknown) => void = () => {}): Router {
  return {
    async call(methodName, rawInput) {
      if (!isApiMethod(methodName)) {
        return fail({ code: 'not-found', message: `unknown API method '${methodName}'` });
      }
      const def = contract[methodName];
      const parsed = def.input.safeParse(rawInput ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = formatIssuePath(issue.path);
        return fail({ code: 'validation', message: field ? `${field}: ${issue.message}` : issue.message, ...(field ? { field } : {}) });
      }
      try {
        const handler = handlers[methodName] as (input: unknown) => unknown;
        const result = await handler(parsed.data);
        const out = def.output.safeParse(result);
        if (!out.success) {
          onInternalError(out.error);
          return fail({ code: 'internal', message: `${methodName} produced a response that does not match the contract` });
        }
        return { ok: true, data: out.data };
      } catch (err) {
        const body = toErrorBody(err);
        if (body.code === 'internal') onInternalError(err);
        return fail(body);
      }
    },
  };
}

export function toErrorBody(err: unknown): ApiErrorBody {
  if (err instanceof ApiFailure) return { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) };
  if (err instanceof DataError) {
    return {
      code: 'invalid-data',
      message: err.message,
      ...(err.field !== undefined ? { field: err.field } : {}),
      ...(err.file !== undefined ? { file: err.file } : {}),
      ...(err.line !== undefined ? { line: err.line } : {}),
    };
  }
  if (err instanceof WorkspaceError) return { code: 'workspace', message: err.message };
  if (err instanceof EngineError) return { code: err.code === 'aborted' ? 'cancelled' : 'engine', message: err.message };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

function fail(error: ApiErrorBody): Envelope<never> {
  return { ok: false, error };
}
