/**
 * Every JSON column of the workspace is written with core's canonical JSON (keys sorted at every
 * level, no whitespace, NaN and ±Infinity refused rather than stored as null), so equal values are
 * equal text (the import's no-op and conflict checks compare text) and the content hash is well
 * defined.
 */
export { canonicalJson } from '../core/canonicalJson';

/** Parse a JSON column written by `canonicalJson` (null stays null). */
export function parseJsonColumn<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
