/**
 * Toasts: every failed API call lands here (shown verbatim), and screens can post notices.
 * A toast belongs to the screen that raised it and shows only there (or everywhere when raised
 * with scope 'app', for failures of the shell itself). Notices dismiss themselves; errors stay
 * until dismissed. The surface sits in its own row of the page grid, so it never covers controls.
 */
import { ApiCallError } from '../api/client';
import { route } from './route.svelte';

export type ToastKind = 'error' | 'notice';

export interface ShownError {
  id: number;
  kind: ToastKind;
  title: string;
  message: string;
  field: string | undefined;
  /** The screen that raised it, or 'app'. */
  scope: string;
}

let nextId = 1;
/** How long a notice stays (errors stay until dismissed). */
export const NOTICE_MS = 6000;

export const errors = $state<{ list: ShownError[] }>({ list: [] });

/** The toasts the current screen shows. */
export function visibleToasts(): ShownError[] {
  return errors.list.filter((e) => e.scope === 'app' || e.scope === route.screen);
}

export function showError(err: unknown, title = 'Something went wrong', scope: string = route.screen): void {
  const message = err instanceof Error ? err.message : String(err);
  const field = err instanceof ApiCallError ? err.field : undefined;
  errors.list.push({ id: nextId++, kind: 'error', title: err instanceof ApiCallError ? `${title} (${err.code})` : title, message, field, scope });
}

/** A passing notice ("Exported …"): dismisses itself after NOTICE_MS. */
export function notify(title: string, message = '', scope: string = route.screen): void {
  const id = nextId++;
  errors.list.push({ id, kind: 'notice', title, message, field: undefined, scope });
  setTimeout(() => dismissError(id), NOTICE_MS);
}

export function dismissError(id: number): void {
  errors.list = errors.list.filter((e) => e.id !== id);
}

/** Run an API action; errors go to the surface and the result is undefined. */
export async function attempt<T>(title: string, fn: () => Promise<T>, scope?: string): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    showError(err, title, scope);
    return undefined;
  }
}
