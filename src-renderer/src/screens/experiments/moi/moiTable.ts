/** DataTable rows and columns of a MoI comparison table (Table 1/7/8 of `moi.metrics`). */
import type { MoiTable } from '$contract';
import type { Column } from '../../../components/tableColumn';

export type MoiTableRow = { method: string; label: string } & Record<string, string | number | null>;

export function tableRows(table: MoiTable): MoiTableRow[] {
  return table.rows.map((r) => {
    const row: MoiTableRow = { method: r.method, label: r.label };
    r.cells.forEach((c, i) => (row[table.columns[i]!.measure] = c.mean));
    return row;
  });
}

const CORRECTION_TEXT: Record<string, string> = {
  holm: 'Holm-corrected over the methods of each column',
  bonferroni: 'Bonferroni-corrected over the methods of each column',
  bh: 'Benjamini–Hochberg (FDR) over the methods of each column',
  none: 'no multiple-comparison correction',
};

/** What produced each star, as the caption says it (the CSV's test and correction columns say the same). */
export function starsText(table: MoiTable): string {
  if (!table.baseline) return 'No significance test (no retriever baseline in the table).';
  return `† / ‡: adjusted p ≤ ${table.alpha} / 0.01, ${table.test}, ${CORRECTION_TEXT[table.correction] ?? table.correction}.`;
}

function best(table: MoiTable, column: number): number | null {
  const col = table.columns[column]!;
  const values = table.rows.map((r) => r.cells[column]?.mean).filter((v): v is number => typeof v === 'number');
  if (values.length === 0) return null;
  // Bold what prints as the best value (4 decimals), as the LaTeX export does with its rounding.
  const rounded = values.map((v) => Number(v.toFixed(4)));
  return col.higherIsBetter ? Math.max(...rounded) : Math.min(...rounded);
}

export function tableColumns(table: MoiTable): Column<MoiTableRow>[] {
  return [
    { key: 'label', label: 'Ranking' },
    ...table.columns.map((col, i): Column<MoiTableRow> => {
      const top = best(table, i);
      const cellOf = (r: MoiTableRow) => table.rows.find((x) => x.method === r.method)?.cells[i];
      return {
        key: col.measure,
        label: col.measure,
        numeric: true,
        format: (r) => (typeof r[col.measure] === 'number' ? (r[col.measure] as number).toFixed(4) : '–'),
        strong: (r) => typeof r[col.measure] === 'number' && Number((r[col.measure] as number).toFixed(4)) === top,
        marker: (r) => {
          const c = cellOf(r);
          if (!c?.significant || c.pAdjusted === null) return '';
          return c.pAdjusted <= Math.min(0.01, table.alpha) ? '‡' : '†';
        },
        title: `${col.measure} (${col.higherIsBetter ? 'higher' : 'lower'} is better), ${col.queries} queries; ${starsText(table)}`,
      };
    }),
  ];
}
