/**
 * booktabs LaTeX tables for the tables the renderer shows and the service has no LaTeX export
 * for (ranx / PyTerrier style: \toprule, \midrule, \bottomrule, no vertical rules, a caption that
 * states the test and α, † / ‡ markers aligned with \hphantom).
 */
const SPECIALS: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '#': '\\#',
  '^': '\\textasciicircum{}',
  _: '\\_',
  '~': '\\textasciitilde{}',
  '%': '\\%',
};

export function escapeLatex(text: string): string {
  return text.replace(/[\\{}$&#^_~%]/g, (c) => SPECIALS[c]!);
}

export interface LatexCell {
  /** Already-escaped LaTeX, or plain text (escaped) when `text` is used. */
  latex?: string;
  text?: string;
  /** Superscript marker (†, ‡); '' for none: the cell gets a phantom marker so the digits stay aligned. */
  marker?: string;
}

export interface LatexTableOptions {
  caption: string;
  label: string;
  header: string[];
  /** Column alignment letters, e.g. 'lrr'. */
  align: string;
  rows: (LatexCell | string | number | null)[][];
  /** Markers used in this table, for the phantom width. */
  markers?: string[];
  digits?: number;
}

const MARKER_LATEX: Record<string, string> = { '†': '\\dagger', '‡': '\\ddagger', '*': '*' };

function cellLatex(cell: LatexCell | string | number | null, digits: number, phantom: string): string {
  if (cell === null) return '--';
  if (typeof cell === 'number') return Number.isFinite(cell) ? (Number.isInteger(cell) ? String(cell) : cell.toFixed(digits)) : '--';
  if (typeof cell === 'string') return escapeLatex(cell);
  const body = cell.latex ?? escapeLatex(cell.text ?? '');
  if (cell.marker === undefined || !phantom) return body;
  if (cell.marker) return `${body}$^{${MARKER_LATEX[cell.marker] ?? escapeLatex(cell.marker)}}$`;
  return `${body}\\hphantom{${phantom}}`;
}

export function latexTable(o: LatexTableOptions): string {
  const digits = o.digits ?? 3;
  const phantom = o.markers?.length ? `$^{${MARKER_LATEX[o.markers[0]!] ?? o.markers[0]}}$` : '';
  const lines = [
    '% Requires \\usepackage{booktabs} in the preamble.',
    '\\begin{table}[ht]',
    '\\centering',
    `\\caption{${o.caption}}`,
    `\\label{${o.label}}`,
    `\\begin{tabular}{${o.align}}`,
    '\\toprule',
    `${o.header.map(escapeLatex).join(' & ')} \\\\`,
    '\\midrule',
    ...o.rows.map((r) => `${r.map((c) => cellLatex(c, digits, phantom)).join(' & ')} \\\\`),
    '\\bottomrule',
    '\\end{tabular}',
    '\\end{table}',
  ];
  return lines.join('\n') + '\n';
}
