import { EngineError } from '../types';
import { LinkedSignal } from './linkedSignal';

/**
 * Waits for a promise that others share (so it cannot take this caller's signal), while letting
 * this caller stop waiting when its own signal aborts.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new EngineError('aborted', `${what}: cancelled`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new EngineError('aborted', `${what}: cancelled`));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs tasks together; the first failure aborts the others (they would be wasted work) and is
 * the error reported.
 */
export async function allOrAbort<T, R>(
  items: readonly T[],
  signal: AbortSignal | undefined,
  task: (item: T, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const group = new LinkedSignal(signal);
  try {
    return await Promise.all(
      items.map((item) =>
        task(item, group.signal).catch((error: unknown) => {
          group.abort();
          throw error;
        }),
      ),
    );
  } finally {
    group.dispose();
  }
}
