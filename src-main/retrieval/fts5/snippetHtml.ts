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
