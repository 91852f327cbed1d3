/**
 * What Table 2's cells show on screen and in its CSV (issue 34 item 8f), as the LaTeX export
 * (src-main/experiments/fair-rag/exports.ts, table2Latex) does:
 *  - `paired`: the quantity the paired tests test, `pairedDifference`: over the queries with a run
 *    in the interval and a deterministic utility, the mean of (mean utility of the query's runs in
 *    the interval − its deterministic utility); a ranking that changes no query's utility gives 0;
 *  - `paper`: Kim & Diaz's Table 2 number, `difference`: the mean utility of all runs in the
 *    interval − the baseline's mean over all queries (unpaired; also moves with which queries fall
 *    into the interval).
 * Default: what the table's test tests (`paper` for the paper's unpaired t-test, else `paired`);
 * metrics written before pairedDifference existed have only the paper's cells.
 */
import { csvTable } from '$core/format/csv';

export type Table2CellsShown = 'paired' | 'paper';

/** A Table 2 cell and table as the contract has them (FairRagMetrics['table2']), structurally: tests import this module from the root project. */
export interface Table2CellLike {
  runs: number;
  meanUtility: number | null;
  difference: number | null;
  pValue: number | null;
  significant: boolean;
  queries?: number | undefined;
  pairedDifference?: number | null | undefined;
  pAdjusted?: number | null | undefined;
  paperPValue?: number | null | undefined;
}
export interface Table2Like {
  intervals: readonly (readonly [number, number])[];
  test: string;
  testId?: string | undefined;
  correction?: string | undefined;
  alpha: number;
  rows: readonly { retriever: string; generator: string; baseline: number | null; baselineQueries: number; excludedAtOne: number; cells: readonly Table2CellLike[] }[];
}
type Table2 = Table2Like;
type Cell = Table2CellLike;

/** Whether every cell carries the paired difference (metrics from before it existed do not). */
export const hasPairedCells = (t2: Pick<Table2, 'rows'>): boolean => t2.rows.every((r) => r.cells.every((c) => c.pairedDifference !== undefined));

/** The cells shown by default: what the table's test tests. */
export function defaultTable2CellsShown(t2: Pick<Table2, 'rows' | 'testId'>): Table2CellsShown {
  return t2.testId === 'kim-diaz-unpaired-t' || !hasPairedCells(t2) ? 'paper' : 'paired';
}

/** A cell's value as shown (null: no value, printed –). */
export const table2CellValue = (c: Cell, shown: Table2CellsShown): number | null => (shown === 'paired' ? (c.pairedDifference ?? null) : c.difference);

/** The label above the table and in its caption: what a cell is. */
export function table2CellsLabel(shown: Table2CellsShown): string {
  return shown === 'paired'
    ? "Paired by query (what the test tests): over the queries with a run in the interval, mean of (the query's mean utility in the interval − its deterministic utility)"
    : "The paper's unpaired difference: mean utility of all runs in the interval − the baseline's mean over all queries (as Kim & Diaz's Table 2)";
}

export interface Table2Calibration {
  nullRejectionRate: number;
  lo: number;
  hi: number;
  runs: number;
  source?: string | undefined;
}

/**
 * Table 2 as CSV. The columns are a public format: existing ones keep their names and order and new
 * ones are added at the end. `diff_*` is the paper's unpaired difference (`difference`);
 * `paired_difference_*` (added in issue 34) the paired per-query difference the default test tests.
 */
export function table2CsvText(t2: Table2, calibration: Table2Calibration | undefined): string {
  const header = [
    'retriever',
    'generator',
    'baseline',
    'baseline_queries',
    ...t2.intervals.flatMap(([lo, hi]) => [`diff_${lo}_${hi}`, `runs_${lo}_${hi}`, `mean_${lo}_${hi}`, `p_${lo}_${hi}`]),
    'excluded_at_one',
    ...t2.intervals.flatMap(([lo, hi]) => [`p_adj_${lo}_${hi}`, `significant_${lo}_${hi}`, `paper_p_${lo}_${hi}`, `queries_${lo}_${hi}`]),
    'test',
    'correction',
    'alpha',
    'null_rejection_rate',
    'null_rejection_lo',
    'null_rejection_hi',
    'null_runs',
    'calibration',
    ...t2.intervals.map(([lo, hi]) => `paired_difference_${lo}_${hi}`),
  ];
  const body = t2.rows.map((r) => [
    r.retriever,
    r.generator,
    r.baseline,
    r.baselineQueries,
    ...r.cells.flatMap((c) => [c.difference, c.runs, c.meanUtility, c.pValue]),
    r.excludedAtOne,
    ...r.cells.flatMap((c) => [c.pAdjusted ?? null, c.significant, c.paperPValue ?? null, c.queries ?? null]),
    t2.test,
    t2.correction ?? 'none',
    t2.alpha,
    calibration?.nullRejectionRate ?? null,
    calibration?.lo ?? null,
    calibration?.hi ?? null,
    calibration?.runs ?? null,
    calibration ? (calibration.source ?? 'simulated') : 'not simulated',
    ...r.cells.map((c) => c.pairedDifference ?? null),
  ]);
  return csvTable(header, body);
}
