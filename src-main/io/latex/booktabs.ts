/**
 * A results table in LaTeX, after ranx `Report.to_latex()` (conventions.md §4 "LaTeX") but with
 * booktabs rules and no vertical rules: rows are systems, columns are measures, the best value of
 * each column in bold (per column: higher or lower is better), and significance markers in one of
 * two styles:
 *  - `letters` (ranx): each system gets a letter; a cell carries the letters of the systems it is
 *    significantly better than on that measure. The letters not shown are set in \hphantom so that
 *    every cell of a column has the same width and the numbers line up (ranx leaves out the row's
 *    own letter from its phantom, which misaligns rows by one letter);
 *  - `baseline` (PyTerrier-style papers): † marks a significant difference from the baseline at
 *    α, ‡ at a stricter level (default 0.01); unmarked cells get a \hphantom{$^{\ddagger}$}.
 * A cell is significant when its (already corrected) p-value is ≤ α, the same rule as ranx's
 * caption "p ≤ α" and statsmodels `multipletests`. The caption names the test, the correction and α.
 * Needs `\usepackage{booktabs}`.
 */
import type { Correction } from '../../core/stats/multipleComparisons';
import { fitTabular } from '../../core/format/latex';
import { escapeLatex } from './escape';

export interface BooktabsColumn {
  /** Measure name as shown in the header (escaped), e.g. `nDCG@10`. */
  label: string;
  /** Default true; false for measures such as EE-D where lower is better. */
  higherIsBetter?: boolean;
  /** Decimal places for this column (default: the table's `digits`). */
  digits?: number;
}

export type SignificanceMarkers =
  | {
      style: 'letters';
      /** pValues[column][i][j]: corrected p-value of system i against system j; null when not tested. */
      pValues: (number | null)[][][];
    }
  | {
      style: 'baseline';
      /** Row index of the baseline system. */
      baseline: number;
      /** pValues[row][column]: corrected p-value of the row against the baseline; null when not tested. */
      pValues: (number | null)[][];
      /** Level for ‡ (default 0.01); † is used for α ≥ p > strictAlpha. */
      strictAlpha?: number;
    };

export interface SignificanceSpec {
  markers: SignificanceMarkers;
  /** The test as it should read in the caption, e.g. `two-sided paired t-test`. */
  test: string;
  correction: Correction;
  alpha: number;
}

export interface BooktabsTable {
  systems: string[];
  columns: BooktabsColumn[];
  /** values[row][column]; null prints `--`. */
  values: (number | null)[][];
  /** Decimal places, default 3 (ranx's default). */
  digits?: number;
  /** Bold the best value per column (default true). Ties after rounding are all bold. */
  boldBest?: boolean;
  significance?: SignificanceSpec;
  /** Leading caption sentence (escaped); default `Overall effectiveness of the systems.` */
  caption?: string;
  /** Default `tab:results`. */
  label?: string;
  /** `table` (one column, default) or `table*` (full width in two-column layouts). */
  environment?: 'table' | 'table*';
  /** Float placement, default `ht` as ranx. */
  placement?: string;
  /** Header of the system column, default `System`. */
  systemHeader?: string;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

const CORRECTION_TEXT: Record<Correction, string> = {
  holm: 'Holm correction',
  bonferroni: 'Bonferroni correction',
  bh: 'Benjamini--Hochberg correction (false discovery rate)',
  none: 'no correction for multiple comparisons',
};

export function formatBooktabsTable(table: BooktabsTable): string {
  validate(table);
  const digits = table.digits ?? 3;
  const boldBest = table.boldBest ?? true;
  const markers = table.significance?.markers;
  const letters = markers?.style === 'letters';
  const nCols = table.columns.length;

  const formatted = table.values.map((row) => row.map((v, c) => (v === null ? null : formatNumber(v, table.columns[c]?.digits ?? digits))));
  const best = table.columns.map((col, c) => bestRounded(formatted.map((row) => row[c] ?? null), col.higherIsBetter ?? true));

  const lines: string[] = [];
  const env = table.environment ?? 'table';
  lines.push('% Requires \\usepackage{booktabs} in the preamble.');
  lines.push(`\\begin{${env}}[${table.placement ?? 'ht'}]`);
  lines.push('\\centering');
  lines.push(`\\caption{${caption(table, boldBest)}}`);
  lines.push(`\\label{${table.label ?? 'tab:results'}}`);
  const tabular: string[] = [];
  tabular.push(`\\begin{tabular}{${letters ? 'c' : ''}l${'r'.repeat(nCols)}}`);
  tabular.push('\\toprule');
  const header = [...(letters ? ['\\#'] : []), escapeLatex(table.systemHeader ?? 'System'), ...table.columns.map((c) => escapeLatex(c.label))];
  tabular.push(`${header.join(' & ')} \\\\`);
  tabular.push('\\midrule');
  table.systems.forEach((name, i) => {
    const cells = table.columns.map((col, c) => {
      const text = formatted[i]?.[c] ?? null;
      if (text === null) return '--';
      const number = boldBest && best[c] !== null && Number(text) === best[c] ? `\\textbf{${text}}` : text;
      return number + marker(table, i, c, col);
    });
    tabular.push(`${[...(letters ? [LETTERS[i] as string] : []), escapeLatex(name), ...cells].join(' & ')} \\\\`);
  });
  tabular.push('\\bottomrule');
  tabular.push('\\end{tabular}');
  lines.push(...fitTabular(tabular, nCols + 1 + (letters ? 1 : 0)));
  lines.push(`\\end{${env}}`);
  return lines.join('\n') + '\n';
}

/** Fixed-point with `digits` places; negative zero prints without a sign. */
function formatNumber(v: number, digits: number): string {
  const s = v.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

/** The best value after rounding (so that equal printed numbers are bold together); null if none. */
function bestRounded(cells: (string | null)[], higherIsBetter: boolean): number | null {
  let best: number | null = null;
  for (const s of cells) {
    if (s === null) continue;
    const v = Number(s);
    if (best === null || (higherIsBetter ? v > best : v < best)) best = v;
  }
  return best;
}

function better(x: number, y: number, higherIsBetter: boolean): boolean {
  return higherIsBetter ? x > y : x < y;
}

function marker(table: BooktabsTable, i: number, c: number, col: BooktabsColumn): string {
  const spec = table.significance;
  if (!spec) return '';
  const m = spec.markers;
  if (m.style === 'letters') {
    const vi = table.values[i]?.[c];
    let shown = '';
    let hidden = '';
    table.systems.forEach((_, j) => {
      const vj = table.values[j]?.[c];
      const p = m.pValues[c]?.[i]?.[j] ?? null;
      const wins = j !== i && p !== null && p <= spec.alpha && vi != null && vj != null && better(vi, vj, col.higherIsBetter ?? true);
      if (wins) shown += LETTERS[j];
      else hidden += LETTERS[j];
    });
    return (shown ? `$^{${shown}}$` : '') + (hidden ? `\\hphantom{$^{${hidden}}$}` : '');
  }
  const strict = m.strictAlpha ?? 0.01;
  const p = i === m.baseline ? null : (m.pValues[i]?.[c] ?? null);
  if (p !== null && p <= Math.min(strict, spec.alpha)) return '$^{\\ddagger}$';
  if (p !== null && p <= spec.alpha) return '$^{\\dagger}$';
  return '\\hphantom{$^{\\ddagger}$}';
}

function caption(table: BooktabsTable, boldBest: boolean): string {
  const parts = [escapeLatex(table.caption ?? 'Overall effectiveness of the systems.')];
  if (boldBest) parts.push('The best value per measure is in bold.');
  const spec = table.significance;
  if (spec) {
    const how = `${escapeLatex(spec.test)}, ${CORRECTION_TEXT[spec.correction]}, $p \\le ${spec.alpha}$`;
    const m = spec.markers;
    if (m.style === 'letters') {
      parts.push(`Superscript letters mark a significant improvement over the system with that letter (${how}).`);
    } else {
      const base = escapeLatex(table.systems[m.baseline] as string);
      const strict = m.strictAlpha ?? 0.01;
      const ddag = strict < spec.alpha ? `; $^{\\ddagger}$: $p \\le ${strict}$` : '';
      parts.push(`$^{\\dagger}$ marks a significant difference from ${base} (${how}${ddag}).`);
    }
  }
  return parts.join(' ');
}

function validate(table: BooktabsTable): void {
  const { systems, columns, values } = table;
  if (systems.length === 0 || columns.length === 0) throw new RangeError('a table needs at least one system and one column');
  if (values.length !== systems.length) throw new RangeError(`values has ${values.length} rows for ${systems.length} systems`);
  values.forEach((row, i) => {
    if (row.length !== columns.length) throw new RangeError(`values row ${i + 1} has ${row.length} cells for ${columns.length} columns`);
    row.forEach((v, c) => {
      if (v !== null && !Number.isFinite(v)) throw new RangeError(`values[${i}][${c}] is not a finite number (${v})`);
    });
  });
  for (const d of [table.digits, ...columns.map((c) => c.digits)]) {
    if (d !== undefined && !(Number.isInteger(d) && d >= 0 && d <= 10)) throw new RangeError(`digits must be an integer in [0, 10], got ${d}`);
  }
  if (table.label !== undefined && !/^[A-Za-z0-9:._\-/]+$/.test(table.label)) throw new RangeError(`label may contain only letters, digits and : . _ - /, got '${table.label}'`);
  if (table.placement !== undefined && !/^[htbpH!]+$/.test(table.placement)) throw new RangeError(`placement must be made of h t b p H !, got '${table.placement}'`);
  const spec = table.significance;
  if (spec) {
    if (!(spec.alpha > 0 && spec.alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${spec.alpha}`);
    const m = spec.markers;
    if (m.style === 'letters' && systems.length > LETTERS.length) throw new RangeError(`letter markers support at most ${LETTERS.length} systems`);
    if (m.style === 'baseline' && !(Number.isInteger(m.baseline) && m.baseline >= 0 && m.baseline < systems.length)) {
      throw new RangeError(`baseline must be a row index in [0, ${systems.length - 1}], got ${m.baseline}`);
    }
  }
}
