/** Row shapes of the collection tables (migration 0003) as the repository reads and writes them. */
import { quoteIdText } from '../core/errors';

export type JudgmentKind = 'relevance' | 'utility';
export type JudgmentSource = 'import' | 'llm' | 'manual';
export type JsonObject = Record<string, unknown>;

export interface Subaspect {
  aspect: string;
  answer: string;
}

/** One input file of a collection, as recorded in `collections.sources`. */
export interface SourceEntry {
  file: string;
  /** The file's role: corpus, queries, qrels, lamp-questions, lamp-outputs, fairrag-mapping, fairrag-delta. */
  kind: string;
  sha256: string;
  rows: number;
  importedAt?: string;
}

export interface CollectionCounts {
  documents: number;
  queries: number;
  judgments: number;
}

export interface CollectionRow {
  id: number;
  name: string;
  description: string;
  contentHash: string;
  sources: SourceEntry[];
  createdAt: string;
  counts: CollectionCounts;
}

export interface DocumentRow {
  docId: string;
  title: string;
  text: string;
  attrs: JsonObject;
}

export interface QueryRow {
  queryId: string;
  text: string;
  answers: string[];
  task: string | null;
  metric: string | null;
  subaspects: Subaspect[] | null;
  candidates: string[] | null;
  attrs: JsonObject;
}

export interface JudgmentRow {
  queryId: string;
  docId: string;
  kind: JudgmentKind;
  label: number;
  source: JudgmentSource;
  provenance: JsonObject;
  updatedAt: string;
}

/** Where a row came from, so that a conflict can name the user's file and line. */
export interface RowOrigin {
  file?: string | undefined;
  line?: number | undefined;
}

/**
 * `longText`: the text is in the import staging's store of long texts (io/importers/longText.ts;
 * `text` is then ''); only ImportStaging takes such a document.
 */
export type DocumentInput = { docId: string; title?: string; text: string; attrs?: JsonObject; longText?: { readonly longTextId: number } | undefined } & RowOrigin;
export type QueryInput = {
  queryId: string;
  text: string;
  answers?: string[];
  task?: string | null;
  metric?: string | null;
  subaspects?: Subaspect[] | null;
  candidates?: string[] | null;
  attrs?: JsonObject;
} & RowOrigin;
export type JudgmentInput = { queryId: string; docId: string; kind: JudgmentKind; label: number; provenance?: JsonObject } & RowOrigin;

/** Rows with their JSON columns already in canonical text (what the staging tables hold). */
export interface DocumentText extends RowOrigin {
  docId: string;
  title: string;
  text: string;
  attrs: string;
}
export interface QueryText extends RowOrigin {
  queryId: string;
  text: string;
  answers: string;
  task: string | null;
  metric: string | null;
  subaspects: string | null;
  candidates: string | null;
  attrs: string;
}
export interface JudgmentText extends RowOrigin {
  queryId: string;
  docId: string;
  kind: JudgmentKind;
  label: number;
  provenance: string;
}

/** What adding rows did: new rows, rows already there with the same content, and (judgments) rows left alone. */
export interface AddCounts {
  added: number;
  unchanged: number;
  /** Judgments only: stored manual/LLM labels that an import does not overwrite. */
  kept: number;
  /** Judgments only: stored labels with another value that the import replaced (only with `replaceLabels`). */
  replaced: number;
  /** Judgments only: rows naming a query / document the collection does not have (yet). */
  unknownQueries: number;
  unknownDocuments: number;
}

export function emptyCounts(): AddCounts {
  return { added: 0, unchanged: 0, kept: 0, replaced: 0, unknownQueries: 0, unknownDocuments: 0 };
}

/** An id quoted for a one-line message: control characters (a line break in a JSON id) escaped, a long id cut (core/errors quoteIdText). */
export function quoteId(id: string): string {
  return quoteIdText(id);
}
