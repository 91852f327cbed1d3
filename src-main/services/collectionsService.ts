/**
 * Use cases of test collections: list/create/delete, import files as background jobs (from paths
 * on this machine, or uploaded contents in browser mode), preview a file for the column mapping,
 * browse documents and queries, and override a label by hand.
 */
import type { ApiParsedInput, ApiOutput } from '../api/contract/index';
import type { ImportReport } from '../api/contract/collections';
import type { Job } from '../api/contract/jobs';
import { ApiFailure } from '../api/apiFailure';
import { decodeUtf8, dropCutUtf8Tail } from '../io/lines';
import { fileSource, textSource, type TextSource } from '../io/importers/index';
import { CollectionNameTakenError, CollectionsRepo } from '../store/collectionsRepo';
import type { CollectionRow } from '../store/collectionTypes';
import type { Database } from 'better-sqlite3';
import { importIntoCollection, type ImportInput, type ImportProgress } from './collectionsImport';
import type { JobRunner } from './jobRunner';
import { previewParsed } from './collectionsPreviewCheck';
import { PathAccess } from './paths';

export type ImportFilesRequest = ApiParsedInput<'collections.import'>;
export type ImportTextRequest = ApiParsedInput<'collections.importText'>;
export type ImportBundleRequest = ApiParsedInput<'collections.importBundle'>;
type UploadedFile = ImportTextRequest['files'][number];

export class CollectionsService {
  readonly repo: CollectionsRepo;

  constructor(
    db: Database,
    private readonly jobs: JobRunner,
    /** Which paths API requests may name (issue 15): every path of `startImport`/`previewFile` is checked. */
    private readonly paths: PathAccess = new PathAccess('any', null),
  ) {
    this.repo = new CollectionsRepo(db);
    // Imports from paths are idempotent (what is already there is a no-op), so an interrupted or
    // cancelled one can be resumed from its stored parameters. Uploads are not: their content is
    // not kept in the job table.
    jobs.registerKind<ImportFilesRequest>('collections.import', {
      title: (p) => `Import ${p.kind} into ${p.collectionName}`,
      run: (p, ctx) => this.importFiles(p, { signal: ctx.signal, progress: (d, t, m) => ctx.progress(d, t, m) }),
    });
  }

  /** Collections to show and choose: not one a running import is still filling (`NAME (importing PID-N)`). */
  list(): ApiOutput<'collections.list'> {
    return this.repo
      .list()
      .filter((c) => !/ \(importing \d+-\d+\)$/.test(c.name))
      .map(summary);
  }

  get(id: number): ApiOutput<'collections.get'> {
    const c = this.mustGet(id);
    return { ...summary(c), sources: c.sources, tasks: this.repo.tasks(id), providers: this.repo.attrValues(id, 'provider') };
  }

  byName(name: string): CollectionRow | undefined {
    return this.repo.byName(name);
  }

  create(name: string, description = ''): ApiOutput<'collections.create'> {
    try {
      return summary(this.repo.create(name.trim(), description));
    } catch (err) {
      if (err instanceof CollectionNameTakenError) throw new ApiFailure('conflict', err.message, 'name');
      throw err;
    }
  }

  delete(id: number): { deleted: boolean } {
    return { deleted: this.repo.delete(id) };
  }

  // ---- import ------------------------------------------------------------------------------

  /** Import files on this machine: paths must be absolute and readable (checked before the job starts). */
  startImport(req: ImportFilesRequest): Job {
    const files = req.files.map((f, i) => this.paths.checkFile(f, `files[${i}]`));
    return this.jobs.startKind('collections.import', { ...req, files });
  }

  /** Import uploaded contents (browser mode). */
  startImportText(req: ImportTextRequest): Job {
    const sources = req.files.map((f) => uploadedSource(f));
    const params = { ...req, files: req.files.map((f) => ({ name: f.name, bytes: f.content.length, encoding: f.encoding })) };
    const title = `Import ${req.kind} into ${req.collectionName}`;
    return this.jobs.start('collections.importText', title, params, (ctx) =>
      importIntoCollection(
        this.repo,
        { name: req.collectionName.trim(), description: req.description, replaceLabels: req.replaceLabels },
        { kind: req.kind, sources, mapping: req.mapping },
        { signal: ctx.signal, progress: (d, t, m) => ctx.progress(d, t, m) },
      ),
    );
  }

  /**
   * A corpus with, optionally, its queries and qrels (paths or uploads) as one job: every file is
   * read into the same staging tables and committed in one transaction, so a failure in any of
   * them (the qrels' last line included) writes nothing and creates no collection.
   */
  startImportBundle(req: ImportBundleRequest): Job {
    const roles = (['corpus', 'queries', 'qrels'] as const).filter((k) => req[k] !== undefined);
    const inputs: ImportInput[] = roles.map((kind) => {
      const part = req[kind]!;
      const source = part.path !== undefined ? fileSource(this.paths.checkFile(part.path, `${kind}.path`)) : uploadedSource(part.file!);
      return { kind, sources: [source], mapping: part.mapping };
    });
    const params = {
      collectionName: req.collectionName,
      ...Object.fromEntries(roles.map((k) => [k, req[k]!.path ?? { name: req[k]!.file!.name, bytes: req[k]!.file!.content.length }])),
    };
    const title = `Import ${roles.join(', ')} into ${req.collectionName}`;
    return this.jobs.start('collections.importBundle', title, params, (ctx) =>
      importIntoCollection(this.repo, { name: req.collectionName.trim(), description: req.description }, inputs, {
        signal: ctx.signal,
        progress: (d, t, m) => ctx.progress(d, t, m),
      }),
    );
  }

  /** Run an import of files now (CLI, tests, the demo); the job wrapper calls this too. */
  async importFiles(req: ImportFilesRequest, opts: ImportProgress = {}): Promise<ImportReport> {
    const sources = req.files.map((p) => fileSource(p));
    return importIntoCollection(this.repo, { name: req.collectionName.trim(), description: req.description, replaceLabels: req.replaceLabels }, { kind: req.kind, sources, mapping: req.mapping }, opts);
  }

  /** Run an import of in-memory contents now. */
  async importContents(
    target: { collectionName: string; description?: string | undefined },
    kind: ImportFilesRequest['kind'],
    files: readonly { name: string; content: string; encoding?: 'utf8' | 'base64' }[],
    mapping?: ImportFilesRequest['mapping'],
    opts: ImportProgress = {},
  ): Promise<ImportReport> {
    const sources = files.map((f) => uploadedSource({ ...f, encoding: f.encoding ?? 'utf8' }));
    return importIntoCollection(
      this.repo,
      { name: target.collectionName.trim(), description: target.description },
      { kind, sources, mapping },
      opts,
    );
  }

  async previewFile(req: ApiParsedInput<'collections.previewFile'>): Promise<ApiOutput<'collections.previewFile'>> {
    // An upload previewed is the file's head, cut at a byte count: a character cut in two at its end is dropped.
    const source = req.path !== undefined ? fileSource(this.paths.checkFile(req.path, 'path')) : uploadedSource(req.file!, true);
    // Only what the kind's parser accepted comes back, never a raw line (collectionsPreviewCheck.ts).
    return previewParsed(source, req.kind, req.mapping ?? {});
  }

  // ---- browsing ----------------------------------------------------------------------------

  listDocuments(req: ApiParsedInput<'documents.list'>): ApiOutput<'documents.list'> {
    this.mustGet(req.collectionId);
    return this.repo.listDocuments(req.collectionId, req);
  }

  getDocument(collectionId: number, docId: string): ApiOutput<'documents.get'> {
    this.mustGet(collectionId);
    const doc = this.repo.getDocument(collectionId, docId);
    if (!doc) throw new ApiFailure('not-found', `no document '${docId}' in this collection`, 'docId');
    return doc;
  }

  listQueries(req: ApiParsedInput<'queries.list'>): ApiOutput<'queries.list'> {
    this.mustGet(req.collectionId);
    return this.repo.listQueries(req.collectionId, { offset: req.offset, limit: req.limit, ...(req.task !== undefined ? { task: req.task } : {}) });
  }

  getQuery(collectionId: number, queryId: string): ApiOutput<'queries.get'> {
    this.mustGet(collectionId);
    const q = this.repo.getQueryWithJudgments(collectionId, queryId);
    if (!q) throw new ApiFailure('not-found', `no query '${queryId}' in this collection`, 'queryId');
    return q;
  }

  setManual(req: ApiParsedInput<'judgments.setManual'>): ApiOutput<'judgments.setManual'> {
    this.mustGet(req.collectionId);
    if (!this.repo.getQuery(req.collectionId, req.queryId)) throw new ApiFailure('not-found', `no query '${req.queryId}' in this collection`, 'queryId');
    const judgment = this.repo.setManualJudgment(req.collectionId, req.queryId, req.docId, req.kind, req.label) ?? null;
    return { judgment, contentHash: this.mustGet(req.collectionId).contentHash };
  }

  private mustGet(id: number): CollectionRow {
    const c = this.repo.get(id);
    if (!c) throw new ApiFailure('not-found', `no collection with id ${id}`, 'id');
    return c;
  }
}

function summary(c: CollectionRow): ApiOutput<'collections.list'>[number] {
  return { id: c.id, name: c.name, description: c.description, contentHash: c.contentHash, createdAt: c.createdAt, counts: c.counts };
}

function uploadedSource(f: UploadedFile, head = false): TextSource {
  const bytes = (): Uint8Array => (head ? dropCutUtf8Tail(Buffer.from(f.content, 'base64')) : Buffer.from(f.content, 'base64'));
  const text = f.encoding === 'base64' ? decodeUtf8(bytes(), f.name) : f.content;
  return textSource(f.name, text);
}
