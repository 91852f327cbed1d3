/**
 * Collections, documents, queries and judgments (migration 0003): the only code that writes them.
 *
 * Adding rows is idempotent by content: a row whose id is already in the collection with the same
 * content counts as `unchanged`; with different content it is a DataError naming the row's file
 * and line (when known), and — because every add runs in one transaction — nothing is written.
 * Judgments: an imported label never overwrites a manual or LLM label (`kept`).
 */
import type { Database, Statement } from 'better-sqlite3';
import { DataError } from '../core/errors';
import { canonicalJson, parseJsonColumn } from './canonicalJson';
import { computeContentHash } from './collectionHash';
import {
  emptyCounts,
  quoteId,
  type AddCounts,
  type CollectionCounts,
  type CollectionRow,
  type DocumentInput,
  type DocumentRow,
  type DocumentText,
  type JsonObject,
  type JudgmentInput,
  type JudgmentKind,
  type JudgmentRow,
  type JudgmentSource,
  type JudgmentText,
  type QueryInput,
  type QueryRow,
  type QueryText,
  type SourceEntry,
  type Subaspect,
} from './collectionTypes';

export class CollectionNameTakenError extends Error {
  constructor(readonly collectionName: string) {
    super(`a collection named '${collectionName}' already exists`);
    this.name = 'CollectionNameTakenError';
  }
}

interface CollectionDbRow {
  id: number;
  name: string;
  description: string;
  content_hash: string;
  sources: string;
  created_at: string;
  documents: number;
  queries: number;
  judgments: number;
}

interface QueryDbRow {
  query_id: string;
  text: string;
  answers: string;
  task: string | null;
  metric: string | null;
  subaspects: string | null;
  candidates: string | null;
  attrs: string;
}

interface JudgmentDbRow {
  query_id: string;
  doc_id: string;
  kind: JudgmentKind;
  label: number;
  source: JudgmentSource;
  provenance: string;
  updated_at: string;
}

export interface Page<T> {
  total: number;
  items: T[];
}

export interface PageOptions {
  offset?: number;
  limit?: number;
}

export interface QuerySummary extends QueryRow {
  /** Size of the candidate set (null when the query has none). */
  candidateCount: number | null;
  judged: number;
  /** Judgments with a positive label. */
  positive: number;
}

export interface QueryWithJudgments {
  query: QueryRow;
  /**
   * The documents shown for the query: its candidates in order (LaMP profiles), else every
   * judged document; each with its judgments. `missing` marks a candidate id the corpus lacks.
   */
  documents: { doc: DocumentRow; missing: boolean; judgments: JudgmentRow[] }[];
}

const COLLECTION_SELECT = `
  SELECT c.*,
    (SELECT count(*) FROM documents d WHERE d.collection_id = c.id) AS documents,
    (SELECT count(*) FROM queries q WHERE q.collection_id = c.id) AS queries,
    (SELECT count(*) FROM judgments j WHERE j.collection_id = c.id) AS judgments
  FROM collections c`;

export class CollectionsRepo {
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  private st(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** Run `fn` in one transaction (nested calls become savepoints). */
  inTransaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // ---- collections -------------------------------------------------------------------------

  create(name: string, description = '', now = new Date()): CollectionRow {
    if (this.byName(name)) throw new CollectionNameTakenError(name);
    const info = this.st(`INSERT INTO collections(name, description, content_hash, created_at) VALUES (?, ?, '', ?)`).run(name, description, now.toISOString());
    const id = Number(info.lastInsertRowid);
    this.refreshContentHash(id);
    return this.get(id)!;
  }

  list(): CollectionRow[] {
    return (this.st(`${COLLECTION_SELECT} ORDER BY c.name`).all() as CollectionDbRow[]).map(toCollection);
  }

  get(id: number): CollectionRow | undefined {
    const row = this.st(`${COLLECTION_SELECT} WHERE c.id = ?`).get(id) as CollectionDbRow | undefined;
    return row ? toCollection(row) : undefined;
  }

  byName(name: string): CollectionRow | undefined {
    const row = this.st(`${COLLECTION_SELECT} WHERE c.name = ?`).get(name) as CollectionDbRow | undefined;
    return row ? toCollection(row) : undefined;
  }

  update(id: number, patch: { name?: string; description?: string }): CollectionRow | undefined {
    if (patch.name !== undefined) {
      const other = this.byName(patch.name);
      if (other && other.id !== id) throw new CollectionNameTakenError(patch.name);
      this.st(`UPDATE collections SET name = ? WHERE id = ?`).run(patch.name, id);
    }
    if (patch.description !== undefined) this.st(`UPDATE collections SET description = ? WHERE id = ?`).run(patch.description, id);
    return this.get(id);
  }

  /** Deletes the collection and (ON DELETE CASCADE) its documents, queries and judgments. */
  delete(id: number): boolean {
    return this.st(`DELETE FROM collections WHERE id = ?`).run(id).changes > 0;
  }

  counts(id: number): CollectionCounts {
    const c = this.get(id);
    return c ? c.counts : { documents: 0, queries: 0, judgments: 0 };
  }

  /** Recompute and store the content hash (collectionHash.ts); returns it. */
  refreshContentHash(id: number): string {
    const hash = computeContentHash(this.db, id);
    this.st(`UPDATE collections SET content_hash = ? WHERE id = ?`).run(hash, id);
    return hash;
  }

  /** Store a content hash computed elsewhere (the import's staging, for a collection that holds exactly the staged rows); returns it. */
  setContentHash(id: number, hash: string): string {
    this.st(`UPDATE collections SET content_hash = ? WHERE id = ?`).run(hash, id);
    return hash;
  }

  /** Append input files to `sources`; an entry with the same file, kind and sha256 is not repeated. */
  recordSources(id: number, entries: readonly SourceEntry[]): void {
    const row = this.st(`SELECT sources FROM collections WHERE id = ?`).get(id) as { sources: string } | undefined;
    if (!row) return;
    const sources = JSON.parse(row.sources) as SourceEntry[];
    for (const e of entries) {
      if (!sources.some((s) => s.file === e.file && s.kind === e.kind && s.sha256 === e.sha256)) sources.push(e);
    }
    this.st(`UPDATE collections SET sources = ? WHERE id = ?`).run(canonicalJson(sources), id);
  }

  // ---- adding rows -------------------------------------------------------------------------

  /** Add rows in one transaction; the content hash is refreshed when something was added. */
  addDocuments(collectionId: number, docs: readonly DocumentInput[]): AddCounts {
    return this.inTransaction(() => this.refreshIfAdded(collectionId, this.addDocumentTexts(collectionId, docs.map(documentText))));
  }

  addQueries(collectionId: number, queries: readonly QueryInput[]): AddCounts {
    return this.inTransaction(() => this.refreshIfAdded(collectionId, this.addQueryTexts(collectionId, queries.map(queryText))));
  }

  addJudgments(collectionId: number, judgments: readonly JudgmentInput[], opts: JudgmentAddOptions = {}): AddCounts {
    return this.inTransaction(() => this.refreshIfAdded(collectionId, this.addJudgmentTexts(collectionId, judgments.map(judgmentText), opts)));
  }

  private refreshIfAdded(collectionId: number, counts: AddCounts): AddCounts {
    if (counts.added > 0) this.refreshContentHash(collectionId);
    return counts;
  }

  /** Rows already in canonical text (from the import staging). Call inside a transaction; refresh the hash after. */
  addDocumentTexts(collectionId: number, docs: readonly DocumentText[], counts: AddCounts = emptyCounts()): AddCounts {
    const find = this.st(`SELECT title, text, attrs FROM documents WHERE collection_id = ? AND doc_id = ?`);
    const insert = this.st(`INSERT INTO documents(collection_id, doc_id, title, text, attrs) VALUES (?, ?, ?, ?, ?)`);
    for (const d of docs) {
      const old = find.get(collectionId, d.docId) as { title: string; text: string; attrs: string } | undefined;
      if (!old) {
        insert.run(collectionId, d.docId, d.title, d.text, d.attrs);
        counts.added++;
        continue;
      }
      const differs = old.text !== d.text ? 'text' : old.title !== d.title ? 'title' : old.attrs !== d.attrs ? 'attrs' : undefined;
      if (differs) throw conflict(`document ${quoteId(d.docId)} is already in the collection with a different ${differs}`, d, differs);
      counts.unchanged++;
    }
    return counts;
  }

  addQueryTexts(collectionId: number, queries: readonly QueryText[], counts: AddCounts = emptyCounts()): AddCounts {
    const find = this.st(`SELECT * FROM queries WHERE collection_id = ? AND query_id = ?`);
    const insert = this.st(
      `INSERT INTO queries(collection_id, query_id, text, answers, task, metric, subaspects, candidates, attrs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const q of queries) {
      const old = find.get(collectionId, q.queryId) as QueryDbRow | undefined;
      if (!old) {
        insert.run(collectionId, q.queryId, q.text, q.answers, q.task, q.metric, q.subaspects, q.candidates, q.attrs);
        counts.added++;
        continue;
      }
      const fields: [keyof QueryText & string, unknown, unknown][] = [
        ['text', old.text, q.text],
        ['answers', old.answers, q.answers],
        ['task', old.task, q.task],
        ['metric', old.metric, q.metric],
        ['subaspects', old.subaspects, q.subaspects],
        ['candidates', old.candidates, q.candidates],
        ['attrs', old.attrs, q.attrs],
      ];
      const differs = fields.find(([, a, b]) => a !== b)?.[0];
      if (differs) throw conflict(`query ${quoteId(q.queryId)} is already in the collection with different ${differs}`, q, differs);
      counts.unchanged++;
    }
    return counts;
  }

  addJudgmentTexts(collectionId: number, judgments: readonly JudgmentText[], opts: JudgmentAddOptions = {}, counts: AddCounts = emptyCounts()): AddCounts {
    const now = (opts.now ?? new Date()).toISOString();
    const find = this.st(`SELECT label, source, provenance FROM judgments WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = ?`);
    const insert = this.st(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, source, provenance, updated_at) VALUES (?, ?, ?, ?, ?, 'import', ?, ?)`);
    const hasDoc = this.st(`SELECT 1 FROM documents WHERE collection_id = ? AND doc_id = ?`).pluck();
    const hasQuery = this.st(`SELECT 1 FROM queries WHERE collection_id = ? AND query_id = ?`).pluck();
    const replace = this.st(`UPDATE judgments SET label = ?, source = 'import', provenance = ?, updated_at = ? WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = ?`);
    const differences = opts.differences ?? [];
    for (const j of judgments) {
      let docId = j.docId;
      // LaMP documents renamed `<qid>/<pid>` (io/importers/lampImporter.ts) keep the labels of (qid, pid).
      if (opts.resolveProfileIds && hasDoc.get(collectionId, `${j.queryId}/${j.docId}`) !== undefined) docId = `${j.queryId}/${j.docId}`;
      if (hasQuery.get(collectionId, j.queryId) === undefined) counts.unknownQueries++;
      if (hasDoc.get(collectionId, docId) === undefined) counts.unknownDocuments++;
      const old = find.get(collectionId, j.queryId, docId, j.kind) as { label: number; source: JudgmentSource; provenance: string } | undefined;
      if (!old) {
        insert.run(collectionId, j.queryId, docId, j.kind, j.label, j.provenance, now);
        counts.added++;
        continue;
      }
      if (old.label !== j.label && opts.replaceLabels) {
        // Asked for: the imported label replaces the stored one, which stays in provenance.previous.
        const provenance = { ...(parseJsonColumn<JsonObject>(j.provenance) ?? {}), previous: { label: old.label, source: old.source, provenance: parseJsonColumn<JsonObject>(old.provenance) ?? {} } };
        replace.run(j.label, canonicalJson(provenance), now, collectionId, j.queryId, docId, j.kind);
        counts.replaced++;
        continue;
      }
      if (old.source !== 'import') {
        // A manual or LLM label is never overwritten silently: the same value is kept, another value is a difference.
        if (old.label === j.label) counts.kept++;
        else differences.push({ queryId: j.queryId, docId, kind: j.kind, stored: old.label, source: old.source, imported: j.label, file: j.file, line: j.line });
        continue;
      }
      const differs = old.label !== j.label ? 'label' : old.provenance !== j.provenance ? 'provenance' : undefined;
      if (differs) throw conflict(`query ${quoteId(j.queryId)} already has a ${j.kind} judgment of ${quoteId(docId)} with a different ${differs} (${old.label} → ${j.label})`, j, differs);
      counts.unchanged++;
    }
    if (!opts.differences) throwLabelDifferences(differences);
    return counts;
  }

  // ---- reading -----------------------------------------------------------------------------

  listDocuments(collectionId: number, opts: PageOptions & { attr?: { key: string; value: string | null } } = {}): Page<DocumentRow> {
    const { offset = 0, limit = 50 } = opts;
    let where = 'collection_id = ?';
    const params: unknown[] = [collectionId];
    if (opts.attr) {
      if (opts.attr.value === null) where += ` AND json_extract(attrs, '$.' || json_quote(?)) IS NULL`;
      else where += ` AND CAST(json_extract(attrs, '$.' || json_quote(?)) AS TEXT) = ?`;
      params.push(opts.attr.key, ...(opts.attr.value === null ? [] : [opts.attr.value]));
    }
    const total = (this.db.prepare(`SELECT count(*) AS n FROM documents WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT doc_id, title, text, attrs FROM documents WHERE ${where} ORDER BY id LIMIT ? OFFSET ?`).all(...params, limit, offset) as DocDbRow[];
    return { total, items: rows.map(toDocument) };
  }

  getDocument(collectionId: number, docId: string): DocumentRow | undefined {
    const row = this.st(`SELECT doc_id, title, text, attrs FROM documents WHERE collection_id = ? AND doc_id = ?`).get(collectionId, docId) as DocDbRow | undefined;
    return row ? toDocument(row) : undefined;
  }

  /** Distinct values of one attrs key with their document counts (e.g. providers), most common first. */
  attrValues(collectionId: number, key: string, limit = 200): { value: string | null; count: number }[] {
    return this.st(
      `SELECT CAST(json_extract(attrs, '$.' || json_quote(?)) AS TEXT) AS value, count(*) AS count FROM documents WHERE collection_id = ? GROUP BY value ORDER BY count DESC, value LIMIT ?`,
    ).all(key, collectionId, limit) as { value: string | null; count: number }[];
  }

  /** Tasks of the collection's queries with their metric and count. */
  tasks(collectionId: number): { task: string | null; metric: string | null; count: number }[] {
    return this.st(`SELECT task, metric, count(*) AS count FROM queries WHERE collection_id = ? GROUP BY task, metric ORDER BY task, metric`).all(collectionId) as {
      task: string | null;
      metric: string | null;
      count: number;
    }[];
  }

  listQueries(collectionId: number, opts: PageOptions & { task?: string | null } = {}): Page<QuerySummary> {
    const { offset = 0, limit = 50 } = opts;
    const taskFilter = opts.task !== undefined ? ' AND task IS ?' : '';
    const params: unknown[] = [collectionId, ...(opts.task !== undefined ? [opts.task] : [])];
    const total = (this.db.prepare(`SELECT count(*) AS n FROM queries WHERE collection_id = ?${taskFilter}`).get(...params) as { n: number }).n;
    const rows = this.db
      .prepare(
        `SELECT q.*,
           (SELECT count(*) FROM judgments j WHERE j.collection_id = q.collection_id AND j.query_id = q.query_id) AS judged,
           (SELECT count(*) FROM judgments j WHERE j.collection_id = q.collection_id AND j.query_id = q.query_id AND j.label > 0) AS positive
         FROM queries q WHERE q.collection_id = ?${taskFilter.replace('task', 'q.task')} ORDER BY q.id LIMIT ? OFFSET ?`,
      )
      .all(...params, limit, offset) as (QueryDbRow & { judged: number; positive: number })[];
    return {
      total,
      items: rows.map((r) => {
        const q = toQuery(r);
        return { ...q, candidateCount: q.candidates ? q.candidates.length : null, judged: r.judged, positive: r.positive };
      }),
    };
  }

  getQuery(collectionId: number, queryId: string): QueryRow | undefined {
    const row = this.st(`SELECT * FROM queries WHERE collection_id = ? AND query_id = ?`).get(collectionId, queryId) as QueryDbRow | undefined;
    return row ? toQuery(row) : undefined;
  }

  /** Every judgment of one kind in a collection as qrels rows, ordered by query and document. */
  qrelsOf(collectionId: number, kind: JudgmentKind): { queryId: string; docId: string; label: number }[] {
    return this.st(`SELECT query_id AS queryId, doc_id AS docId, label FROM judgments WHERE collection_id = ? AND kind = ? ORDER BY query_id, doc_id`).all(collectionId, kind) as {
      queryId: string;
      docId: string;
      label: number;
    }[];
  }

  judgmentsOf(collectionId: number, queryId: string): JudgmentRow[] {
    return (this.st(`SELECT * FROM judgments WHERE collection_id = ? AND query_id = ? ORDER BY doc_id, kind`).all(collectionId, queryId) as JudgmentDbRow[]).map(toJudgment);
  }

  getJudgment(collectionId: number, queryId: string, docId: string, kind: JudgmentKind): JudgmentRow | undefined {
    const row = this.st(`SELECT * FROM judgments WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = ?`).get(collectionId, queryId, docId, kind) as JudgmentDbRow | undefined;
    return row ? toJudgment(row) : undefined;
  }

  /** A query with its candidate documents (or its judged documents) and their judgments. */
  getQueryWithJudgments(collectionId: number, queryId: string): QueryWithJudgments | undefined {
    const query = this.getQuery(collectionId, queryId);
    if (!query) return undefined;
    const judgments = this.judgmentsOf(collectionId, queryId);
    const byDoc = new Map<string, JudgmentRow[]>();
    for (const j of judgments) {
      const list = byDoc.get(j.docId) ?? [];
      list.push(j);
      byDoc.set(j.docId, list);
    }
    const ids = query.candidates ?? [...byDoc.keys()];
    if (query.candidates) for (const id of byDoc.keys()) if (!query.candidates.includes(id)) ids.push(id);
    const documents = ids.map((docId) => {
      const doc = this.getDocument(collectionId, docId);
      return { doc: doc ?? { docId, title: '', text: '', attrs: {} }, missing: !doc, judgments: byDoc.get(docId) ?? [] };
    });
    return { query, documents };
  }

  // ---- manual labels -----------------------------------------------------------------------

  /**
   * Override a label by hand (source 'manual'). The label it replaces is kept in
   * `provenance.previous` ({label, source, provenance}), so `label: null` restores it; a manual
   * label with nothing before it is removed. Returns the judgment now stored (undefined if none).
   */
  setManualJudgment(collectionId: number, queryId: string, docId: string, kind: JudgmentKind, label: number | null, now = new Date()): JudgmentRow | undefined {
    return this.inTransaction(() => {
      const old = this.getJudgment(collectionId, queryId, docId, kind);
      const stamp = now.toISOString();
      if (label === null) {
        if (!old || old.source !== 'manual') return old;
        const prev = old.provenance.previous as { label: number; source: JudgmentSource; provenance: JsonObject } | undefined;
        if (prev) {
          this.st(`UPDATE judgments SET label = ?, source = ?, provenance = ?, updated_at = ? WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = ?`).run(
            prev.label,
            prev.source,
            canonicalJson(prev.provenance),
            stamp,
            collectionId,
            queryId,
            docId,
            kind,
          );
        } else {
          this.st(`DELETE FROM judgments WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = ?`).run(collectionId, queryId, docId, kind);
        }
      } else if (!old) {
        this.st(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, source, provenance, updated_at) VALUES (?, ?, ?, ?, ?, 'manual', '{}', ?)`).run(
          collectionId,
          queryId,
          docId,
          kind,
          label,
          stamp,
        );
      } else {
        const previous = old.source === 'manual' ? old.provenance.previous : { label: old.label, source: old.source, provenance: old.provenance };
        const provenance = previous === undefined ? {} : { previous };
        this.st(`UPDATE judgments SET label = ?, source = 'manual', provenance = ?, updated_at = ? WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = ?`).run(
          label,
          canonicalJson(provenance),
          stamp,
          collectionId,
          queryId,
          docId,
          kind,
        );
      }
      this.refreshContentHash(collectionId);
      return this.getJudgment(collectionId, queryId, docId, kind);
    });
  }
}

export interface JudgmentAddOptions {
  now?: Date;
  /** Attach (qid, pid) labels to a LaMP document renamed `<qid>/<pid>` when there is one. */
  resolveProfileIds?: boolean;
  /**
   * Imported labels replace stored labels of another value (manual, LLM or imported; the old one is
   * kept in provenance.previous, counted as `replaced`). Without it such a label is an error.
   */
  replaceLabels?: boolean | undefined;
  /**
   * Collect labels that differ from stored manual/LLM labels here instead of throwing at the end of
   * this call (an import adds its judgments in chunks and throws once, after the last: `throwLabelDifferences`).
   */
  differences?: LabelDifference[];
}

/** An imported label that differs from a stored manual or LLM label. */
export interface LabelDifference {
  queryId: string;
  docId: string;
  kind: JudgmentKind;
  stored: number;
  source: JudgmentSource;
  imported: number;
  file?: string | undefined;
  line?: number | undefined;
}

/**
 * The error for imported labels that differ from stored manual/LLM labels (issue 34 item 8): how many,
 * the first five with their file line, and how to replace them. Nothing is written (the caller's
 * transaction rolls back).
 */
export function throwLabelDifferences(differences: readonly LabelDifference[]): void {
  if (differences.length === 0) return;
  const first = differences[0]!;
  const shown = differences
    .slice(0, 5)
    .map((d) => `query ${quoteId(d.queryId)} document ${quoteId(d.docId)}: stored ${d.source} label ${d.stored}, imported ${d.imported}${d.line !== undefined ? ` (line ${d.line})` : ''}`);
  const more = differences.length > 5 ? `; and ${differences.length - 5} more` : '';
  throw new DataError(
    `${differences.length} imported ${first.kind} label${differences.length === 1 ? '' : 's'} differ${differences.length === 1 ? 's' : ''} from the stored ones (${shown.join('; ')}${more}): nothing was imported; to replace the stored labels, import with "replace labels" (replaceLabels; CLI --replace-labels)`,
    { ...(first.file !== undefined ? { file: first.file } : {}), ...(first.line !== undefined ? { line: first.line } : {}), field: 'label' },
  );
}

interface DocDbRow {
  doc_id: string;
  title: string;
  text: string;
  attrs: string;
}

function conflict(message: string, origin: { file?: string | undefined; line?: number | undefined }, field: string): DataError {
  return new DataError(message, { ...(origin.file !== undefined ? { file: origin.file } : {}), ...(origin.line !== undefined ? { line: origin.line } : {}), field });
}

export function documentText(d: DocumentInput): DocumentText {
  // Never store '' for a text that lives in an import's staging (only ImportStaging reads longText).
  if (d.longText) throw new Error(`document ${quoteId(d.docId)}: a long text of the import staging reached a writer that does not read it`);
  return { docId: d.docId, title: d.title ?? '', text: d.text, attrs: canonicalJson(d.attrs ?? {}), file: d.file, line: d.line };
}

export function queryText(q: QueryInput): QueryText {
  return {
    queryId: q.queryId,
    text: q.text,
    answers: canonicalJson(q.answers ?? []),
    task: q.task ?? null,
    metric: q.metric ?? null,
    subaspects: q.subaspects ? canonicalJson(q.subaspects) : null,
    candidates: q.candidates ? canonicalJson(q.candidates) : null,
    attrs: canonicalJson(q.attrs ?? {}),
    file: q.file,
    line: q.line,
  };
}

export function judgmentText(j: JudgmentInput): JudgmentText {
  if (!Number.isFinite(j.label)) throw new DataError(`not a finite number: ${j.label}`, { file: j.file, line: j.line, field: 'label' });
  return { queryId: j.queryId, docId: j.docId, kind: j.kind, label: j.label, provenance: canonicalJson(j.provenance ?? {}), file: j.file, line: j.line };
}

function toCollection(r: CollectionDbRow): CollectionRow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    contentHash: r.content_hash,
    sources: JSON.parse(r.sources) as SourceEntry[],
    createdAt: r.created_at,
    counts: { documents: r.documents, queries: r.queries, judgments: r.judgments },
  };
}

function toDocument(r: DocDbRow): DocumentRow {
  return { docId: r.doc_id, title: r.title, text: r.text, attrs: JSON.parse(r.attrs) as JsonObject };
}

function toQuery(r: QueryDbRow): QueryRow {
  return {
    queryId: r.query_id,
    text: r.text,
    answers: JSON.parse(r.answers) as string[],
    task: r.task,
    metric: r.metric,
    subaspects: parseJsonColumn<Subaspect[]>(r.subaspects),
    candidates: parseJsonColumn<string[]>(r.candidates),
    attrs: JSON.parse(r.attrs) as JsonObject,
  };
}

function toJudgment(r: JudgmentDbRow): JudgmentRow {
  return { queryId: r.query_id, docId: r.doc_id, kind: r.kind, label: r.label, source: r.source, provenance: JSON.parse(r.provenance) as JsonObject, updatedAt: r.updated_at };
}
