/**
 * Rows of a table-like file as JSON objects: JSON lines, a JSON array of objects, CSV (RFC 4180)
 * or TSV. CSV/TSV rows are keyed by the header (or 1, 2, 3, … without one); every row must have
 * as many fields as the header.
 */
import { DataError } from '../../core/errors';
import type { ColumnMapping, TableFormat } from './columnMapping';
import { describe } from './columnMapping';
import { readDelimitedRecords } from './delimited';
import { jsonSyntaxError, parseElement, streamJsonElements } from './jsonElements';
import { quoteId, type JsonObject } from './records';
import type { LineCounter, TextSource } from './source';
import { checkJsonDepth } from '../jsonText';
import { isLongLine, resolveMarkers, type JsonlItem, type LongTextStore } from './longText';

export interface TableRow {
  line: number;
  row: JsonObject;
}

/** The format from the mapping, else from the file name; JSON lines when the name says nothing. */
export function tableFormatOf(baseName: string, mapping: ColumnMapping = {}): TableFormat {
  if (mapping.format) return mapping.format;
  const lower = baseName.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.tsv') || lower.endsWith('.tab') || lower.endsWith('.txt')) return 'tsv';
  if (lower.endsWith('.json')) return 'json';
  return 'jsonl';
}

export interface TableReader {
  /** Column names: the header (CSV/TSV) — known once the first row has been read; undefined for JSON. */
  columns(): string[] | undefined;
  /** Line of the CSV/TSV header (or of the first record without one). */
  headerLine(): number | undefined;
  rows: AsyncGenerator<TableRow>;
}

/**
 * `longTexts`: a JSON-lines file's long lines are scanned as bytes and their long strings stored
 * there (longText.ts); a row's top-level string value may then be a LongText where `keepLong(key)`
 * says the caller takes one (other long values are read back as strings).
 */
export function readTableRows(source: TextSource, counter: LineCounter, mapping: ColumnMapping = {}, long?: { longTexts: LongTextStore; keepLong: (key: string) => boolean }): TableReader {
  const format = tableFormatOf(source.baseName, mapping);
  const file = source.name;
  let columns: string[] | undefined;
  let headerLine: number | undefined;

  async function* jsonLines(): AsyncGenerator<TableRow> {
    const items: AsyncGenerator<JsonlItem> = long && source.jsonItems ? counter.count(source.jsonItems(long.longTexts, () => counter.throwIfCancelled())) : counter.lines(source);
    for await (const item of items) {
      if (isLongLine(item)) {
        yield { line: item.line, row: resolveMarkers(parseLine(item.reduced, item.line), item.markers, long!.keepLong, { file, line: item.line }) };
        continue;
      }
      const { line, text } = item;
      if (text.trim() === '') continue;
      yield { line, row: parseLine(text, line) };
    }
  }

  function parseLine(text: string, line: number): JsonObject {
    let value: unknown;
    checkJsonDepth(text, file, line);
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw jsonSyntaxError(err, text, file, line);
    }
    return asObject(value, file, line);
  }

  async function* jsonArray(): AsyncGenerator<TableRow> {
    const stream = streamJsonElements(counter.lines(source), file);
    for await (const el of stream.elements) {
      if (stream.container() !== '[') throw new DataError('expected a JSON array of objects, found an object', { file, line: el.line });
      yield { line: el.line, row: asObject(parseElement(el, file), file, el.line) };
    }
    if (stream.container() !== '[') throw new DataError('expected a JSON array of objects, found an object', { file });
  }

  async function* delimited(): AsyncGenerator<TableRow> {
    const quoted = format === 'csv';
    const delimiter = format === 'csv' ? (mapping.delimiter ?? ',') : '\t';
    const header = mapping.header ?? true;
    for await (const rec of readDelimitedRecords(counter.lines(source), file, { delimiter, quoted })) {
      if (!columns) {
        headerLine = rec.line;
        if (header) {
          columns = rec.fields.map((c) => c.trim());
          checkHeader(columns, file, rec.line);
          continue;
        }
        columns = rec.fields.map((_, i) => String(i + 1));
      }
      if (rec.fields.length !== columns.length) {
        throw new DataError(`expected ${columns.length} columns${header ? ' (as in the header)' : ''}, got ${rec.fields.length}`, { file, line: rec.line, field: 'columns' });
      }
      const row: JsonObject = {};
      columns.forEach((c, i) => (row[c] = rec.fields[i]));
      yield { line: rec.line, row };
    }
  }

  const rows = format === 'jsonl' ? jsonLines() : format === 'json' ? jsonArray() : delimited();
  return { columns: () => columns, headerLine: () => headerLine, rows };
}

function asObject(value: unknown, file: string, line: number): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError(`expected a JSON object, got ${describe(value)}`, { file, line });
  return value as JsonObject;
}

function checkHeader(columns: string[], file: string, line: number): void {
  const seen = new Set<string>();
  columns.forEach((c, i) => {
    if (c === '') throw new DataError(`column ${i + 1} of the header has no name`, { file, line, field: 'header' });
    if (seen.has(c)) throw new DataError(`column ${quoteId(c)} appears twice in the header`, { file, line, field: 'header' });
    seen.add(c);
  });
}
