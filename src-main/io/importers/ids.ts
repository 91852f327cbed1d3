/**
 * What an id may be. Ids end up in TREC run and qrels files (whitespace-separated columns), in `retrieve --output`,
 * in prompts and in file names of exports, so an id with whitespace, a control character or NUL breaks every later
 * file of the whole collection; an id of a megabyte is a mistake (a text column mapped as the id). Every importer's
 * records pass through `checkedSink`, which refuses such an id naming the file and line it came from.
 */
import { DataError, quoteIdText } from '../../core/errors';
import { UNSAFE_ID_CHAR, unsafeCharName } from '../trec/fields';
import type { DocumentRecord, ImportSink, JudgmentRecord, QueryRecord } from './records';

/** The longest id accepted (characters). */
export const MAX_ID_CHARS = 512;

/** Why `id` cannot be an id, or null. */
export function idProblem(id: string): string | null {
  if (id.length === 0) return 'empty';
  if (id.length > MAX_ID_CHARS) return `${id.length} characters long; an id may have at most ${MAX_ID_CHARS}`;
  const bidi = UNSAFE_ID_CHAR.exec(id);
  if (bidi && bidi[0] !== '\u0000') {
    return `contains ${unsafeCharName(bidi[0])} at character ${bidi.index + 1}; ids may not contain bidirectional controls (they would show in another order than they are stored)`;
  }
  const bad = /[\u0000-\u001f\u007f-\u009f\s\u2028\u2029\ufeff]/u.exec(id);
  if (bad) {
    const c = bad[0];
    const name = c === '\u0000' ? 'NUL' : c === ' ' ? 'a space' : c === '\t' ? 'a tab' : c === '\n' || c === '\r' ? 'a line break' : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `contains ${name} at character ${bad.index + 1}; ids may not contain whitespace or control characters (they end up in whitespace-separated TREC files)`;
  }
  return null;
}

function check(id: string, what: string, where: { file: string; line: number }): void {
  const problem = idProblem(id);
  if (problem) throw new DataError(`${what} ${quoteIdText(id)} is not a usable id: ${problem}`, { file: where.file, line: where.line, field: what });
}

/** `sink` with every record's ids checked first (a whole batch before any of it is passed on). */
export function checkedSink(sink: ImportSink): ImportSink {
  return {
    longTexts: sink.longTexts,
    documents(batch: DocumentRecord[]) {
      for (const r of batch) check(r.docId, 'document id', r);
      return sink.documents(batch);
    },
    queries(batch: QueryRecord[]) {
      for (const r of batch) {
        check(r.queryId, 'query id', r);
        r.candidates?.forEach((c, i) => check(c, `candidates[${i}]`, r));
      }
      return sink.queries(batch);
    },
    judgments(batch: JudgmentRecord[]) {
      for (const r of batch) {
        check(r.queryId, 'query id', r);
        check(r.docId, 'document id', r);
      }
      return sink.judgments(batch);
    },
  };
}
