/**
 * FTS5 `snippet()`/`highlight()` insert markers around matched terms but do not escape the text, so
 * a document containing `<script>` would be live HTML if the markers were `<mark>`. Instead the
 * queries ask for two control characters as markers (STX U+0002 and ETX U+0003, which text
 * documents do not contain), and this turns the result into HTML: the text escaped, the markers
 * replaced by `<mark>`/`</mark>`. Marks are always balanced (a stray marker is dropped, an open
 * mark is closed), so the result can be rendered with `{@html}` safely.
 */

export const MARK_OPEN = '\u0002';
export const MARK_CLOSE = '\u0003';
/** SQL expressions for the two markers, for use inside snippet()/highlight(). */
export const SQL_MARK_OPEN = 'char(2)';
export const SQL_MARK_CLOSE = 'char(3)';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export function markedToHtml(marked: string): string {
  let out = '';
  let open = false;
  let plain = '';
  const flush = () => {
    out += escapeHtml(plain);
    plain = '';
  };
  for (const ch of marked) {
    if (ch === MARK_OPEN) {
      if (!open) {
        flush();
        out += '<mark>';
        open = true;
      }
    } else if (ch === MARK_CLOSE) {
      if (open) {
        flush();
        out += '</mark>';
        open = false;
      }
    } else {
      plain += ch;
    }
  }
  flush();
  if (open) out += '</mark>';
  return out;
}

/** A word of a marked text: its span and whether it lies inside a mark. */
export interface MarkedWord {
  start: number;
  end: number;
  marked: boolean;
  /** The word lower-cased, for counting distinct matched words. */
  text: string;
}

export function markedWords(marked: string): MarkedWord[] {
  const words: MarkedWord[] = [];
  let inside = false;
  let from = 0;
  for (const m of marked.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    // The last marker between the previous word and this one says whether this word is marked.
    for (let i = from; i < m.index; i++) {
      const c = marked[i];
      if (c === MARK_OPEN) inside = true;
      else if (c === MARK_CLOSE) inside = false;
    }
    words.push({ start: m.index, end: m.index + m[0].length, marked: inside, text: m[0].toLowerCase() });
    from = m.index + m[0].length;
  }
  return words;
}

/**
 * 1,000 per distinct matched word and 1 per further match: FTS5's snippet() scoring (fts5_aux.c),
 * which counts by query phrase (stemmed forms together) where this counts by the word as written.
 */
export function passageScore(words: readonly Pick<MarkedWord, 'marked' | 'text'>[], start: number, count: number): number {
  const distinct = new Set<string>();
  let matches = 0;
  for (let i = start; i < Math.min(words.length, start + count); i++) {
    const w = words[i]!;
    if (!w.marked) continue;
    matches++;
    distinct.add(w.text);
  }
  return distinct.size * 1000 + matches - distinct.size;
}

/**
 * The passage of at most `count` words of a `highlight()` text with the best score (passageScore:
 * the most distinct matched words, then the most matches; the earliest of equals), moved back by up
 * to a quarter of its length where that loses no match, so a match does not open it; "…" where it
 * cuts the text. What `snippet()` gives, for texts on which FTS5's own passage search is too slow:
 * it scores a passage at every match against every other match, quadratic in the matches (2.2 s for
 * two common words in a megabyte, and four times that for twice the text). Here each candidate
 * starts at a match and counts its `count` words: linear in the matches. Words are runs of letters
 * and digits, close to FTS5's unicode61 tokens.
 */
export function passageOfHighlighted(marked: string, count: number): string {
  const words = markedWords(marked);
  if (words.length === 0) return marked;
  const n = Math.max(1, count);
  const last = Math.max(0, words.length - n);
  // Every window's matches lie within the window that starts at its first match (or the last window),
  // so the best of these candidates is the best of all windows.
  let best = 0;
  let bestScore = passageScore(words, 0, n);
  let previous = 0;
  for (let i = 0; i < words.length; i++) {
    if (!words[i]!.marked) continue;
    const s = Math.min(i, last);
    if (s === previous) continue;
    previous = s;
    const score = passageScore(words, s, n);
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  // Room before the first match, taken from after the last one.
  let lastMatch = -1;
  for (let i = best; i < Math.min(words.length, best + n); i++) if (words[i]!.marked) lastMatch = i;
  if (lastMatch >= 0) {
    const slack = Math.min(Math.floor(n / 4), best, best + n - 1 - lastMatch);
    best -= Math.max(0, slack);
  }
  const first = words[best]!;
  const end = words[Math.min(words.length, best + n) - 1]!;
  let body = marked.slice(first.start, end.end);
  if (first.marked) body = MARK_OPEN + body;
  if (end.marked) body += MARK_CLOSE;
  const before = best > 0 ? '…' : '';
  const after = best + n < words.length ? '…' : '';
  return `${before}${body}${after}`;
}
