/**
 * CSV (RFC 4180) and TSV records over numbered lines.
 *
 * CSV: fields are separated by the delimiter; a field may be enclosed in double quotes, and then it
 * may contain the delimiter, line breaks and quotes written twice (`""`). A record that spans lines
 * keeps the number of the line it starts on; a line break inside quotes becomes `\n` (a CRLF in
 * the file too). Strictly RFC 4180: a quote inside an unquoted field, text after a closing quote and
 * a quote left open at the end of the file are errors naming the line and column.
 *
 * TSV (IANA text/tab-separated-values, MS MARCO): one record per line, fields split at tabs, no
 * quoting: a `"` is an ordinary character (MS MARCO passages are full of them).
 *
 * Blank lines between records are skipped in both.
 */
import { DataError } from '../../core/errors';
import type { NumberedLine } from '../lines';

export interface DelimitedRecord {
  /** Line the record starts on. */
  line: number;
  fields: string[];
}

export interface DelimitedOptions {
  delimiter: string;
  /** RFC 4180 quoting (CSV); false for TSV. */
  quoted: boolean;
}

export async function* readDelimitedRecords(lines: AsyncIterable<NumberedLine>, file: string, opts: DelimitedOptions): AsyncGenerator<DelimitedRecord> {
  const { delimiter, quoted } = opts;
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new DataError(`the delimiter must be one character other than a quote or a line break, got ${JSON.stringify(delimiter)}`, { field: 'delimiter' });
  }
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let afterQuote = false;
  let startLine = 0;
  let quoteLine = 0;

  for await (const { line, text } of lines) {
    if (!inQuotes) {
      if (text === '') continue;
      startLine = line;
      if (!quoted || !text.includes('"')) {
        yield { line, fields: text.split(delimiter) };
        continue;
      }
      fields = [];
      field = '';
      afterQuote = false;
    } else {
      field += '\n';
    }
    let i = 0;
    while (i < text.length) {
      if (inQuotes) {
        const q = text.indexOf('"', i);
        if (q === -1) {
          field += text.slice(i);
          i = text.length;
          break;
        }
        field += text.slice(i, q);
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          inQuotes = false;
          afterQuote = true;
          i = q + 1;
        }
        continue;
      }
      const c = text[i]!;
      if (c === delimiter) {
        fields.push(field);
        field = '';
        afterQuote = false;
        i++;
        continue;
      }
      const where = { file, line, field: `column ${fields.length + 1}` };
      if (afterQuote) throw new DataError(`unexpected ${JSON.stringify(c)} after the closing quote (a quoted field must end at a delimiter or the end of the record)`, where);
      if (c === '"') {
        if (field !== '') throw new DataError('a quote inside an unquoted field (RFC 4180: enclose the whole field in quotes and write inner quotes twice)', where);
        inQuotes = true;
        quoteLine = line;
        i++;
        continue;
      }
      field += c;
      i++;
    }
    if (!inQuotes) {
      fields.push(field);
      yield { line: startLine, fields };
    }
  }
  if (inQuotes) {
    throw new DataError(`a quoted field opened here is never closed (record starting at line ${startLine})`, { file, line: quoteLine, field: `column ${fields.length + 1}` });
  }
}
