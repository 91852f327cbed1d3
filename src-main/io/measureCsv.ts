/**
 * Per-query measure tables in the two shapes researchers exchange (conventions.md §4, M10):
 * - trec_eval `-q` lines `measure<TAB>qid<TAB>value`, per-query rows first, then one `all` row
 *   per measure with the aggregate, values with 4 decimals rounded as trec_eval's printf `%6.4f` does and count
 *   measures as integers. Unlike trec_eval the measure name is not padded to 22 characters, so
 *   every line splits cleanly on tabs.
 * - CSV with header `measure,qid,value`, quoted per RFC 4180 (fields containing a comma, a double
 *   quote, CR or LF are enclosed in double quotes, inner quotes doubled), values at full precision
 *   unless `decimals` is given.
 */
import { csvField } from '../core/format/csv';
import { formatFixed } from '../core/format/fixed';

export interface MeasureRow {
  measure: string;
  qid: string;
  value: number;
}

/** The shape `evaluateRun` returns (core/ir/evaluateRun.ts). */
export interface MeasureTable {
  measures: readonly string[];
  perQuery: ReadonlyMap<string, ReadonlyMap<string, number>>;
  all: ReadonlyMap<string, number>;
}

export interface MeasureRowOptions {
  /** Include per-query rows (trec_eval -q). Default true. */
  perQuery?: boolean;
  /** Include the `all` rows. Default true. */
  all?: boolean;
}

/** Rows in trec_eval order: for each query, each measure; then `all` for each measure. */
export function measureRows(table: MeasureTable, opts: MeasureRowOptions = {}): MeasureRow[] {
  const rows: MeasureRow[] = [];
  if (opts.perQuery ?? true) {
    const qids: string[] = [];
    const seen = new Set<string>();
    for (const m of table.measures) {
      for (const qid of table.perQuery.get(m)?.keys() ?? []) {
        if (!seen.has(qid)) {
          seen.add(qid);
          qids.push(qid);
        }
      }
    }
    for (const qid of qids) {
      for (const m of table.measures) {
        const value = table.perQuery.get(m)?.get(qid);
        if (value !== undefined) rows.push({ measure: m, qid, value });
      }
    }
  }
  if (opts.all ?? true) {
    for (const m of table.measures) {
      const value = table.all.get(m);
      if (value !== undefined) rows.push({ measure: m, qid: 'all', value });
    }
  }
  return rows;
}

export interface MeasureTsvOptions {
  /** Default 4, as trec_eval prints. */
  decimals?: number;
  /** Measures printed as integers (counts such as NumRet). */
  integerMeasures?: ReadonlySet<string>;
}

export function formatMeasureTsv(rows: readonly MeasureRow[], opts: MeasureTsvOptions = {}): string {
  const decimals = opts.decimals ?? 4;
  let out = '';
  for (const r of rows) {
    const value = opts.integerMeasures?.has(r.measure) && Number.isInteger(r.value) ? String(r.value) : formatDecimals(r.value, decimals);
    out += `${r.measure}\t${r.qid}\t${value}\n`;
  }
  return out;
}

export interface MeasureCsvOptions {
  /** Round values to this many decimals; default: full precision (shortest round-trip form). */
  decimals?: number;
  /** Default `\n`; RFC 4180 strictly asks for `\r\n`. */
  lineEnding?: '\n' | '\r\n';
}

export function formatMeasureCsv(rows: readonly MeasureRow[], opts: MeasureCsvOptions = {}): string {
  const eol = opts.lineEnding ?? '\n';
  let out = `measure,qid,value${eol}`;
  for (const r of rows) {
    const value = opts.decimals === undefined ? String(r.value) : formatDecimals(r.value, opts.decimals);
    out += `${csvField(r.measure)},${csvField(r.qid)},${csvField(value)}${eol}`;
  }
  return out;
}

/** One CSV field quoted per RFC 4180 §2.6–2.7 (core/format/csv). */
export { csvField };

/**
 * printf("%.Nf") as trec_eval prints (an exact tie rounds to even; toFixed rounded it up);
 * -0.0000 (a tiny negative rounding error) prints without its sign.
 */
export function formatDecimals(value: number, decimals: number): string {
  if (!Number.isFinite(value)) return String(value);
  const s = formatFixed(value, decimals);
  // -0.0000 would read as a sign error; trec_eval's values are never negative.
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}
