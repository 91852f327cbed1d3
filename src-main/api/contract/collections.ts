/**
 * Test collections: corpora, queries (answers, tasks, sub-aspects, per-query candidates) and
 * judgments (relevance, utility), imported by background jobs and browsed page by page.
 */
import { z } from 'zod';
import { Empty, lazyMethods, method } from './define';
import { Job } from './jobs';

const JsonObject = z.record(z.string(), z.unknown());
const Id = z.number().int().positive();
const Name = z.string().trim().min(1, 'a collection needs a name').max(200);

export const ImportKind = z.enum(['corpus', 'queries', 'qrels', 'lamp', 'msmarco', 'fairrag-mapping']);
export type ImportKind = z.infer<typeof ImportKind>;

export const JudgmentKind = z.enum(['relevance', 'utility']);
export type JudgmentKind = z.infer<typeof JudgmentKind>;

/** Which column/key holds what; unset options are guessed from the column names. */
export const ColumnMapping = z
  .object({
    format: z.enum(['jsonl', 'json', 'csv', 'tsv']).optional(),
    delimiter: z.string().length(1).optional(),
    header: z.boolean().optional(),
    idColumn: z.string().min(1).optional(),
    textColumn: z.string().min(1).optional(),
    titleColumn: z.string().min(1).optional(),
    attrColumns: z.array(z.string().min(1)).optional(),
    answersColumn: z.string().min(1).optional(),
    taskColumn: z.string().min(1).optional(),
    metricColumn: z.string().min(1).optional(),
    subaspectsColumn: z.string().min(1).optional(),
    candidatesColumn: z.string().min(1).optional(),
    task: z.string().min(1).optional(),
    metric: z.string().min(1).optional(),
    generator: z.string().min(1).optional(),
    lampTask: z.string().min(1).optional(),
  })
  .strict();
export type ColumnMapping = z.infer<typeof ColumnMapping>;

/** A file's content sent by the UI (browser uploads cannot name a path). base64 keeps the bytes, so invalid UTF-8 is reported with its line. */
export const UploadedFile = z
  .object({
    name: z.string().min(1).max(500),
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
  })
  .strict();
export type UploadedFile = z.input<typeof UploadedFile>;

export const CollectionSource = z.object({ file: z.string(), kind: z.string(), sha256: z.string(), rows: z.number().int(), importedAt: z.string().optional() });

export const CollectionCounts = z.object({ documents: z.number().int(), queries: z.number().int(), judgments: z.number().int() });

export const CollectionSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  contentHash: z.string(),
  createdAt: z.string(),
  counts: CollectionCounts,
});
export type CollectionSummary = z.infer<typeof CollectionSummary>;

export const CollectionDetail = CollectionSummary.extend({
  sources: z.array(CollectionSource),
  tasks: z.array(z.object({ task: z.string().nullable(), metric: z.string().nullable(), count: z.number().int() })),
  /** Documents per `attrs.provider` (null: documents without one). */
  providers: z.array(z.object({ value: z.string().nullable(), count: z.number().int() })),
});
export type CollectionDetail = z.infer<typeof CollectionDetail>;

export const CollectionDocument = z.object({ docId: z.string(), title: z.string(), text: z.string(), attrs: JsonObject });
export type CollectionDocument = z.infer<typeof CollectionDocument>;

export const QuerySubaspect = z.object({ aspect: z.string(), answer: z.string() });

export const CollectionQuery = z.object({
  queryId: z.string(),
  text: z.string(),
  answers: z.array(z.string()),
  task: z.string().nullable(),
  metric: z.string().nullable(),
  subaspects: z.array(QuerySubaspect).nullable(),
  candidates: z.array(z.string()).nullable(),
  attrs: JsonObject,
});
export type CollectionQuery = z.infer<typeof CollectionQuery>;

export const CollectionQuerySummary = CollectionQuery.extend({ candidateCount: z.number().int().nullable(), judged: z.number().int(), positive: z.number().int() });
export type CollectionQuerySummary = z.infer<typeof CollectionQuerySummary>;

export const CollectionJudgmentSource = z.enum(['import', 'llm', 'manual']);

export const CollectionJudgment = z.object({
  queryId: z.string(),
  docId: z.string(),
  kind: JudgmentKind,
  label: z.number(),
  source: CollectionJudgmentSource,
  /** generator, template, metric, baseline, utility, delta; `previous` for a manual override. */
  provenance: JsonObject,
  updatedAt: z.string(),
});
export type CollectionJudgment = z.infer<typeof CollectionJudgment>;

export const QueryDetail = z.object({
  query: CollectionQuery,
  documents: z.array(z.object({ doc: CollectionDocument, missing: z.boolean(), judgments: z.array(CollectionJudgment) })),
});
export type QueryDetail = z.infer<typeof QueryDetail>;

const AddCounts = z.object({
  added: z.number().int(),
  unchanged: z.number().int(),
  kept: z.number().int(),
  /** Judgments: stored labels of another value replaced by the import (only when asked: replaceLabels). */
  replaced: z.number().int().default(0),
  unknownQueries: z.number().int(),
  unknownDocuments: z.number().int(),
});

/** The result of a `collections.import` job. */
export const ImportReport = z.object({
  collectionId: z.number().int(),
  collectionName: z.string(),
  created: z.boolean(),
  /** Everything in the files was already in the collection: nothing was written. */
  noop: z.boolean(),
  documents: AddCounts,
  queries: AddCounts,
  judgments: AddCounts,
  files: z.array(CollectionSource),
  contentHash: z.string(),
  previousContentHash: z.string().nullable(),
  message: z.string(),
});
export type ImportReport = z.infer<typeof ImportReport>;

export const FilePreview = z.object({
  format: z.enum(['jsonl', 'json', 'csv', 'tsv', 'text']),
  columns: z.array(z.string()),
  rows: z.array(z.record(z.string(), z.string())),
  suggested: ColumnMapping,
  lines: z.array(z.string()),
});
export type FilePreview = z.infer<typeof FilePreview>;

const Paging = { offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(500).default(50) };

const ImportCommon = {
  collectionName: Name,
  /** Used when the import creates the collection. */
  description: z.string().max(5000).optional(),
  kind: ImportKind,
  mapping: ColumnMapping.optional(),
  /** Imported labels replace stored labels of another value (counted in the report's judgments.replaced); without it they are an error. */
  replaceLabels: z.boolean().optional(),
};

/** One file of a combined import: a path on this machine or uploaded content, with its column mapping. */
export const BundlePart = z
  .object({ path: z.string().min(1).optional(), file: UploadedFile.optional(), mapping: ColumnMapping.optional() })
  .strict()
  .refine((v) => (v.path === undefined) !== (v.file === undefined), { message: 'give either path or file', path: ['path'] });

export const collectionsContract = lazyMethods(() => ({
  'collections.list': method(Empty, z.array(CollectionSummary), 'Collections with their document, query and judgment counts.'),
  'collections.get': method(z.object({ id: Id }).strict(), CollectionDetail, 'One collection: counts, input files, tasks and providers.'),
  'collections.create': method(z.object({ name: Name, description: z.string().max(5000).default('') }).strict(), CollectionSummary, 'An empty collection.'),
  'collections.delete': method(z.object({ id: Id }).strict(), z.object({ deleted: z.boolean() }), 'Delete a collection with its documents, queries and judgments.'),
  'collections.import': method(
    z.object({ ...ImportCommon, files: z.array(z.string().min(1)).min(1).max(3) }).strict(),
    Job,
    'Import files (absolute paths on this machine) into a collection, created if needed; a background job whose result is an ImportReport.',
  ),
  'collections.importText': method(
    z.object({ ...ImportCommon, files: z.array(UploadedFile).min(1).max(3) }).strict(),
    Job,
    'Import uploaded file contents into a collection (browser mode); a background job whose result is an ImportReport.',
  ),
  'collections.importBundle': method(
    z.object({ collectionName: Name, description: z.string().max(5000).optional(), corpus: BundlePart, queries: BundlePart.optional(), qrels: BundlePart.optional() }).strict(),
    Job,
    'Import a corpus with, optionally, its queries and qrels as one job, all or nothing: a failure in any file writes nothing (no collection is created); the result is an ImportReport.',
  ),
  'collections.previewFile': method(
    z
      .object({ kind: ImportKind, path: z.string().min(1).optional(), file: UploadedFile.optional(), mapping: ColumnMapping.optional() })
      .strict()
      .refine((v) => (v.path === undefined) !== (v.file === undefined), { message: 'give either path or file', path: ['path'] }),
    FilePreview,
    'The first rows of a file, its columns and the guessed column mapping.',
  ),
  'documents.list': method(
    z
      .object({ collectionId: Id, ...Paging, attr: z.object({ key: z.string().min(1), value: z.string().nullable() }).strict().optional() })
      .strict(),
    z.object({ total: z.number().int(), items: z.array(CollectionDocument) }),
    'A page of a collection’s documents (in import order), optionally those with one attrs value.',
  ),
  'documents.get': method(z.object({ collectionId: Id, docId: z.string().min(1) }).strict(), CollectionDocument, 'One document.'),
  'queries.list': method(
    z.object({ collectionId: Id, ...Paging, task: z.string().nullable().optional() }).strict(),
    z.object({ total: z.number().int(), items: z.array(CollectionQuerySummary) }),
    'A page of a collection’s queries with candidate and judgment counts.',
  ),
  'queries.get': method(z.object({ collectionId: Id, queryId: z.string().min(1) }).strict(), QueryDetail, 'A query with its candidates (or judged documents) and their judgments.'),
  'judgments.setManual': method(
    z
      .object({ collectionId: Id, queryId: z.string().min(1), docId: z.string().min(1), kind: JudgmentKind, label: z.number().nullable() })
      .strict(),
    z.object({ judgment: CollectionJudgment.nullable(), contentHash: z.string() }),
    'Override a label by hand (recorded as manual, the replaced label kept); label null restores the replaced label.',
  ),
}));
