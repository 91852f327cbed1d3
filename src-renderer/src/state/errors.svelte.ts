/** The error surface: every failed API call lands here and is shown verbatim until dismissed. */
import { ApiCallError } from '../api/client';

export interface ShownError {
  id: number;
  title: string;
  message: string;
  field: string | undefined;
}

let nextId = 1;

export const errors = $state<{ list: ShownError[] }>({ list: [] });

export function showError(err: unknown, title = 'Something went wrong'): void {
  const message = err instanceof Error ? err.message : String(err);
  const field = err instanceof ApiCallError ? err.field : undefined;
  errors.list.push({ id: nextId++, title: err instanceof ApiCallError ? `${title} (${err.code})` : title, message, field });
}

export function dismissError(id: number): void {
  errors.list = errors.list.filter((e) => e.id !== id);
}

/** Run an API action; errors go to the surface and the result is undefined. */
export async function attempt<T>(title: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    showError(err, title);
    return undefined;
  }
}
