/**
 * A signal that aborts when any of its sources does, or when `abort()` is called, and that
 * detaches from its sources on `dispose()`.
 *
 * Used instead of `AbortSignal.any` because the sources here are long-lived (the engine's
 * lifetime, a job's signal) while linked signals are made per call: `AbortSignal.any` keeps every
 * dependant registered on a long-lived source (nodejs/node#55351), so memory grows with calls.
 */
export class LinkedSignal {
  private readonly controller = new AbortController();
  private readonly detachers: Array<() => void> = [];

  constructor(...sources: Array<AbortSignal | undefined>) {
    for (const source of sources) {
      if (!source) continue;
      if (source.aborted) {
        this.abort(source.reason);
        break;
      }
      const onAbort = (): void => this.abort(source.reason);
      source.addEventListener('abort', onAbort, { once: true });
      this.detachers.push(() => source.removeEventListener('abort', onAbort));
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  dispose(): void {
    for (const detach of this.detachers.splice(0)) detach();
  }
}
