/**
 * - `not-found`: the server has no such file (404/410).
 * - `http-error`: any other refusal (401/403 for gated or private repositories, 5xx after retries…).
 * - `network`: the connection failed or stalled; the partial file is kept, so running again resumes.
 * - `checksum-mismatch`: the bytes are not the expected ones; the partial file has been deleted.
 * - `disk`: the destination could not be written (full, read-only, no permission).
 * - `aborted`: cancelled; the partial file is kept for a later resume.
 */
export type DownloadErrorCode = 'not-found' | 'http-error' | 'network' | 'checksum-mismatch' | 'disk' | 'aborted';

export class DownloadError extends Error {
  constructor(
    readonly code: DownloadErrorCode,
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DownloadError';
  }

  /** Worth another try (resuming): a lost connection, or a server that is busy or failing. */
  get transient(): boolean {
    if (this.code === 'network') return true;
    return this.code === 'http-error' && this.status !== undefined && (this.status === 429 || this.status >= 500);
  }
}
