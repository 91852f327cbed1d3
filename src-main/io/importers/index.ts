/**
 * Importers of test collections. Each reads its inputs line by line (strict UTF-8), validates every
 * record and hands records to an `ImportSink` in batches; it writes nothing itself. Errors are
 * DataErrors naming file, line and field. Cancellation: `signal` is checked every few hundred lines.
 */
import { DataError } from '../../core/errors';
import type { ColumnMapping } from './columnMapping';
import { importFairRagLabels, importQrels } from './judgmentImporters';
import { importLamp } from './lampImporter';
import { importMsMarco } from './msmarcoImporter';
import { checkedSink } from './ids';
import type { ImportSink, JsonObject, SourceStats } from './records';
import { LineCounter, type ReadOptions, type TextSource } from './source';
import { importTable } from './tableImporter';

export const IMPORT_KINDS = ['corpus', 'queries', 'qrels', 'lamp', 'msmarco', 'fairrag-mapping'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export type { ColumnMapping, TableFormat } from './columnMapping';
export type { DocumentRecord, QueryRecord, JudgmentRecord, ImportSink, SourceStats, SourceRole, Subaspect, JudgmentKind, JsonObject } from './records';
export { fileSource, textSource, ImportCancelledError, type TextSource, type ReadOptions } from './source';
export { LAMP_TASKS, lampTaskByName, type LampTask } from './lampTasks';
export { MAX_ID_CHARS, idProblem } from './ids';

export async function runImporter(kind: ImportKind, sources: readonly TextSource[], mapping: ColumnMapping, given: ImportSink, opts: ReadOptions = {}): Promise<SourceStats[]> {
  const sink = checkedSink(given); // every format's ids: no whitespace, control characters or NUL, at most MAX_ID_CHARS
  if (sources.length === 0) throw new DataError('no files to import', { field: 'files' });
  const counter = new LineCounter(opts);
  const provenance: JsonObject = {};
  if (mapping.generator) provenance.generator = mapping.generator;
  if (mapping.metric) provenance.metric = mapping.metric;
  switch (kind) {
    case 'corpus':
    case 'queries':
      return importTable(kind, sources, mapping, sink, counter);
    case 'qrels':
      return importQrels(sources, 'relevance', sink, counter, provenance);
    case 'fairrag-mapping':
      if (sources.length > 2) throw new DataError('a Fair-RAG label import takes the relevance mapping and, optionally, the delta file', { field: 'files' });
      return importFairRagLabels(sources, sink, counter, provenance);
    case 'lamp':
      if (sources.length > 2) throw new DataError('a LaMP import takes the questions file and, optionally, the outputs file', { field: 'files' });
      return importLamp(sources, { lampTask: mapping.lampTask }, sink, counter);
    case 'msmarco':
      if (sources.length > 3) throw new DataError('an MS MARCO import takes collection.tsv, a queries file and a qrels file', { field: 'files' });
      return importMsMarco(sources, sink, counter);
  }
}

export interface TablePreview {
  format: 'jsonl' | 'json' | 'csv' | 'tsv' | 'text';
  columns: string[];
  /** The first rows as text cells (JSON values other than strings are shown as JSON). */
  rows: Record<string, string>[];
  /** The mapping the import would use when none is given (corpus/queries only). */
  suggested: ColumnMapping;
  /**
   * For kinds that are not tables (LaMP, qrels, …): the first records the importer accepted, written back one a line —
   * never a raw line of the file (services/collectionsPreviewCheck.ts builds it).
   */
  lines: string[];
}
