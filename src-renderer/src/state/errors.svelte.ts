/**
 * Toasts: every failed API call lands here, and screens can post notices. A toast belongs to the
 * screen that raised it and shows only there (or everywhere when raised with scope 'app', for
 * failures of the shell itself). Notices dismiss themselves; errors stay until dismissed. The
 * surface sits in its own row of the page grid, so it never covers controls. Issue 26 item 3:
 * identical toasts are counted (×3) instead of stacked, each screen shows at most MAX_TOASTS, and
 * API field paths read as the UI's labels (lib/toasts).
 */
import { ApiCallError } from '../api/client';
import { addToast, fieldLabel, labelMessage, type Toast } from '../lib/toasts';
import { route } from './route.svelte';

export type ToastKind = Toast['kind'];
export type ShownError = Toast;

let nextId = 1;
/** How long a notice stays (errors stay until dismissed). */
export const NOTICE_MS = 6000;

export const errors = $state<{ list: ShownError[] }>({ list: [] });

/** The toasts the current screen shows. */
export function visibleToasts(): ShownError[] {
  return errors.list.filter((e) => e.scope === 'app' || e.scope === route.screen);
}

function push(t: Omit<Toast, 'id' | 'count'>): number {
  const id = nextId++;
  errors.list = addToast(errors.list, { ...t, id, count: 1 });
  // A merged toast keeps its first id.
  return errors.list.find((e) => e.kind === t.kind && e.title === t.title && e.message === t.message && e.field === t.field && e.scope === t.scope)?.id ?? id;
}

export function showError(err: unknown, title = 'Something went wrong', scope: string = route.screen): void {
  const raw = err instanceof Error ? err.message : String(err);
  const apiField = err instanceof ApiCallError ? err.field : undefined;
  push({
    kind: 'error',
    title: err instanceof ApiCallError ? `${title} (${err.code})` : title,
    message: labelMessage(raw, apiField),
    field: apiField === undefined ? undefined : fieldLabel(apiField),
    scope,
  });
}

/** A passing notice ("Exported …"): dismisses itself after NOTICE_MS. */
export function notify(title: string, message = '', scope: string = route.screen): void {
  const id = push({ kind: 'notice', title, message, field: undefined, scope });
  setTimeout(() => dismissError(id), NOTICE_MS);
}

export function dismissError(id: number): void {
  errors.list = errors.list.filter((e) => e.id !== id);
}

/** Dismiss every toast the current screen shows. */
export function dismissShown(): void {
  const shown = visibleToasts().map((e) => e.id);
  errors.list = errors.list.filter((e) => !shown.includes(e.id));
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
