/**
 * Corpora and query sets from JSON lines, JSON arrays, CSV or TSV with a column mapping
 * (columnMapping.ts). One record per row; ids must be unique (the sink checks, across all files of
 * the import).
 */
import { DataError } from '../../core/errors';
import { Batcher } from './batcher';
import { resolveMapping, rowToDocument, rowToQuery, type ColumnMapping, type ResolvedMapping, type Role } from './columnMapping';
import type { DocumentRecord, ImportSink, QueryRecord, SourceStats } from './records';
import type { LineCounter, TextSource } from './source';
import { LongText } from './longText';
import { readTableRows, tableFormatOf } from './tableRows';

export async function importTable(role: Role, sources: readonly TextSource[], mapping: ColumnMapping, sink: ImportSink, counter: LineCounter): Promise<SourceStats[]> {
  const stats: SourceStats[] = [];
  for (const source of sources) {
    const file = source.name;
    // A corpus's texts of more than a megabyte go to the sink's store in pieces (longText.ts).
    const longTexts = role === 'corpus' ? sink.longTexts : undefined;
    const reader = readTableRows(source, counter, mapping, longTexts ? { longTexts, keepLong: () => true } : undefined);
    const jsonSource = tableFormatOf(source.baseName, mapping).startsWith('json');
    const docs = new Batcher<DocumentRecord>((b) => sink.documents(b));
    const queries = new Batcher<QueryRecord>((b) => sink.queries(b));
    let base: ResolvedMapping | undefined;
    let rows = 0;
    for await (const { line, row } of reader.rows) {
      let m: ResolvedMapping;
      if (jsonSource) {
        // JSON objects may differ in their keys: id and text columns come from the first row (or
        // the mapping); optional fields (title, answers, …) are looked up in each row.
        base ??= resolveMapping(Object.keys(row), role, mapping, file, line, false);
        m = resolveMapping(Object.keys(row), role, { ...mapping, idColumn: base.idColumn, textColumn: base.textColumn }, file, line, false);
      } else {
        m = base ??= resolveMapping(reader.columns(), role, mapping, file, reader.headerLine());
      }
      const where = { file, line };
      let longText: LongText | undefined;
      for (const [k, v] of Object.entries(row)) {
        if (!(v instanceof LongText)) continue;
        if (k === m.textColumn) {
          longText = v;
          row[k] = '';
        } else row[k] = v.read();
      }
      if (role === 'corpus') await docs.add(longText ? { ...rowToDocument(row, m, where), longText } : rowToDocument(row, m, where));
      else await queries.add(rowToQuery(row, m, where));
      rows++;
    }
    await docs.flush();
    await queries.flush();
    if (rows === 0) throw new DataError(`no ${role === 'corpus' ? 'documents' : 'queries'} in the file`, { file });
    stats.push({ name: file, role, rows });
  }
  return stats;
}
