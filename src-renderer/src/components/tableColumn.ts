/** A column of DataTable.svelte. */
export interface Column<R> {
  key: string;
  label: string;
  numeric?: boolean;
  /** Cell text; default String(value) (numbers with 4 decimals). */
  format?: (row: R) => string;
  /** Sort value; default row[key]. */
  sortValue?: (row: R) => string | number | null;
  /** Bold this cell (e.g. best value in the column). */
  strong?: (row: R) => boolean;
  /** Superscript after the value (e.g. † for significance). */
  marker?: (row: R) => string;
  title?: string;
}
