/** What the import dialog offers per kind: a description, whether several files go together, and the mapping fields. */
import type { ColumnMapping, ImportKind } from '$contract';

export interface KindInfo {
  kind: ImportKind;
  label: string;
  files: string;
  multiple: boolean;
}

export const KINDS: KindInfo[] = [
  { kind: 'corpus', label: 'Corpus (documents)', files: 'JSONL, JSON array, CSV or TSV, one document per row', multiple: false },
  { kind: 'queries', label: 'Queries', files: 'JSONL, JSON array, CSV or TSV, one query per row (answers, task, sub-aspects, candidates)', multiple: false },
  { kind: 'qrels', label: 'Relevance judgments (TREC qrels)', files: "qrels: 'qid iter docno rel'", multiple: false },
  { kind: 'lamp', label: 'LaMP task', files: 'questions JSON [{id, input, profile}] and, optionally, outputs JSON {task, golds}', multiple: true },
  { kind: 'msmarco', label: 'MS MARCO', files: 'collection.tsv, a queries TSV and a qrels file', multiple: true },
  { kind: 'fairrag-mapping', label: 'Fair-RAG utility labels', files: 'relevance_mapping.tsv (qid pid relevance_label) and, optionally, the delta TSV', multiple: true },
];

export type MappingField = 'idColumn' | 'textColumn' | 'titleColumn' | 'answersColumn' | 'taskColumn' | 'metricColumn' | 'subaspectsColumn' | 'candidatesColumn';

export const MAPPING_FIELDS: Record<'corpus' | 'queries', { key: MappingField; label: string; required: boolean }[]> = {
  corpus: [
    { key: 'idColumn', label: 'Id', required: true },
    { key: 'textColumn', label: 'Text', required: true },
    { key: 'titleColumn', label: 'Title', required: false },
  ],
  queries: [
    { key: 'idColumn', label: 'Id', required: true },
    { key: 'textColumn', label: 'Text', required: true },
    { key: 'answersColumn', label: 'Answers', required: false },
    { key: 'taskColumn', label: 'Task', required: false },
    { key: 'metricColumn', label: 'Metric', required: false },
    { key: 'subaspectsColumn', label: 'Sub-aspects', required: false },
    { key: 'candidatesColumn', label: 'Candidates', required: false },
  ],
};

/** Keep only the column choices of the mapping the preview suggested. */
export function columnChoices(suggested: ColumnMapping, kind: 'corpus' | 'queries'): Partial<Record<MappingField, string>> {
  const out: Partial<Record<MappingField, string>> = {};
  for (const f of MAPPING_FIELDS[kind]) if (suggested[f.key]) out[f.key] = suggested[f.key];
  return out;
}

/** One file of the combined import (corpus, queries, qrels) as the dialog holds it: an upload or a path, and its mapping. */
export interface PartValue {
  file?: File | undefined;
  path?: string | undefined;
  mapping?: ColumnMapping | undefined;
}

/** The combined import: the three parts of one collection, in the order they are read. */
export const BUNDLE_PARTS = [
  { role: 'corpus', label: 'Corpus (documents)', hint: 'JSONL, JSON array, CSV or TSV, one document per row', optional: false },
  { role: 'queries', label: 'Queries', hint: 'JSONL, JSON array, CSV or TSV, one query per row (answers, task, sub-aspects, candidates)', optional: true },
  { role: 'qrels', label: 'Relevance judgments (TREC qrels)', hint: "'qid iter docno rel', one judgment per line", optional: true },
] as const;
