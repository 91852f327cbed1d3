/**
 * TREC run files: `qid iter docno rank score tag` (conventions.md §4).
 *
 * Reading accepts two layouts:
 * - `trec`: six whitespace-separated columns (C isspace), no header; blank lines and `#` comment
 *   lines (ir_metadata headers) are skipped, as trec_eval does. A line with more columns is read
 *   from its first six with one warning, as trec_eval does, unless `columns: 'strict'`.
 * - `tsv`: the Fair-RAG variant (fair-rag.md §5; Fair-RAG `utils.py`
 *   `make_trec_top_file_for_single_qid`): tab-separated, one header line
 *   `qid sample docno rank sim run_id`, the run_id column may be empty or missing.
 * - `auto` (default): `tsv` when the first non-comment line is a tab-separated header whose first
 *   field is `qid`, otherwise `trec`.
 *
 * Stochastic runs (expeval) use the same columns with the sample id in column 2.
 */
import { DataError } from '../../core/errors';
import { inputName, readTextBlocks, readTextBlocksSync, type LineReadOptions, type TextBlock } from '../lines';
import { TREC_MAX_LINE_BYTES, UNSAFE_ID_CHAR, checkLineChars, parseScore, splitWhitespace, type Where } from './fields';
import { charAt, plainDecimal, plainInteger } from './plainNumber';

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
  /**
   * `lenient` (default): a `trec` line with more than six columns is read from its first six, as
   * trec_eval does, with one warning (`onWarning`). `strict`: exactly six columns, as pytrec_eval,
   * ranx and ir_measures expect.
   */
  columns?: 'lenient' | 'strict';
  /** Called once per file for a condition worth telling the user (more than six columns), with its first line. */
  onWarning?: (message: string, line: number) => void;
}

/**
 * A run in columns (no object per line): row i is qid[i], iter[i], docno[i], rank[i], score[i],
 * tag[i] from line line[i], in file order. Equal neighbouring qid, iter and tag values share one
 * string.
 */
export interface RunColumns {
  length: number;
  qid: string[];
  iter: string[];
  docno: string[];
  tag: string[];
  rank: Float64Array;
  score: Float64Array;
  line: Float64Array;
}

export function parseRun(text: string, file?: string, opts: RunReadOptions = {}): RunRow[] {
  return runRows(parseRunColumns(text, file, opts));
}

export function parseRunColumns(text: string, file?: string, opts: RunReadOptions = {}): RunColumns {
  const parser = new RunParser(file, opts);
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  parser.push({ text: body.endsWith('\n') ? body : `${body}\n`, firstLine: 1 });
  return parser.finish();
}

export function readRunFile(path: string, opts: RunReadOptions & Pick<LineReadOptions, 'maxLineBytes'> = {}): RunRow[] {
  return runRows(readRunColumnsSync(path, opts));
}

export function readRunColumnsSync(path: string, opts: RunReadOptions & Pick<LineReadOptions, 'maxLineBytes'> = {}): RunColumns {
  const parser = new RunParser(path, opts);
  for (const block of readTextBlocksSync(path, { maxLineBytes: opts.maxLineBytes ?? TREC_MAX_LINE_BYTES })) parser.push(block);
  return parser.finish();
}

/** A run file streamed in bounded memory per line (`-`: stdin, `.gz`: gunzipped; see ../lines). */
export async function readRunColumns(path: string, opts: RunReadOptions & LineReadOptions = {}): Promise<RunColumns> {
  const parser = new RunParser(path, opts);
  for await (const block of readTextBlocks(path, { ...opts, maxLineBytes: opts.maxLineBytes ?? TREC_MAX_LINE_BYTES })) parser.push(block);
  return parser.finish();
}


/**
 * A run read one query at a time, in bounded memory: `onQuery` gets each query's rows (in file
 * order) as soon as the query's last row has been read, for runs whose rows of a query are
 * consecutive (what every retrieval system writes). The columns passed are only valid during the
 * call. Checks and errors are those of `readRunColumns`. A query that comes back after other
 * queries throws `RunNotGroupedError` (not a data error: read such a run whole).
 */
export async function readRunByQuery(
  path: string,
  onQuery: (qid: string, rows: RunColumns) => void,
  opts: RunReadOptions & LineReadOptions & { afterBlock?: () => Promise<void> } = {},
): Promise<{ queries: number; rows: number }> {
  const parser = new RunParser(path, opts, onQuery);
  for await (const block of readTextBlocks(path, { ...opts, maxLineBytes: opts.maxLineBytes ?? TREC_MAX_LINE_BYTES })) {
    parser.push(block);
    // A caller that writes asynchronously (and waits for a slow reader) does so here, between blocks.
    if (opts.afterBlock) await opts.afterBlock();
  }
  parser.endGroup();
  if (opts.afterBlock) await opts.afterBlock();
  return { queries: parser.groupCount, rows: parser.rowCount };
}

/**
 * Every query of a run, one at a time, queries in order of first appearance: streamed from a file
 * (`readRunByQuery`: memory bounded by the largest query). Standard input, and a run whose queries
 * come back after others, are read whole and grouped (`runQueries`); for the latter `restart` is
 * called first and every query is handed over again from the start, so a caller that keeps
 * results starts them over there. `onQuery` gets the query's rows of `run` (`rows`, or every row
 * when undefined), valid only during the call. Errors are those of `readRunColumns`.
 */
export async function forEachRunQuery(
  path: string,
  onQuery: (qid: string, run: RunColumns, rows: readonly number[] | undefined) => void,
  opts: RunReadOptions & LineReadOptions & { restart?: () => void } = {},
): Promise<void> {
  if (path !== '-') {
    try {
      await readRunByQuery(path, (qid, run) => onQuery(qid, run, undefined), opts);
      return;
    } catch (err) {
      if (!(err instanceof RunNotGroupedError)) throw err;
      opts.restart?.();
    }
  }
  const run = await readRunColumns(path, opts);
  for (const [qid, { rows }] of runQueries(run)) onQuery(qid, run, rows);
}

/** A run whose rows of one query are not consecutive, met by `readRunByQuery`. */
export class RunNotGroupedError extends Error {
  constructor(
    readonly qid: string,
    readonly line: number,
  ) {
    super(`query '${qid}' comes back at line ${line} after other queries`);
    this.name = 'RunNotGroupedError';
  }
}

/** Row objects of a run in columns (for callers that want one object per row). */
export function runRows(c: RunColumns): RunRow[] {
  const rows: RunRow[] = new Array(c.length);
  for (let i = 0; i < c.length; i++) {
    rows[i] = { qid: c.qid[i]!, iter: c.iter[i]!, docno: c.docno[i]!, rank: c.rank[i]!, score: c.score[i]!, tag: c.tag[i]!, line: c.line[i]! };
  }
  return rows;
}

/**
 * The rows of each query: qid → row indexes in file order, queries in order of first appearance.
 * `iters` counts the distinct column-2 values of the query.
 */
export function runQueries(c: RunColumns): Map<string, { rows: number[]; iters: number }> {
  const out = new Map<string, { rows: number[]; iters: number; lastIter: string; iterSet?: Set<string> }>();
  let cur: { rows: number[]; iters: number; lastIter: string; iterSet?: Set<string> } | undefined;
  let curQid: string | undefined;
  for (let i = 0; i < c.length; i++) {
    const qid = c.qid[i]!;
    if (qid !== curQid) {
      curQid = qid;
      cur = out.get(qid);
      if (!cur) out.set(qid, (cur = { rows: [], iters: 1, lastIter: c.iter[i]! }));
    }
    const iter = c.iter[i]!;
    if (iter !== cur!.lastIter) {
      cur!.iterSet ??= new Set([cur!.lastIter]);
      cur!.iterSet.add(iter);
      cur!.iters = cur!.iterSet.size;
      cur!.lastIter = iter;
    }
    cur!.rows.push(i);
  }
  return out as Map<string, { rows: number[]; iters: number }>;
}

const TSV_COLUMNS = ['qid', 'sample', 'docno', 'rank', 'sim', 'run_id'];

/** trec_eval splits on C isspace: space, \t, \v, \f, \r (not Unicode spaces such as U+00A0). */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13 && c !== 10);
}

/**
 * A push parser over blocks of whole lines. Duplicates are checked per (qid, iter) with one set of
 * docnos per group; consecutive rows of a group (the usual layout) reuse the group's set.
 */
class RunParser {
  private format: RunFormat;
  private headerSeen = false;
  private warned = false;
  private n = 0;
  private cap = 1024;
  private qid: string[] = [];
  private iter: string[] = [];
  private docno: string[] = [];
  private tag: string[] = [];
  private rank = new Float64Array(this.cap);
  private score = new Float64Array(this.cap);
  private line = new Float64Array(this.cap);
  /** qid → iter → the group's rows for the duplicate check (see `isDuplicate`). */
  private groups = new Map<string, Map<string, DocGroup>>();
  private curQid = '';
  private curIter = '';
  private curTag = '';
  private curGroup: DocGroup | undefined;
  private readonly starts = new Int32Array(7);
  private readonly ends = new Int32Array(7);
  private readonly file: string | undefined;
  /** Grouped mode (`onQuery`): the query being collected, and the queries handed over. */
  private groupQid: string | undefined;
  private readonly closed = new Set<string>();
  groupCount = 0;
  rowCount = 0;

  constructor(
    file: string | undefined,
    private readonly opts: RunReadOptions,
    private readonly onQuery?: (qid: string, rows: RunColumns) => void,
  ) {
    this.file = file === undefined ? undefined : inputName(file);
    this.format = opts.format ?? 'auto';
  }

  push(block: TextBlock): void {
    const { text } = block;
    let line = block.firstLine;
    // NUL or a bidirectional control anywhere in the block: each data line is checked (issue 36 item 3).
    const unsafe = UNSAFE_ID_CHAR.test(text);
    for (let start = 0, nl = text.indexOf('\n'); nl !== -1; start = nl + 1, nl = text.indexOf('\n', start), line++) {
      let end = nl;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      // Skip leading whitespace; blank and '#' lines are skipped as trec_eval does.
      let s = start;
      while (s < end && isSpace(text.charCodeAt(s))) s++;
      if (s === end || text.charCodeAt(s) === 35) continue;
      if (!this.headerSeen) {
        this.headerSeen = true;
        const raw = text.slice(start, end);
        if (this.format === 'auto') this.format = looksLikeTsvHeader(raw) ? 'tsv' : 'trec';
        if (this.format === 'tsv') {
          checkTsvHeader(raw, { file: this.file, line });
          continue;
        }
      }
      if (unsafe) {
        const tsv = this.format === 'tsv';
        checkLineChars(text.slice(start, end), { file: this.file, line }, tsv ? TSV_COLUMNS : ['qid', 'iter', 'docno', 'rank', 'score', 'tag'], tsv ? (t) => t.split('\t') : splitWhitespace);
      }
      if (this.format === 'tsv') this.tsvRow(text.slice(start, end), line);
      else this.trecRow(text, s, end, line);
    }
  }

  finish(): RunColumns {
    const n = this.n;
    return { length: n, qid: this.qid, iter: this.iter, docno: this.docno, tag: this.tag, rank: this.rank.subarray(0, n), score: this.score.subarray(0, n), line: this.line.subarray(0, n) };
  }

  /** Grouped mode: hand the collected query over and start empty. */
  endGroup(): void {
    if (this.groupQid === undefined) return;
    this.onQuery!(this.groupQid, this.finish());
    this.closed.add(this.groupQid);
    this.groupCount++;
    this.rowCount += this.n;
    this.groupQid = undefined;
    this.n = 0;
    this.qid = [];
    this.iter = [];
    this.docno = [];
    this.tag = [];
    this.groups.clear();
    this.curGroup = undefined;
  }

  private trecRow(text: string, s: number, end: number, line: number): void {
    const { starts, ends } = this;
    let f = 0;
    let i = s;
    while (i < end && f < 7) {
      starts[f] = i;
      while (i < end && !isSpace(text.charCodeAt(i))) i++;
      ends[f++] = i;
      while (i < end && isSpace(text.charCodeAt(i))) i++;
    }
    if (f !== 6) {
      if (f < 6 || this.opts.columns === 'strict') {
        let count = f;
        for (; i < end; count++) {
          while (i < end && !isSpace(text.charCodeAt(i))) i++;
          while (i < end && isSpace(text.charCodeAt(i))) i++;
        }
        throw new DataError(`expected 6 columns 'qid iter docno rank score tag', got ${count}`, { file: this.file, line, field: 'columns' });
      }
      if (!this.warned) {
        this.warned = true;
        this.opts.onWarning?.('more than 6 columns; reading the first six, as trec_eval does (warned once per file)', line);
      }
    }
    const qid = this.same(text, 0, this.curQid);
    const iter = this.same(text, 1, this.curIter);
    const tag = this.same(text, 5, this.curTag);
    const rank = plainInteger(text, charAt, starts[3]!, ends[3]!);
    const score = plainDecimal(text, charAt, starts[4]!, ends[4]!);
    this.add(qid, iter, text.slice(starts[2]!, ends[2]!), Number.isNaN(rank) ? text.slice(starts[3]!, ends[3]!) : rank, Number.isNaN(score) ? text.slice(starts[4]!, ends[4]!) : score, tag, line);
  }

  /** Field f as a string, reusing `prev` when the text is the same (no new string per line). */
  private same(text: string, f: number, prev: string): string {
    const a = this.starts[f]!;
    const len = this.ends[f]! - a;
    return len === prev.length && text.startsWith(prev, a) ? prev : text.slice(a, a + len);
  }

  private tsvRow(raw: string, line: number): void {
    const where: Where = { file: this.file, line };
    const f = raw.split('\t').map((c) => c.trim());
    if (f.length !== 5 && f.length !== 6) {
      throw new DataError(`expected 6 tab-separated columns '${TSV_COLUMNS.join(' ')}', got ${f.length}`, { ...where, field: 'columns' });
    }
    for (const [i, name] of ['qid', 'sample', 'docno'].entries()) {
      if (f[i] === '') throw new DataError('empty', { ...where, field: name });
    }
    this.add(f[0]!, f[1]!, f[2]!, f[3]!, f[4]!, f[5] ?? '', line);
  }

  /** rawRank and rawScore: the text, or the number already parsed by the fast path. */
  private add(qid: string, iter: string, docno: string, rawRank: string | number, rawScore: string | number, tag: string, line: number): void {
    const rank = Number(rawRank);
    if (rawRank === '' || !Number.isInteger(rank)) throw new DataError(`not an integer: '${rawRank}'`, { file: this.file, line, field: 'rank' });
    const score = Number(rawScore);
    if (!Number.isFinite(score)) parseScore(String(rawScore), 'score', { file: this.file, line });
    if (this.onQuery && qid !== this.groupQid) {
      this.endGroup();
      if (this.closed.has(qid)) throw new RunNotGroupedError(qid, line);
      this.groupQid = qid;
    }
    if (qid !== this.curQid || iter !== this.curIter || this.curGroup === undefined) {
      let byIter = this.groups.get(qid);
      if (!byIter) this.groups.set(qid, (byIter = new Map()));
      let group = byIter.get(iter);
      if (!group) byIter.set(iter, (group = { start: this.n, end: this.n, set: undefined }));
      // The group comes back after other rows: from now on its docnos are checked in a set.
      else group.set ??= new Set(this.docno.slice(group.start, group.end));
      this.curGroup = group;
      this.curQid = qid;
      this.curIter = iter;
    }
    if (this.isDuplicate(this.curGroup, docno)) {
      throw new DataError(`duplicate document '${docno}' for query '${qid}' and iteration '${iter}'`, { file: this.file, line, field: 'docno' });
    }
    if (!this.curGroup.set) this.curGroup.end = this.n + 1;
    this.curTag = tag;
    const i = this.n++;
    if (i === this.cap) this.grow();
    this.qid.push(qid);
    this.iter.push(iter);
    this.docno.push(docno);
    this.tag.push(tag);
    this.rank[i] = rank;
    this.score[i] = score;
    this.line[i] = line;
  }

  /**
   * Whether `docno` is already in the group, adding it. A group's first block of consecutive rows
   * (every group, in the usual layout) is checked by scanning its rows while short; a longer group,
   * or one that comes back, keeps a set. A stochastic run of 100k five-row samples thus needs no
   * set per sample (issue 18: the sets were most of `eval exposure`'s reading time and memory).
   */
  private isDuplicate(group: DocGroup, docno: string): boolean {
    if (!group.set) {
      if (this.n - group.start < SCAN_LIMIT) {
        for (let j = group.start; j < this.n; j++) if (this.docno[j] === docno) return true;
        return false;
      }
      group.set = new Set(this.docno.slice(group.start, this.n));
    }
    const size = group.set.size;
    group.set.add(docno);
    return group.set.size === size;
  }

  private grow(): void {
    this.cap *= 2;
    for (const key of ['rank', 'score', 'line'] as const) {
      const next = new Float64Array(this.cap);
      next.set(this[key]);
      this[key] = next;
    }
  }
}

/** A (qid, iter) group: its first block of consecutive rows [start, end), and its docnos once it needs a set. */
interface DocGroup {
  start: number;
  end: number;
  set: Set<string> | undefined;
}

/** Rows a group's first block is scanned for duplicates before it gets a set. */
const SCAN_LIMIT = 16;

function looksLikeTsvHeader(text: string): boolean {
  return text.includes('\t') && text.split('\t')[0]!.trim().toLowerCase() === 'qid';
}

function checkTsvHeader(text: string, where: Where): void {
  const cols = text.split('\t').map((c) => c.trim().toLowerCase());
  if (cols[0] !== 'qid' || cols.length < 5 || cols.length > 6) {
    throw new DataError(`expected the header '${TSV_COLUMNS.join('<TAB>')}'`, { ...where, field: 'header' });
  }
}
