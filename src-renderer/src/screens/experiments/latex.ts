/**
 * booktabs LaTeX tables for the tables the renderer shows and the service has no LaTeX export
 * for (ranx / PyTerrier style: \toprule, \midrule, \bottomrule, no vertical rules, a caption that
 * states the test and α, † / ‡ markers aligned with \hphantom).
 */
import { formatFixed } from '$core/format/fixed';
import { escapeLatex, fitTabular } from '$core/format/latex';

export { escapeLatex };

/**
 * Issue 17 item 7: a table must compile with plain pdflatex (no inputenc, no amsmath), so the
 * non-ASCII characters the screens print (EE-D̄, α, –, −, ±, ≤, †) become macros valid in text and
 * math mode, anything else `?`; `\text{…}` (amsmath) becomes `\mbox{…}`. The main side's writer does
 * the same for the main side's writers with core/format/latex's unicodeToLatex.
 */
const ASCII: Record<string, string> = {
  '–': '--', '—': '---', '−': '\\ensuremath{-}', '±': '\\ensuremath{\\pm}', '×': '\\ensuremath{\\times}', '·': '\\ensuremath{\\cdot}',
  '≤': '\\ensuremath{\\leq}', '≥': '\\ensuremath{\\geq}', '≠': '\\ensuremath{\\neq}', '…': '\\ldots{}', '†': '\\ensuremath{^{\\dagger}}', '‡': '\\ensuremath{^{\\ddagger}}',
  'α': '\\ensuremath{\\alpha}', 'ε': '\\ensuremath{\\epsilon}', 'φ': '\\ensuremath{\\phi}', 'τ': '\\ensuremath{\\tau}', 'μ': '\\ensuremath{\\mu}', 'σ': '\\ensuremath{\\sigma}', 'Δ': '\\ensuremath{\\Delta}',
};
export function asciiLatex(tex: string): string {
  return tex
    .replaceAll('\\text{', '\\mbox{')
    .normalize('NFD')
    .replace(/([A-Za-z])[\u0304\u0305]/g, '\\ensuremath{\\bar{\\mbox{$1}}}')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x00-\x7f]/g, (c) => ASCII[c] ?? '?');
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
  if (typeof cell === 'number') return Number.isFinite(cell) ? (Number.isInteger(cell) ? String(cell) : formatFixed(cell, digits)) : '--';
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
    ...fitTabular(
      [
        `\\begin{tabular}{${o.align}}`,
        '\\toprule',
        `${o.header.map(escapeLatex).join(' & ')} \\\\`,
        '\\midrule',
        ...o.rows.map((r) => `${r.map((c) => cellLatex(c, digits, phantom)).join(' & ')} \\\\`),
        '\\bottomrule',
        '\\end{tabular}',
      ],
      o.align.replace(/[^lcrpmbX]/g, '').length,
    ),
    '\\end{table}',
  ];
  return asciiLatex(lines.join('\n') + '\n');
}
