/**
 * Escaping of plain text for LaTeX text mode (pure: the services' writers and the renderer share
 * it): the ten special characters of the LaTeX book (Lamport, §2.2.1 / The LaTeX Companion)
 * become commands that print them literally, so system names such as `bm25_k1=0.9 & rm3 (10%)` typeset as written; and every non-ASCII character becomes
 * a macro (`unicodeToLatex`), so an exported file compiles with plain pdflatex (no inputenc/unicode
 * setup, no amsmath): Greek letters and relations as `\ensuremath{…}` (valid in text and math),
 * accented Latin letters as accent commands, a combining bar or macron as `\ensuremath{\bar{…}}`.
 */
const REPLACEMENTS: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '#': '\\#',
  '%': '\\%',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
};

export function escapeLatex(text: string): string {
  // One pass, so the braces produced for `\` are not escaped again.
  return unicodeToLatex(text.replace(/[\\{}$&#%_^~]/g, (c) => REPLACEMENTS[c] as string));
}

const GREEK = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi o pi rho varsigma sigma tau upsilon phi chi psi omega'.split(' ');
const GREEK_UPPER: Record<number, string> = { 0x393: 'Gamma', 0x394: 'Delta', 0x398: 'Theta', 0x39b: 'Lambda', 0x39e: 'Xi', 0x3a0: 'Pi', 0x3a3: 'Sigma', 0x3a5: 'Upsilon', 0x3a6: 'Phi', 0x3a8: 'Psi', 0x3a9: 'Omega' };

/** Characters with a macro of their own (text-mode commands, or math wrapped in \ensuremath). */
const SYMBOLS: Record<string, string> = {
  '\u00a0': '~',
  '–': '--',
  '—': '---',
  '‘': '`',
  '’': "'",
  '“': '``',
  '”': "''",
  '…': '\\ldots{}',
  '•': '\\textbullet{}',
  '·': '\\ensuremath{\\cdot}',
  '×': '\\ensuremath{\\times}',
  '÷': '\\ensuremath{\\div}',
  '±': '\\ensuremath{\\pm}',
  '−': '\\ensuremath{-}',
  '≤': '\\ensuremath{\\leq}',
  '≥': '\\ensuremath{\\geq}',
  '≠': '\\ensuremath{\\neq}',
  '≈': '\\ensuremath{\\approx}',
  '→': '\\ensuremath{\\rightarrow}',
  '←': '\\ensuremath{\\leftarrow}',
  '∞': '\\ensuremath{\\infty}',
  '∑': '\\ensuremath{\\sum}',
  '√': '\\ensuremath{\\surd}',
  '∈': '\\ensuremath{\\in}',
  '∅': '\\ensuremath{\\emptyset}',
  '†': '\\ensuremath{^{\\dagger}}',
  '‡': '\\ensuremath{^{\\ddagger}}',
  '§': '\\S{}',
  '°': '\\ensuremath{^{\\circ}}',
  'µ': '\\ensuremath{\\mu}',
  '²': '\\ensuremath{^{2}}',
  '³': '\\ensuremath{^{3}}',
  '¹': '\\ensuremath{^{1}}',
  'ß': '\\ss{}',
  'æ': '\\ae{}',
  'Æ': '\\AE{}',
  'ø': '\\o{}',
  'Ø': '\\O{}',
  'œ': '\\oe{}',
  'Œ': '\\OE{}',
  'å': '\\aa{}',
  'Å': '\\AA{}',
  'ł': '\\l{}',
  'Ł': '\\L{}',
  'ı': '\\i{}',
  '¿': '?`',
  '¡': '!`',
  '€': 'EUR',
  '£': '\\pounds{}',
};

/** Combining marks (after NFD) as text-mode accent commands. */
const ACCENTS: Record<string, string> = {
  '\u0300': '`',
  '\u0301': "'",
  '\u0302': '^',
  '\u0303': '~',
  '\u0308': '"',
  '\u030b': 'H',
  '\u030a': 'r',
  '\u030c': 'v',
  '\u0306': 'u',
  '\u0327': 'c',
  '\u0328': 'k',
  '\u0307': '.',
};
/** A combining macron or overline (EE-D̄) is a bar over the letter, as in the papers. */
const BARS = new Set(['\u0304', '\u0305']);

function greek(code: number): string | undefined {
  if (code >= 0x3b1 && code <= 0x3c9) {
    const name = GREEK[code - 0x3b1] as string;
    return name === 'o' ? 'o' : `\\ensuremath{\\${name}}`;
  }
  if (code === 0x3d5) return '\\ensuremath{\\phi}';
  const upper = GREEK_UPPER[code];
  if (upper) return `\\ensuremath{\\${upper}}`;
  // Upper-case Greek letters that look like Latin ones (Α, Β, Ε, …) print as those.
  if (code >= 0x391 && code <= 0x3a9) return 'ABGDEZHQIKLMNXOPRSSTYFCYW'[code - 0x391];
  return undefined;
}

/**
 * Replace every non-ASCII character of LaTeX source by ASCII macros. Safe on text that already is
 * LaTeX (it only touches non-ASCII characters); a character without a macro becomes `?`, so the
 * output is always 7-bit and compiles with plain pdflatex.
 */
export function unicodeToLatex(text: string): string {
   
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  const chars = Array.from(text.normalize('NFD'));
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const code = c.codePointAt(0) as number;
    if (code < 0x80) {
      // A base letter followed by combining marks: wrap it in the accents (innermost first).
      let j = i + 1;
      let word = c;
      while (j < chars.length && (ACCENTS[chars[j] as string] !== undefined || BARS.has(chars[j] as string))) {
        const mark = chars[j] as string;
        word = BARS.has(mark) ? `\\ensuremath{\\bar{\\mbox{${word}}}}` : `\\${ACCENTS[mark]}{${word}}`;
        j++;
      }
      out += word;
      i = j - 1;
      continue;
    }
    const macro = SYMBOLS[c] ?? greek(code);
    if (macro !== undefined) {
      // Keep a following letter from gluing onto a control word (\ss{} already ends with braces).
      out += macro;
      continue;
    }
    if (ACCENTS[c] !== undefined || BARS.has(c)) continue; // a stray combining mark with no base letter
    out += '?';
  }
  return out;
}

/** Tables with at least this many columns (the label column included) are fitted to the page width. */
export const WIDE_TABLE_COLUMNS = 7;

/**
 * Issue 26 item 4: a wide tabular fits the page. The tabular (its lines, `\begin{tabular}` to
 * `\end{tabular}`) is set in a box; only when the box is wider than `\linewidth` is it shrunk to
 * `\linewidth` with graphicx's `\resizebox` (a table that fits is typeset unchanged, and without
 * graphicx loaded, since the branch not taken is skipped). Narrower tables are returned as given.
 */
export function fitTabular(tabular: string[], columns: number): string[] {
  if (columns < WIDE_TABLE_COLUMNS) return tabular;
  return [
    `% ${columns} columns: shrunk to the line width when wider than it (then needs \\usepackage{graphicx}).`,
    '\\sbox0{%',
    ...tabular.slice(0, -1),
    `${tabular.at(-1) ?? ''}}%`,
    '\\ifdim\\wd0>\\linewidth\\resizebox{\\linewidth}{!}{\\usebox0}\\else\\usebox0\\fi',
  ];
}
