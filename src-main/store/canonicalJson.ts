/**
 * Canonical JSON: object keys sorted at every level, no whitespace, numbers as JS prints them.
 * Every JSON column of the collection tables is written this way, so equal values are equal text
 * (the import's no-op and conflict checks compare text) and the content hash is well defined.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Parse a JSON column written by `canonicalJson` (null stays null). */
export function parseJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
