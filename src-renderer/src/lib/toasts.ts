/**
 * Pure rules of the message surface (issue 26 item 3), kept apart from the Svelte state so they are
 * unit-tested under Node:
 *  - an error identical to one shown (same kind, title, message, field and screen) is not stacked
 *    again: the shown one counts it (×3) and moves to the end (newest);
 *  - at most MAX_TOASTS per screen: the oldest beyond that are dropped;
 *  - API field paths (`folders[0]`, `spec.retrieval.k`) read as the UI's labels (`Folder 1`,
 *    `Retrieval → k`), in the field line and in the message, never as raw bracket paths.
 */

export interface Toast {
  id: number;
  kind: 'error' | 'notice';
  title: string;
  message: string;
  /** The field as the UI names it (a label, not the API path). */
  field: string | undefined;
  scope: string;
  /** How many times this toast was raised. */
  count: number;
}

export const MAX_TOASTS = 4;

/** The list with `t` added: merged into an identical toast of the same screen, then capped per screen. */
export function addToast(list: readonly Toast[], t: Toast, cap = MAX_TOASTS): Toast[] {
  const same = list.find((e) => e.kind === t.kind && e.title === t.title && e.message === t.message && e.field === t.field && e.scope === t.scope);
  const next = same ? [...list.filter((e) => e !== same), { ...same, count: same.count + t.count }] : [...list, t];
  const inScope = next.filter((e) => e.scope === t.scope);
  const drop = new Set(inScope.slice(0, Math.max(0, inScope.length - cap)));
  return next.filter((e) => !drop.has(e));
}

/** Labels of API field names where the UI's wording differs from the name made readable. */
const NAMES: Record<string, string> = {
  folders: 'Folders',
  files: 'Files',
  k: 'k',
  n: 'n',
  alpha: 'α',
  alphas: 'α values',
  topK: 'Top k',
  docId: 'Document id',
  queryId: 'Query id',
  collectionId: 'Collection',
  modelId: 'Model',
  runId: 'Run',
  id: 'Id',
  qrels: 'Qrels',
  customId: 'Custom id',
};

function readable(name: string): string {
  if (NAMES[name] !== undefined) return NAMES[name];
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.length > 2 ? words[0]!.toUpperCase() + words.slice(1) : words;
}

function singular(label: string): string {
  if (label === 'α values') return 'α';
  return /[^s]s$/.test(label) ? label.slice(0, -1) : label;
}

/**
 * An API field path as the UI names it: `folders[0]` → `Folder 1`, `spec.retrieval.k` →
 * `Retrieval → k`, `spec.conditions[2].alpha` → `Condition 3 → α`. The leading `spec` / `input` is
 * dropped; indices count from 1; unknown names are made readable (camelCase and _ split into words).
 */
export function fieldLabel(path: string): string {
  const parts: string[] = [];
  for (const raw of path.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(raw);
    if (!m) {
      parts.push(readable(raw.replace(/[[\]]/g, ' ').trim()));
      continue;
    }
    const [, name = '', brackets = ''] = m;
    const indices = [...brackets.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]) + 1);
    if (/^\d+$/.test(name)) {
      // `files.0` (a numeric segment): the item of the previous part.
      const prev = parts.pop();
      parts.push(`${prev ? singular(prev) : 'Item'} ${Number(name) + 1}`);
      continue;
    }
    if (name === '' && indices.length) {
      const prev = parts.pop();
      parts.push(`${prev ? singular(prev) : 'Item'} ${indices.join('.')}`);
      continue;
    }
    const label = readable(name);
    parts.push(indices.length ? `${singular(label)} ${indices.join('.')}` : label);
  }
  if (parts.length > 1 && /^(spec|input)$/i.test(path.split(/[.[]/)[0] ?? '')) parts.shift();
  return parts.join(' → ');
}

/** The message with the API's field path replaced by the field's label. */
export function labelMessage(message: string, field: string | undefined): string {
  if (!field) return message;
  const label = fieldLabel(field);
  if (message.startsWith(`${field}: `)) return `${label}: ${message.slice(field.length + 2)}`;
  return /[.[]/.test(field) ? message.split(field).join(label) : message;
}
