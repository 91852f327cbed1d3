/**
 * The one API contract: every request, response and pushed event of Fairground, as zod schemas.
 * Electron IPC and HTTP/WebSocket carry exactly these; handlers validate input against them.
 */
import { z } from 'zod';
import { appContract } from './app';
import { collectionsContract } from './collections';
import { conversationsContract } from './conversations';
import { desktopContract } from './desktop';
import { workspacesContract } from './workspaces';
import { evaluationContract } from './evaluation';
import { experimentsContract } from './experiments';
import { Job, jobsContract } from './jobs';
import { labelingContract } from './labeling';
import { modelsContract, TryText } from './models';
import { retrievalContract } from './retrieval';
import { plansContract } from './plans';
import { runsContract } from './runs';
import type { MethodDef } from './define';

export * from './define';
export * from './app';
export * from './collections';
export * from './conversations';
export * from './desktop';
export * from './workspaces';
export * from './jobs';
export * from './evaluation';
export * from './models';
export * from './moi';
export * from './retrieval';
export * from './labeling';
export * from './experiments';
export * from './fairRag';
export { UtilityMetricName } from './kindParts';
export * from './richrag';
export * from './runs';
export * from './plans';

export const contract = {
  ...appContract(),
  ...collectionsContract(),
  ...conversationsContract(),
  ...desktopContract(),
  ...workspacesContract(),
  ...jobsContract(),
  ...evaluationContract(),
  ...modelsContract(),
  ...retrievalContract(),
  ...labelingContract(),
  ...experimentsContract(),
  ...runsContract(),
  ...plansContract(),
} satisfies Record<string, MethodDef>;

export type Contract = typeof contract;
export type ApiMethod = keyof Contract;
export type ApiInput<M extends ApiMethod> = z.input<Contract[M]['input']>;
export type ApiParsedInput<M extends ApiMethod> = z.output<Contract[M]['input']>;
export type ApiOutput<M extends ApiMethod> = z.output<Contract[M]['output']>;

/** Events pushed from main to every connected renderer. */
export const events = {
  'job.updated': Job,
  'models.tryText': TryText,
} as const;
export type ApiEventName = keyof typeof events;
/** One event; distributive, so checking `event` narrows `payload`. */
export type ApiEvent<E extends ApiEventName = ApiEventName> = E extends ApiEventName ? { event: E; payload: z.output<(typeof events)[E]> } : never;

export function isApiMethod(name: string): name is ApiMethod {
  return Object.prototype.hasOwnProperty.call(contract, name);
}

/** The renderer's view of the API, implemented once per transport. */
export interface ApiClient {
  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>>;
  onEvent(listener: (event: ApiEvent) => void): () => void;
}
