/**
 * Python's notion of whitespace, for the text metrics whose reference implementations call
 * `str.split()` / `str.strip()` with no arguments (pltrdy `rouge`, SQuAD `normalize_answer`, LaMP's
 * `.strip()`).
 *
 * Why not JS `\s` / `trim()`: Python's `str.isspace()` also counts U+001C..U+001F (file/group/record/
 * unit separators) and U+0085 (NEL) as whitespace, and does NOT count U+FEFF (BOM / ZWNBSP), which JS
 * does. Using JS semantics would split or keep tokens differently from the papers' code on such input.
 * The set below is every code point for which CPython's `str.isspace()` is true (bidi class WS/B/S or
 * category Zs).
 */
const PY_WHITESPACE_CLASS = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const RUN_RE = new RegExp(`[${PY_WHITESPACE_CLASS}]+`);
const STRIP_RE = new RegExp(`^[${PY_WHITESPACE_CLASS}]+|[${PY_WHITESPACE_CLASS}]+$`, 'g');

/** Python `text.split()`: split on whitespace runs, no empty strings at either end. */
export function pySplit(text: string): string[] {
  return text.split(RUN_RE).filter((t) => t !== '');
}

/** Python `text.strip()`: remove leading and trailing whitespace. */
export function pyStrip(text: string): string {
  return text.replace(STRIP_RE, '');
}
