/**
 * The error services throw for an expected failure, with a code the UI understands. Its own module
 * (re-exported by router.ts, where it was first defined) so that a service throwing it does not
 * load the router and with it every schema of the API contract: `fairground run` needs only the
 * experiment kinds' schemas, and building the rest cost its start-up about 0.05 s of CPU.
 */
import type { ApiErrorCode } from './contract/define';

export class ApiFailure extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}
