/**
 * Issue 26 item 7: `collections.previewFile` returns a preview only of a file that parses as the
 * chosen kind. Before, a text file previewed as `qrels` (or as a one-column TSV) came back line by
 * line, so any readable file could be read through the preview (a key file included). Checked on
 * the preview's first lines (whole lines, not the preview's cut ones):
 *  - text: no control character other than tab (a binary file, or UTF-16, is refused);
 *  - corpus / queries: at least two columns (an id and a text) as the format reads them, every row
 *    with the header's column count (the table reader's own check);
 *  - qrels, Fair-RAG mapping, MS MARCO: the first line imports cleanly with the real importer into
 *    a sink that keeps nothing (a bad line after it is the import's error, named when it runs);
 *  - LaMP: a JSON array (questions) or object (outputs), as the importer's first check.
 * A failure is a DataError naming the file, the line and the field; no line of the file is returned.
 */
import { DataError } from '../core/errors';
import { runImporter, textSource, type ColumnMapping, type ImportKind, type ImportSink, type TextSource } from '../io/importers/index';

const DISCARD: ImportSink = { documents: () => {}, queries: () => {}, judgments: () => {} };

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Returns the line of the first bad line after a good first line (the preview is then cut before it,
 * so no line that is not of this kind comes back), or undefined when every previewed line parses.
 */
export async function checkPreviewParses(source: TextSource, kind: ImportKind, mapping: ColumnMapping, preview: { format: string; columns: string[] }, maxLines = 9): Promise<number | undefined> {
  const first: { line: number; text: string }[] = [];
  for await (const l of source.lines()) {
    first.push(l);
    if (first.length >= maxLines) break;
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
  if (kind === 'corpus' || kind === 'queries') {
    if (preview.columns.length < 2) {
      const why = preview.format === 'tsv' ? ' (no tab on the first line)' : preview.format === 'csv' ? ' (no comma on the first line)' : '';
      throw new DataError(
        `read as ${preview.format.toUpperCase()}, the file has ${preview.columns.length} column${preview.columns.length === 1 ? '' : 's'}${why}; a ${kind === 'corpus' ? 'corpus' : 'queries'} file needs an id and a text column`,
        { file: source.name, line: nonEmpty.line, field: 'columns' },
      );
    }
    return undefined;
  }
  if (kind === 'lamp') {
    const c = nonEmpty.text.trimStart()[0];
    if (c !== '[' && c !== '{') throw new DataError(`expected LaMP questions (a JSON array) or outputs (a JSON object), found ${JSON.stringify(c)}`, { file: source.name, line: nonEmpty.line, field: 'file' });
    return undefined;
  }
  try {
    await runImporter(kind, [textSource(source.name, first.map((l) => l.text).join('\n'))], mapping, DISCARD);
  } catch (err) {
    // A file of this kind with a bad line further down previews (the import then fails naming that
    // line, and the dialog shows it); a file whose first line is not of this kind does not.
    if (err instanceof DataError && err.line !== undefined && err.line > nonEmpty.line) return err.line;
    throw err;
  }
  return undefined;
}
