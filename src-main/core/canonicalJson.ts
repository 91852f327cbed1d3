/**
 * The one canonical JSON of Fairground: object keys sorted at every level (code-unit order), no
 * whitespace, `undefined` members dropped, numbers as JS prints them, so equal values give equal
 * text. Call-cache keys are hashed from it and every JSON column of the workspace is written with
 * it (the import's no-op and conflict checks compare text; content hashes are well defined).
 *
 * Numbers JSON cannot carry (NaN, ±Infinity) are refused: JSON.stringify would turn them into
 * null, so two different values would share a key or a stored value would change silently.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError(`canonical JSON cannot carry ${v} (JSON has no NaN or Infinity)`);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
  });
}
