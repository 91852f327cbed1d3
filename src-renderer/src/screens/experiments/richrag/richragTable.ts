/** DataTable rows and columns of a RichRAG table (Table 1 / Table 3 of `richrag.metrics`). */
import type { RichRagTable } from '$contract';
import type { Column } from '../../../components/tableColumn';

export type RichRagTableRow = { condition: string; queries: number } & Record<string, string | number | null>;

export function tableRows(table: RichRagTable): RichRagTableRow[] {
  return table.rows.map((r) => {
    const row: RichRagTableRow = { condition: r.condition, queries: r.queries };
    for (const m of table.measures) row[m] = r.cells[m]?.mean ?? null;
    return row;
  });
}

/** The best value as printed (4 decimals), so ties after rounding are all bold, as in the LaTeX export. */
function best(table: RichRagTable, measure: string): number | null {
  const values = table.rows.map((r) => r.cells[measure]?.mean).filter((v): v is number => typeof v === 'number');
  return values.length === 0 ? null : Math.max(...values.map((v) => Number(v.toFixed(4))));
}

export function tableColumns(table: RichRagTable): Column<RichRagTableRow>[] {
  return [
    { key: 'condition', label: 'Condition', format: (r) => (r.condition === table.baseline ? `${r.condition} (baseline)` : r.condition) },
    { key: 'queries', label: 'Queries', numeric: true },
    ...table.measures.map((m): Column<RichRagTableRow> => {
      const top = best(table, m);
      const cellOf = (r: RichRagTableRow) => table.rows.find((x) => x.condition === r.condition)?.cells[m];
      return {
        key: m,
        label: m,
        numeric: true,
        format: (r) => (typeof r[m] === 'number' ? (r[m] as number).toFixed(4) : '–'),
        strong: (r) => typeof r[m] === 'number' && Number((r[m] as number).toFixed(4)) === top,
        marker: (r) => {
          const c = cellOf(r);
          if (!c?.significant || c.pAdjusted === null) return '';
          return c.pAdjusted <= Math.min(0.01, table.alpha) ? '‡' : '†';
        },
        title: `${m}: mean over queries; † / ‡: ${table.test} against ${table.baseline ?? 'no baseline'}, ${table.correction}, corrected p ≤ ${table.alpha} / 0.01`,
      };
    }),
  ];
}

/** One colour per sub-answer (Okabe–Ito), cycling. */
export function subAnswerColor(palette: readonly string[], i: number): string {
  return palette[i % palette.length]!;
}
