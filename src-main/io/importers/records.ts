/**
 * What importers produce: documents, queries and judgments, each with the file and line it came
 * from so that a later check (a duplicate, a conflict with the stored collection) can still name
 * the place in the user's file. Importers only parse and validate; writing is the caller's job
 * (services/collectionsImport.ts stages the records and commits them in one transaction).
 */

import { quoteIdText } from '../../core/errors';
import type { LongText, LongTextStore } from './longText';

export type JsonObject = Record<string, unknown>;

export interface Origin {
  /** The file as the user named it (a path, or an uploaded file's name). */
  file: string;
  /** 1-based line where the record starts. */
  line: number;
}

export interface DocumentRecord extends Origin {
  docId: string;
  title: string;
  /** The text; '' when it is `longText`. */
  text: string;
  attrs: JsonObject;
  /**
   * A text of more than a megabyte kept in the sink's `longTexts` store (longText.ts); only a sink
   * that has such a store receives one.
   */
  longText?: LongText | undefined;
}

export interface Subaspect {
  aspect: string;
  answer: string;
}

export interface QueryRecord extends Origin {
  queryId: string;
  text: string;
  answers: string[];
  task: string | null;
  metric: string | null;
  subaspects: Subaspect[] | null;
  /** Per-query corpus (a LaMP user's profile): doc ids, in the file's order. */
  candidates: string[] | null;
  attrs: JsonObject;
}

export type JudgmentKind = 'relevance' | 'utility';

export interface JudgmentRecord extends Origin {
  queryId: string;
  docId: string;
  kind: JudgmentKind;
  label: number;
  provenance: JsonObject;
}

/**
 * Where records go. Calls come in batches; a method may throw (e.g. a DataError for an id already
 * seen in an earlier batch), which aborts the import.
 */
export interface ImportSink {
  /** Where a corpus's long texts go, if this sink takes them (the import staging); else texts come as strings. */
  longTexts?: LongTextStore | undefined;
  documents(batch: DocumentRecord[]): void | Promise<void>;
  queries(batch: QueryRecord[]): void | Promise<void>;
  judgments(batch: JudgmentRecord[]): void | Promise<void>;
}

/** The role a file played in an import, recorded in the collection's `sources`. */
export type SourceRole = 'corpus' | 'queries' | 'qrels' | 'lamp-questions' | 'lamp-outputs' | 'fairrag-mapping' | 'fairrag-delta';

export interface SourceStats {
  name: string;
  role: SourceRole;
  /** Records read from this file. */
  rows: number;
}

/**
 * JSON with object keys sorted at every level: equal values give equal text. Used to compare
 * LaMP profile items; it is the store's canonical JSON (core/canonicalJson).
 */
export { canonicalJson as stableStringify } from '../../core/canonicalJson';

/** An id quoted for a one-line message: control characters (a line break in a JSON id) escaped, a long id cut (core/errors quoteIdText). */
export function quoteId(id: string): string {
  return quoteIdText(id);
}
