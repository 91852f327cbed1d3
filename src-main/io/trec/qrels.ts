/**
 * TREC qrels: `qid iter docno rel` (conventions.md §4). `rel` is an integer; a negative label
 * means "in the pool but unjudged" (trec_eval RELVALUE_UNJUDGED, expeval's −1). Column 2 is kept
 * as text, so expeval group qrels (`qid g1,g2 docno rel`) read too.
 *
 * Also reads Fair-RAG's relevance-mapping TSV (fair-rag.md §5): a header line
 * `qid<TAB>pid<TAB>relevance_label`, then one row per (query, profile item); iter becomes `0`.
 * `readQrelsFile` picks the layout from the first non-comment line (`format: 'auto'`): a
 * tab-separated line whose first field is `qid` means the relevance mapping.
 *
 * A (qid, docno) pair judged twice is an error, as in trec_eval.
 */
import { DataError } from '../../core/errors';
import { inputName, readLines, readLinesSync, splitLines, type LineReadOptions, type NumberedLine } from '../lines';
import { TREC_MAX_LINE_BYTES, checkLineChars, checkToken, parseInteger, type Where } from './fields';

export interface QrelRow {
  qid: string;
  iter: string;
  docno: string;
  rel: number;
  /** 1-based line in the source file. */
  line: number;
}

export type QrelsFormat = 'auto' | 'trec' | 'relevance-mapping';

export interface QrelsReadOptions {
  format?: QrelsFormat;
}

export function parseQrels(text: string, file?: string, opts: QrelsReadOptions = {}): QrelRow[] {
  return parseQrelsLines(splitLines(text.replace(/^\uFEFF/, '')), file, opts.format ?? 'auto');
}

export function parseRelevanceMappingTsv(text: string, file?: string): QrelRow[] {
  return parseQrelsLines(splitLines(text.replace(/^\uFEFF/, '')), file, 'relevance-mapping');
}

export function readQrelsFile(path: string, opts: QrelsReadOptions = {}): QrelRow[] {
  return parseQrelsLines(readLinesSync(path, { maxLineBytes: TREC_MAX_LINE_BYTES }), path, opts.format ?? 'auto');
}

/** Qrels from a file, `-` (stdin) or a `.gz` file, read asynchronously (see ../lines). */
export async function readQrels(path: string, opts: QrelsReadOptions & LineReadOptions = {}): Promise<QrelRow[]> {
  const maxLineBytes = opts.maxLineBytes ?? TREC_MAX_LINE_BYTES;
  // A file (not stdin) with nothing to abort is read synchronously: the same bytes and errors, without
  // loading Node's stream machinery, a third of a short `eval ir`'s start-up (issue 25 item 4).
  const lines = path !== '-' && opts.signal === undefined ? readLinesSync(path, { maxLineBytes }) : await readLines(path, { ...opts, maxLineBytes });
  return parseQrelsLines(lines, inputName(path), opts.format ?? 'auto');
}

const MAPPING_HEADER = ['qid', 'pid', 'relevance_label'];

function parseQrelsLines(lines: readonly NumberedLine[], file: string | undefined, initial: QrelsFormat): QrelRow[] {
  let format = initial;
  const rows: QrelRow[] = [];
  // qid → its judged docnos (the current qid's set kept at hand: qrels come grouped by query).
  const seen = new Map<string, Set<string>>();
  let seenQid: string | undefined;
  let seenDocs = new Set<string>();
  let first = true;
  for (const { line, text } of lines) {
    if (skippable(text)) continue;
    const where: Where = { file, line };
    if (first) {
      first = false;
      if (format === 'auto') format = text.includes('\t') && text.split('\t')[0]!.trim() === 'qid' ? 'relevance-mapping' : 'trec';
      if (format === 'relevance-mapping') {
        const cols = text.split('\t').map((c) => c.trim());
        if (cols.length !== 3 || cols.some((c, i) => c !== MAPPING_HEADER[i])) {
          throw new DataError(`expected the header '${MAPPING_HEADER.join('<TAB>')}'`, { ...where, field: 'header' });
        }
        continue;
      }
    }
    if (format === 'relevance-mapping') checkLineChars(text, where, MAPPING_HEADER, (t) => t.split('\t'));
    else checkLineChars(text, where, ['qid', 'iter', 'docno', 'rel'], fields);
    const row = format === 'relevance-mapping' ? parseMappingRow(text, where) : parseTrecRow(text, where);
    if (row.qid !== seenQid) {
      seenQid = row.qid;
      let docs = seen.get(row.qid);
      if (!docs) seen.set(row.qid, (docs = new Set()));
      seenDocs = docs;
    }
    const size = seenDocs.size;
    seenDocs.add(row.docno);
    if (seenDocs.size === size) throw new DataError(`duplicate judgement of '${row.docno}' for query '${row.qid}'`, { ...where, field: 'docno' });
    rows.push(row);
  }
  return rows;
}

/** `isSkippable` of fields.ts without a regular expression (issue 25 item 4). */
function skippable(text: string): boolean {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i === text.length || text.charCodeAt(i) === 35;
}

/** trec_eval's separators (C isspace without \n): space, \t, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 13;
}

/** `splitWhitespace` of fields.ts by scanning, without regular expressions. */
function fields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i === n) return out;
    const a = i;
    while (i < n && !isSpace(text.charCodeAt(i))) i++;
    out.push(text.slice(a, i));
  }
}

function parseTrecRow(text: string, where: Where): QrelRow {
  const f = fields(text);
  if (f.length !== 4) throw new DataError(`expected 4 columns 'qid iter docno rel', got ${f.length}`, { ...where, field: 'columns' });
  return { qid: f[0]!, iter: f[1]!, docno: f[2]!, rel: parseInteger(f[3]!, 'rel', where), line: where.line };
}

function parseMappingRow(text: string, where: Where): QrelRow {
  const f = text.split('\t').map((c) => c.trim());
  if (f.length !== 3) throw new DataError(`expected 3 tab-separated columns 'qid pid relevance_label', got ${f.length}`, { ...where, field: 'columns' });
  if (f[0] === '') throw new DataError('empty', { ...where, field: 'qid' });
  if (f[1] === '') throw new DataError('empty', { ...where, field: 'pid' });
  return { qid: f[0]!, iter: '0', docno: f[1]!, rel: parseInteger(f[2]!, 'relevance_label', where), line: where.line };
}

/** What a writer needs of a row; `QrelRow` fits. */
export interface QrelWriteRow {
  qid: string;
  /** Default `0`. */
  iter?: string;
  docno: string;
  rel: number;
}

/** `qid iter docno rel` lines in the given order; rejects what a reader would reject. */
export function formatQrels(rows: readonly QrelWriteRow[]): string {
  const seen = new Set<string>();
  let out = '';
  rows.forEach((r, i) => {
    const row = `row ${i + 1}`;
    const iter = r.iter ?? '0';
    checkToken(r.qid, `${row} qid`);
    checkToken(iter, `${row} iter`);
    checkToken(r.docno, `${row} docno`);
    if (!Number.isSafeInteger(r.rel)) throw new DataError(`not an integer: ${r.rel}`, { field: `${row} rel` });
    const key = `${r.qid}\n${r.docno}`;
    if (seen.has(key)) throw new DataError(`duplicate judgement of '${r.docno}' for query '${r.qid}'`, { field: `${row} docno` });
    seen.add(key);
    out += `${r.qid} ${iter} ${r.docno} ${r.rel}\n`;
  });
  return out;
}
