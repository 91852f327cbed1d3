/**
 * TREC run files: `qid iter docno rank score tag` (conventions.md §4).
 *
 * Reading accepts two layouts:
 * - `trec`: six whitespace-separated columns, no header; blank lines and `#` comment lines
 *   (ir_metadata headers) are skipped, as trec_eval does.
 * - `tsv`: the Fair-RAG variant (fair-rag.md §5; Fair-RAG `utils.py`
 *   `make_trec_top_file_for_single_qid`): tab-separated, one header line
 *   `qid sample docno rank sim run_id`, the run_id column may be empty or missing.
 * - `auto` (default): `tsv` when the first non-comment line is a tab-separated header whose first
 *   field is `qid`, otherwise `trec`.
 *
 * Stochastic runs (expeval) use the same columns with the sample id in column 2.
 */
import { DataError } from '../../core/errors';
import { readLinesSync, splitLines, type NumberedLine } from '../lines';
import { formatIrMetadataHeader, type IrMetadata } from './irMetadata';
import { checkToken, isSkippable, parseScore, splitWhitespace, type Where } from './fields';

export interface RunRow {
  qid: string;
  /** Column 2: `Q0` in ordinary runs, the sample id in stochastic runs. */
  iter: string;
  docno: string;
  rank: number;
  score: number;
  tag: string;
  /** 1-based line in the source file. */
  line: number;
}

export type RunFormat = 'auto' | 'trec' | 'tsv';

export interface RunReadOptions {
  format?: RunFormat;
}

export function parseRun(text: string, file?: string, opts: RunReadOptions = {}): RunRow[] {
  return parseRunLines(splitLines(text.replace(/^\uFEFF/, '')), file, opts);
}

export function readRunFile(path: string, opts: RunReadOptions = {}): RunRow[] {
  return parseRunLines(readLinesSync(path), path, opts);
}

const TSV_COLUMNS = ['qid', 'sample', 'docno', 'rank', 'sim', 'run_id'];

function parseRunLines(lines: readonly NumberedLine[], file: string | undefined, opts: RunReadOptions): RunRow[] {
  let format = opts.format ?? 'auto';
  const rows: RunRow[] = [];
  const seen = new Set<string>();
  let headerSeen = false;
  for (const { line, text } of lines) {
    if (isSkippable(text)) continue;
    const where: Where = { file, line };
    if (!headerSeen) {
      headerSeen = true;
      if (format === 'auto') format = looksLikeTsvHeader(text) ? 'tsv' : 'trec';
      if (format === 'tsv') {
        checkTsvHeader(text, where);
        continue;
      }
    }
    const row = format === 'tsv' ? parseTsvRow(text, where) : parseTrecRow(text, where);
    // The key joins with a character that cannot occur inside a whitespace-free token.
    const key = `${row.qid}\n${row.iter}\n${row.docno}`;
    if (seen.has(key)) {
      throw new DataError(`duplicate document '${row.docno}' for query '${row.qid}' and iteration '${row.iter}'`, { ...where, field: 'docno' });
    }
    seen.add(key);
    rows.push(row);
  }
  return rows;
}

function looksLikeTsvHeader(text: string): boolean {
  return text.includes('\t') && text.split('\t')[0]!.trim().toLowerCase() === 'qid';
}

function checkTsvHeader(text: string, where: Where): void {
  const cols = text.split('\t').map((c) => c.trim().toLowerCase());
  if (cols[0] !== 'qid' || cols.length < 5 || cols.length > 6) {
    throw new DataError(`expected the header '${TSV_COLUMNS.join('<TAB>')}'`, { ...where, field: 'header' });
  }
}

function parseTrecRow(text: string, where: Where): RunRow {
  const f = splitWhitespace(text);
  if (f.length !== 6) {
    throw new DataError(`expected 6 columns 'qid iter docno rank score tag', got ${f.length}`, { ...where, field: 'columns' });
  }
  return makeRow(f[0]!, f[1]!, f[2]!, f[3]!, f[4]!, f[5]!, where);
}

function parseTsvRow(text: string, where: Where): RunRow {
  const f = text.split('\t').map((c) => c.trim());
  if (f.length !== 5 && f.length !== 6) {
    throw new DataError(`expected 6 tab-separated columns '${TSV_COLUMNS.join(' ')}', got ${f.length}`, { ...where, field: 'columns' });
  }
  for (const [i, name] of ['qid', 'sample', 'docno'].entries()) {
    if (f[i] === '') throw new DataError('empty', { ...where, field: name });
  }
  return makeRow(f[0]!, f[1]!, f[2]!, f[3]!, f[4]!, f[5] ?? '', where);
}

function makeRow(qid: string, iter: string, docno: string, rawRank: string, rawScore: string, tag: string, where: Where): RunRow {
  const rank = Number(rawRank);
  if (rawRank === '' || !Number.isInteger(rank)) throw new DataError(`not an integer: '${rawRank}'`, { ...where, field: 'rank' });
  const score = parseScore(rawScore, 'score', where);
  return { qid, iter, docno, rank, score, tag, line: where.line };
}

/** What a writer needs of a row; `RunRow` fits. */
export interface RunWriteRow {
  qid: string;
  /** Default `Q0`. */
  iter?: string;
  docno: string;
  /** Optional: rows without a score get one derived from their position (see formatRun). */
  score?: number;
}

export interface RunWriteOptions {
  tag: string;
  /** Written first as an ir_metadata header; its `tag` defaults to the run tag. */
  metadata?: IrMetadata;
}

/**
 * Write a run so that trec_eval reads back exactly the intended order.
 *
 * The intended order is the order of `rows` within each (qid, iter) group; groups are written in
 * order of first appearance and ranks are 1..n within each group. trec_eval ignores the rank and
 * sorts by score (ties by docno descending), so a group's scores are kept only when they are all
 * finite and strictly decreasing in the intended order. Otherwise (a tie, an increase, a missing or
 * non-finite score) every score of that group is replaced by `n + 1 − rank` (n, n−1, …, 1): one
 * consistent rule per group rather than nudging single values. Scores are printed with JS's
 * shortest round-trip form, so a reader parses back the same doubles and the same order.
 */
export function formatRun(rows: readonly RunWriteRow[], opts: RunWriteOptions): string {
  checkToken(opts.tag, 'tag');
  const groups = new Map<string, RunWriteRow[]>();
  rows.forEach((r, i) => {
    const iter = r.iter ?? 'Q0';
    checkToken(r.qid, `row ${i + 1} qid`);
    checkToken(iter, `row ${i + 1} iter`);
    checkToken(r.docno, `row ${i + 1} docno`);
    const key = `${r.qid}\n${iter}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(r);
  });

  let out = opts.metadata ? formatIrMetadataHeader({ ...opts.metadata, tag: opts.metadata.tag ?? opts.tag }) : '';
  for (const group of groups.values()) {
    const docnos = new Set<string>();
    for (const r of group) {
      if (docnos.has(r.docno)) throw new DataError(`duplicate document '${r.docno}' for query '${r.qid}' and iteration '${r.iter ?? 'Q0'}'`, { field: 'docno' });
      docnos.add(r.docno);
    }
    const keep = group.every((r, i) => Number.isFinite(r.score) && (i === 0 || r.score! < group[i - 1]!.score!));
    const n = group.length;
    group.forEach((r, i) => {
      const score = keep ? r.score! : n - i;
      out += `${r.qid} ${r.iter ?? 'Q0'} ${r.docno} ${i + 1} ${String(score)} ${opts.tag}\n`;
    });
  }
  return out;
}
