/**
 * `collections.previewFile` returns only what the chosen kind's parser accepted (issue 26 item 7, issue 36 item 2):
 * never a raw line of the file. Before, a text file previewed as `qrels` (or as a one-column TSV) came back line by line,
 * and a LaMP preview returned any file beginning with `[` or `{` as raw lines (`~/.aws/credentials`, a Docker config).
 *
 * What comes back, by kind:
 *  - corpus / queries: the table reader's parsed rows (cells by column) of a file with at least two columns (an id and a
 *    text) and at least one data row; no `lines`;
 *  - qrels, Fair-RAG mapping, MS MARCO: the records the real importer produced from the file's first lines, written
 *    back in the kind's own form (`q1 0 d1 1`, `q1 d1 1`, `pid<TAB>text`);
 *  - LaMP questions: one line per question the importer accepted (`{"id", "input", "task", "profile"}`, the profile as
 *    its item count); LaMP outputs: the task and the first golds as parsed.
 *
 * Refusals are DataErrors naming the file, the line and the field, quoting nothing of the file: a control character
 * (a binary or UTF-16 file), an empty file, a first record that does not parse. A record that does not parse after good
 * ones ends the preview there (the import names that line when it runs).
 */
import { DataError } from '../core/errors';
import {
  runImporter,
  textSource,
  type ColumnMapping,
  type DocumentRecord,
  type ImportKind,
  type ImportSink,
  type JudgmentRecord,
  type QueryRecord,
  type TablePreview,
  type TextSource,
} from '../io/importers/index';
import { previewLamp } from '../io/importers/lampImporter';
import { LineCounter } from '../io/importers/source';
import { suggestMapping } from '../io/importers/columnMapping';
import { readTableRows, tableFormatOf } from '../io/importers/tableRows';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Records shown at most. */
export const PREVIEW_RECORDS = 8;
/** Lines read for the line-based kinds (one record a line). */
const WINDOW_LINES = 64;

/** A preview of `source` as `kind` built from parsed records only (see the header). */
export async function previewParsed(source: TextSource, kind: ImportKind, mapping: ColumnMapping = {}, maxRecords = PREVIEW_RECORDS): Promise<TablePreview> {
  const first: { line: number; text: string }[] = [];
  for await (const l of source.lines()) {
    first.push(l);
    if (first.length >= WINDOW_LINES) break;
  }
  for (const { line, text } of first) {
    const m = CONTROL.exec(text);
    if (m) {
      const code = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      throw new DataError(`not a text file (control character U+${code}): a binary file cannot be previewed or imported as ${kind}`, { file: source.name, line, field: 'file' });
    }
  }
  const nonEmpty = first.find((l) => l.text.trim() !== '');
  if (!nonEmpty) throw new DataError(`the file is empty: nothing to preview as ${kind}`, { file: source.name, field: 'file' });
  if (kind === 'corpus' || kind === 'queries') return previewTableRows(source, kind, mapping, maxRecords, nonEmpty.line);
  if (kind === 'lamp') {
    const lines = await previewLamp(source, { lampTask: mapping.lampTask }, maxRecords);
    return { format: 'text', columns: [], rows: [], suggested: {}, lines };
  }
  return { format: 'text', columns: [], rows: [], suggested: {}, lines: await previewLineRecords(source, kind, mapping, first, nonEmpty.line, maxRecords) };
}

/** Corpus and queries: the rows the table reader parsed, cut to `maxRecords`; an id and a text column and a data row needed. */
async function previewTableRows(source: TextSource, kind: 'corpus' | 'queries', mapping: ColumnMapping, maxRecords: number, firstLine: number): Promise<TablePreview> {
  const format = tableFormatOf(source.baseName, mapping);
  const reader = readTableRows(source, new LineCounter(), mapping);
  const rows: Record<string, string>[] = [];
  const columns: string[] = [];
  for await (const { row } of reader.rows) {
    const cells: Record<string, string> = {};
    for (const [k, v] of Object.entries(row)) {
      if (!columns.includes(k)) columns.push(k);
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      cells[k] = text.length > 300 ? `${text.slice(0, 300)}…` : text;
    }
    rows.push(cells);
    if (rows.length >= maxRecords) break;
  }
  const cols = reader.columns() ?? columns;
  const what = kind === 'corpus' ? 'corpus' : 'queries';
  if (cols.length < 2) {
    const why = format === 'tsv' ? ' (no tab on the first line)' : format === 'csv' ? ' (no comma on the first line)' : '';
    throw new DataError(
      `read as ${format.toUpperCase()}, the file has ${cols.length} column${cols.length === 1 ? '' : 's'}${why}; a ${what} file needs an id and a text column`,
      { file: source.name, line: reader.headerLine() ?? firstLine, field: 'columns' },
    );
  }
  if (rows.length === 0) {
    throw new DataError(`no ${kind === 'corpus' ? 'documents' : 'queries'} in the file (a header line and no row)`, { file: source.name, line: reader.headerLine() ?? firstLine, field: 'rows' });
  }
  return { format, columns: cols, rows, suggested: suggestMapping(cols, kind, mapping), lines: [] };
}

/**
 * qrels, Fair-RAG mapping, MS MARCO: the real importer over the file's first lines (one record a line). A bad line after
 * the first record ends the preview before it; a bad first record refuses the file.
 */
async function previewLineRecords(source: TextSource, kind: ImportKind, mapping: ColumnMapping, window: readonly { line: number; text: string }[], firstLine: number, maxRecords: number): Promise<string[]> {
  const attempt = async (lines: readonly { line: number; text: string }[]): Promise<string[]> => {
    const out: string[] = [];
    const sink: ImportSink = {
      documents: (b: DocumentRecord[]) => void out.push(...b.map((d) => `${d.docId}\t${cut(d.title ? `${d.title} — ${d.text}` : d.text)}`)),
      queries: (b: QueryRecord[]) => void out.push(...b.map((q) => `${q.queryId}\t${cut(q.text)}`)),
      judgments: (b: JudgmentRecord[]) => void out.push(...b.map((j) => (kind === 'qrels' ? `${j.queryId} 0 ${j.docId} ${j.label}` : `${j.queryId} ${j.docId} ${j.label}`))),
    };
    await runImporter(kind, [textSource(source.name, lines.map((l) => l.text).join('\n'))], mapping, sink);
    return out.slice(0, maxRecords);
  };
  try {
    return await attempt(window);
  } catch (err) {
    // A file of this kind with a bad line further down previews up to it (the import names that line when it runs); a
    // file whose first line is not of this kind does not.
    if (err instanceof DataError && err.line !== undefined && err.line > firstLine) {
      const before = window.filter((l) => l.line < err.line!);
      return attempt(before);
    }
    throw err;
  }
}

function cut(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
