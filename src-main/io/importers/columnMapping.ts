/**
 * Which column (CSV/TSV header name, or JSON key) holds what. Unmapped columns go into `attrs`
 * unless `attrColumns` lists the ones to keep. Missing options are guessed from the column names
 * (`suggestMapping`), the same guess the import dialog shows as its default.
 */
import { DataError } from '../../core/errors';
import { quoteId, type DocumentRecord, type JsonObject, type QueryRecord, type Subaspect } from './records';

export type TableFormat = 'jsonl' | 'json' | 'csv' | 'tsv';

export interface ColumnMapping {
  /** Default: from the file name (.jsonl/.ndjson, .json, .csv, .tsv/.tab/.txt). */
  format?: TableFormat | undefined;
  /** CSV only; default ','. */
  delimiter?: string | undefined;
  /** CSV/TSV: the first record names the columns (default true). Without a header columns are named 1, 2, 3, … */
  header?: boolean | undefined;
  idColumn?: string | undefined;
  textColumn?: string | undefined;
  titleColumn?: string | undefined;
  /** Columns copied into attrs; default every column not mapped to something else. */
  attrColumns?: string[] | undefined;
  answersColumn?: string | undefined;
  taskColumn?: string | undefined;
  metricColumn?: string | undefined;
  subaspectsColumn?: string | undefined;
  candidatesColumn?: string | undefined;
  /** Task and metric for every query that has no task/metric column value. */
  task?: string | undefined;
  metric?: string | undefined;
  /** Judgment provenance stamped on imported labels (Fair-RAG labels are generator-specific). */
  generator?: string | undefined;
  /** LaMP: the task number when the outputs file is absent, e.g. 'LaMP-2'. */
  lampTask?: string | undefined;
}

export type Role = 'corpus' | 'queries';

const GUESSES: Record<string, readonly string[]> = {
  id: ['id', '_id', 'docid', 'doc_id', 'docno', 'pid', 'qid', 'query_id', 'queryid'],
  corpusText: ['text', 'contents', 'content', 'body', 'passage', 'abstract', 'description'],
  queryText: ['text', 'query', 'question', 'input', 'contents', 'content'],
  title: ['title', 'headline'],
  answers: ['answers', 'answer', 'output', 'outputs', 'gold', 'golds'],
  task: ['task'],
  metric: ['metric'],
  subaspects: ['subaspects', 'sub_aspects', 'aspects'],
  candidates: ['candidates', 'candidate_ids', 'profile_ids'],
};

function guess(columns: readonly string[], names: readonly string[], used: ReadonlySet<string>): string | undefined {
  for (const n of names) {
    const hit = columns.find((c) => c.toLowerCase() === n && !used.has(c));
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** Fill the unset column options from the column names; explicit options win, and a column is used once. */
export function suggestMapping(columns: readonly string[], role: Role, given: ColumnMapping = {}): ColumnMapping {
  const out: ColumnMapping = { ...given };
  const used = new Set<string>(
    [given.idColumn, given.textColumn, given.titleColumn, given.answersColumn, given.taskColumn, given.metricColumn, given.subaspectsColumn, given.candidatesColumn].filter(
      (c): c is string => c !== undefined,
    ),
  );
  const pick = (key: keyof ColumnMapping & `${string}Column`, names: readonly string[], fallback?: () => string | undefined) => {
    if (out[key] !== undefined) return;
    const hit = guess(columns, names, used) ?? fallback?.();
    if (hit !== undefined) {
      out[key] = hit;
      used.add(hit);
    }
  };
  pick('idColumn', GUESSES.id!, () => (columns.length >= 2 ? columns.find((c) => !used.has(c)) : undefined));
  pick('textColumn', role === 'corpus' ? GUESSES.corpusText! : GUESSES.queryText!, () => (columns.length >= 2 ? columns.find((c) => !used.has(c)) : undefined));
  if (role === 'corpus') pick('titleColumn', GUESSES.title!);
  if (role === 'queries') {
    pick('answersColumn', GUESSES.answers!);
    pick('taskColumn', GUESSES.task!);
    pick('metricColumn', GUESSES.metric!);
    pick('subaspectsColumn', GUESSES.subaspects!);
    pick('candidatesColumn', GUESSES.candidates!);
  }
  return out;
}

/** A mapping checked against the file's columns: id and text are known. */
export interface ResolvedMapping extends ColumnMapping {
  idColumn: string;
  textColumn: string;
  /** Columns that are mapped to a field (never copied into attrs by default). */
  mapped: ReadonlySet<string>;
}

export function resolveMapping(columns: readonly string[] | undefined, role: Role, given: ColumnMapping, file: string, line?: number, checkNames = true): ResolvedMapping {
  const m = columns ? suggestMapping(columns, role, given) : given;
  if (!m.idColumn) throw new DataError('no id column: set the id column of the mapping', { file, line, field: 'idColumn' });
  if (!m.textColumn) throw new DataError('no text column: set the text column of the mapping', { file, line, field: 'textColumn' });
  if (columns && checkNames) {
    for (const key of ['idColumn', 'textColumn', 'titleColumn', 'answersColumn', 'taskColumn', 'metricColumn', 'subaspectsColumn', 'candidatesColumn'] as const) {
      const col = m[key];
      if (col !== undefined && !columns.includes(col)) {
        // A quoted CSV header may hold line breaks; the message stays on one line.
        const names = columns.map((c) => `'${c.replace(/\r?\n/g, '\\n')}'`).join(', ');
        throw new DataError(`the mapping names column '${col}', but the columns are ${names}`, { file, line, field: key });
      }
    }
  }
  const mapped = new Set<string>(
    [m.idColumn, m.textColumn, m.titleColumn, m.answersColumn, m.taskColumn, m.metricColumn, m.subaspectsColumn, m.candidatesColumn].filter((c): c is string => c !== undefined),
  );
  return { ...m, idColumn: m.idColumn, textColumn: m.textColumn, mapped };
}

interface Where {
  file: string;
  line: number;
}

/** An id: a non-empty string or a whole number (written as JS prints it). Its characters are checked by ids.ts. */
export function readId(value: unknown, field: string, where: Where): string {
  if (value === undefined || value === null) throw new DataError('missing id', { ...where, field });
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Beyond 2^53 a JSON number has already been rounded (123456789012345678901234567890 reads
    // as 1.2345678901234568e+29): refuse it rather than store another id (issue 15 item 6).
    if (!Number.isSafeInteger(value) && Number.isInteger(value)) {
      throw new DataError(`the number ${String(value)} is too large to keep exactly as an id (beyond 2^53); write the id as a string ("…")`, { ...where, field });
    }
    // 1.5, 1e-7: a measurement mapped as the id, or a float that prints differently elsewhere (Python: 1e-07).
    if (!Number.isInteger(value)) throw new DataError(`the number ${String(value)} is not an integer; an id given as a number must be a whole number (write other ids as strings)`, { ...where, field });
    return String(value);
  }
  if (typeof value !== 'string') throw new DataError(`expected a string or a number, got ${describe(value)}`, { ...where, field });
  if (value.trim() === '') throw new DataError('missing id (empty)', { ...where, field });
  return value;
}

function readText(value: unknown, field: string, where: Where, required: boolean): string {
  if (value === undefined || value === null) {
    if (required) throw new DataError('missing', { ...where, field });
    return '';
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new DataError(`expected a string, got ${describe(value)}`, { ...where, field });
  return value;
}

function optionalText(value: unknown, field: string, where: Where): string | null {
  if (value === undefined || value === null || value === '') return null;
  return readText(value, field, where, false);
}

/** CSV cells holding lists/objects are JSON text; JSON sources hold them directly. */
function jsonCell(value: unknown, field: string, where: Where): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (!t.startsWith('[') && !t.startsWith('{')) return value;
  try {
    return JSON.parse(t);
  } catch (err) {
    throw new DataError(`invalid JSON (${(err as Error).message})`, { ...where, field });
  }
}

function readAnswers(raw: unknown, field: string, where: Where): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const value = jsonCell(raw, field, where);
  if (typeof value === 'string' || typeof value === 'number') return [String(value)];
  if (Array.isArray(value)) {
    return value.map((a, i) => {
      if (typeof a === 'string') return a;
      if (typeof a === 'number') return String(a);
      throw new DataError(`expected a string, got ${describe(a)}`, { ...where, field: `${field}[${i}]` });
    });
  }
  throw new DataError(`expected a string or a list of strings, got ${describe(value)}`, { ...where, field });
}

function readSubaspects(raw: unknown, field: string, where: Where): Subaspect[] | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const value = jsonCell(raw, field, where);
  if (!Array.isArray(value)) throw new DataError(`expected a list of {aspect, answer}, got ${describe(value)}`, { ...where, field });
  return value.map((s, i) => {
    const f = `${field}[${i}]`;
    if (s === null || typeof s !== 'object' || Array.isArray(s)) throw new DataError(`expected {aspect, answer}, got ${describe(s)}`, { ...where, field: f });
    const o = s as JsonObject;
    if (typeof o.aspect !== 'string' || o.aspect.trim() === '') throw new DataError('missing', { ...where, field: `${f}.aspect` });
    const answer = o.answer ?? '';
    if (typeof answer !== 'string') throw new DataError(`expected a string, got ${describe(answer)}`, { ...where, field: `${f}.answer` });
    return { aspect: o.aspect, answer };
  });
}

function readCandidates(raw: unknown, field: string, where: Where): string[] | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const value = jsonCell(raw, field, where);
  if (!Array.isArray(value)) throw new DataError(`expected a list of document ids, got ${describe(value)}`, { ...where, field });
  const seen = new Set<string>();
  return value.map((v, i) => {
    const id = readId(v, `${field}[${i}]`, where);
    if (seen.has(id)) throw new DataError(`document ${quoteId(id)} is listed twice`, { ...where, field: `${field}[${i}]` });
    seen.add(id);
    return id;
  });
}

function attrsOf(row: JsonObject, m: ResolvedMapping): JsonObject {
  const attrs: JsonObject = {};
  const keys = m.attrColumns ?? Object.keys(row).filter((k) => !m.mapped.has(k));
  for (const k of keys) if (row[k] !== undefined) attrs[k] = row[k];
  return attrs;
}

export function rowToDocument(row: JsonObject, m: ResolvedMapping, where: Where): DocumentRecord {
  return {
    docId: readId(row[m.idColumn], m.idColumn, where),
    title: m.titleColumn ? readText(row[m.titleColumn], m.titleColumn, where, false) : '',
    text: readText(row[m.textColumn], m.textColumn, where, true),
    attrs: attrsOf(row, m),
    file: where.file,
    line: where.line,
  };
}

export function rowToQuery(row: JsonObject, m: ResolvedMapping, where: Where): QueryRecord {
  return {
    queryId: readId(row[m.idColumn], m.idColumn, where),
    text: readText(row[m.textColumn], m.textColumn, where, true),
    answers: m.answersColumn ? readAnswers(row[m.answersColumn], m.answersColumn, where) : [],
    task: (m.taskColumn ? optionalText(row[m.taskColumn], m.taskColumn, where) : null) ?? m.task ?? null,
    metric: (m.metricColumn ? optionalText(row[m.metricColumn], m.metricColumn, where) : null) ?? m.metric ?? null,
    subaspects: m.subaspectsColumn ? readSubaspects(row[m.subaspectsColumn], m.subaspectsColumn, where) : null,
    candidates: m.candidatesColumn ? readCandidates(row[m.candidatesColumn], m.candidatesColumn, where) : null,
    attrs: attrsOf(row, m),
    file: where.file,
    line: where.line,
  };
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
