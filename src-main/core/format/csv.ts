/**
 * CSV per RFC 4180: a field containing a comma, a double quote, CR or LF is enclosed in double
 * quotes with inner quotes doubled (§2.6–2.7). Pure: the CLI, the services' exports and the
 * renderer's downloads write CSV with these.
 *
 * A spreadsheet never runs a cell as a formula (issue 36 item 3, OWASP "CSV Injection"): a field
 * beginning with `=`, `+`, `-`, `@`, a tab or a CR that is not a number (an id such as
 * `=HYPERLINK("http://evil.example/x","tag-u1")`) gets a single quote in front and is quoted, so
 * Excel, LibreOffice and Google Sheets show it as text. Numbers (`-0.25`, `+1e-3`, `-Infinity`) are
 * left as they are.
 */

/** What spreadsheets read as the start of a formula (or, after a tab or CR, may). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as JS or a spreadsheet writes one: left as it is. */
const NUMBER = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Infinity)$/;

/** `text` as a spreadsheet shows it and never evaluates: `'` in front of a formula-like non-number. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

/** One field. */
export function csvField(text: string): string {
  const safe = neutraliseFormula(text);
  return safe !== text || /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export type CsvValue = string | number | boolean | null | undefined;

export interface CsvTableOptions {
  /**
   * `ascii` (default): header names in ASCII (`asciiHeaders`), so pandas and R read them as typed
   * (`df["EE-D_norm_mean"]`); `unicode`: the names as the screens show them (`EE-D̄_mean`).
   */
  headers?: 'ascii' | 'unicode';
}

/** A header and rows, `\n` line ends; null and undefined are empty fields, numbers in JS's shortest round-trip form. */
export function csvTable(header: readonly string[], rows: readonly (readonly CsvValue[])[], options: CsvTableOptions = {}): string {
  const field = (v: CsvValue): string => (v === null || v === undefined ? '' : csvField(String(v)));
  const names = (options.headers ?? 'ascii') === 'ascii' ? asciiHeaders(header) : header;
  return [names, ...rows].map((r) => r.map(field).join(',')).join('\n') + '\n';
}

const GREEK_NAMES = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma sigma tau upsilon phi chi psi omega'.split(' ');
const SYMBOLS: Record<string, string> = { '−': '-', '–': '-', '—': '-', '≤': '<=', '≥': '>=', '≠': '!=', '±': '+-', '×': 'x', '·': '.', '…': '...', 'µ': 'mu', '†': '', '‡': '', '“': '"', '”': '"', '‘': "'", '’': "'" };

/**
 * One header name in ASCII (issue 26 item 5): a letter with a combining bar or macron (the
 * normalised measures EE-D̄, EU̅) becomes `<letter>_norm` (`EE-D̄_mean` → `EE-D_norm_mean`, so it
 * never collides with the raw `EE-D_mean`), Greek letters their names (`α` → `alpha`), accents are
 * dropped (`é` → `e`), a few symbols get ASCII spellings, anything else `_`.
 */
export function asciiHeader(name: string): string {
  return name
    .normalize('NFD')
    .replace(/(\p{L})[\u0304\u0305]/gu, '$1_norm')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x00-\x7f]/g, (c) => {
      const code = c.codePointAt(0)!;
      if (code >= 0x3b1 && code <= 0x3c9) return GREEK_NAMES[code - 0x3b1]!;
      if (code >= 0x391 && code <= 0x3a9) return (GREEK_NAMES[code - 0x391] ?? '_').replace(/^./, (l) => l.toUpperCase());
      return SYMBOLS[c] ?? '_';
    });
}

/** Every header name in ASCII; names that become equal get `_2`, `_3`… so no column is lost. */
export function asciiHeaders(header: readonly string[]): string[] {
  const seen = new Set<string>();
  return header.map((h) => {
    const base = asciiHeader(h);
    let name = base;
    for (let i = 2; seen.has(name); i++) name = `${base}_${i}`;
    seen.add(name);
    return name;
  });
}
