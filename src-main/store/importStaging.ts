/**
 * Where an import puts what it has parsed before anything touches the collection: TEMP tables of
 * this connection (invisible to other connections, gone when it closes). Parsing is async and
 * streams; committing (collectionsRepo) is one synchronous transaction that reads the staged rows
 * back in chunks — so an import is all or nothing, and memory stays flat for large files.
 *
 * Staging also catches ids that repeat within the import (in one file or across its files),
 * naming both places.
 */
import type { Database } from 'better-sqlite3';
import { DataError } from '../core/errors';
import { quoteId, type DocumentInput, type DocumentText, type JudgmentInput, type JudgmentText, type QueryInput, type QueryText } from './collectionTypes';
import { documentText, judgmentText, queryText } from './collectionsRepo';

let sequence = 0;

interface Located {
  file: string | null;
  line: number | null;
}

export class ImportStaging {
  private readonly t: { docs: string; queries: string; judgments: string };
  private dropped = false;

  constructor(private readonly db: Database) {
    const p = `fg_stage_${process.pid}_${++sequence}`;
    this.t = { docs: `temp.${p}_docs`, queries: `temp.${p}_queries`, judgments: `temp.${p}_judgments` };
    db.exec(`
      CREATE TABLE ${this.t.docs} (doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, attrs TEXT NOT NULL, file TEXT, line INTEGER);
      CREATE TABLE ${this.t.queries} (query_id TEXT PRIMARY KEY, text TEXT NOT NULL, answers TEXT NOT NULL, task TEXT, metric TEXT, subaspects TEXT, candidates TEXT, attrs TEXT NOT NULL, file TEXT, line INTEGER);
      CREATE TABLE ${this.t.judgments} (query_id TEXT NOT NULL, doc_id TEXT NOT NULL, kind TEXT NOT NULL, label REAL NOT NULL, provenance TEXT NOT NULL, file TEXT, line INTEGER, PRIMARY KEY (query_id, doc_id, kind));
    `);
  }

  documents(batch: readonly DocumentInput[]): void {
    const ins = this.db.prepare(`INSERT OR IGNORE INTO ${this.t.docs} VALUES (?, ?, ?, ?, ?, ?)`);
    const first = this.db.prepare(`SELECT file, line FROM ${this.t.docs} WHERE doc_id = ?`);
    this.db.transaction(() => {
      for (const d of batch) {
        const r = documentText(d);
        if (ins.run(r.docId, r.title, r.text, r.attrs, r.file ?? null, r.line ?? null).changes === 0) {
          throw duplicate(`document id ${quoteId(r.docId)}`, first.get(r.docId) as Located, r, 'id');
        }
      }
    })();
  }

  queries(batch: readonly QueryInput[]): void {
    const ins = this.db.prepare(`INSERT OR IGNORE INTO ${this.t.queries} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const first = this.db.prepare(`SELECT file, line FROM ${this.t.queries} WHERE query_id = ?`);
    this.db.transaction(() => {
      for (const q of batch) {
        const r = queryText(q);
        if (ins.run(r.queryId, r.text, r.answers, r.task, r.metric, r.subaspects, r.candidates, r.attrs, r.file ?? null, r.line ?? null).changes === 0) {
          throw duplicate(`query id ${quoteId(r.queryId)}`, first.get(r.queryId) as Located, r, 'id');
        }
      }
    })();
  }

  judgments(batch: readonly JudgmentInput[]): void {
    const ins = this.db.prepare(`INSERT OR IGNORE INTO ${this.t.judgments} VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const first = this.db.prepare(`SELECT file, line FROM ${this.t.judgments} WHERE query_id = ? AND doc_id = ? AND kind = ?`);
    this.db.transaction(() => {
      for (const j of batch) {
        const r = judgmentText(j);
        if (ins.run(r.queryId, r.docId, r.kind, r.label, r.provenance, r.file ?? null, r.line ?? null).changes === 0) {
          throw duplicate(`${r.kind} judgment of ${quoteId(r.docId)} for query ${quoteId(r.queryId)}`, first.get(r.queryId, r.docId, r.kind) as Located, r, 'docno');
        }
      }
    })();
  }

  counts(): { documents: number; queries: number; judgments: number } {
    const n = (t: string) => (this.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { documents: n(this.t.docs), queries: n(this.t.queries), judgments: n(this.t.judgments) };
  }

  /** Staged rows in the order they were read, `size` at a time. */
  *documentChunks(size = 1000): Generator<DocumentText[]> {
    const q = this.db.prepare(`SELECT rowid AS r, doc_id, title, text, attrs, file, line FROM ${this.t.docs} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = q.all(after, size) as { r: number; doc_id: string; title: string; text: string; attrs: string; file: string | null; line: number | null }[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.r;
      yield rows.map((x) => ({ docId: x.doc_id, title: x.title, text: x.text, attrs: x.attrs, file: x.file ?? undefined, line: x.line ?? undefined }));
    }
  }

  *queryChunks(size = 1000): Generator<QueryText[]> {
    const q = this.db.prepare(`SELECT rowid AS r, * FROM ${this.t.queries} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = q.all(after, size) as ({ r: number; query_id: string; file: string | null; line: number | null } & Omit<QueryText, 'queryId' | 'file' | 'line'>)[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.r;
      yield rows.map((x) => ({
        queryId: x.query_id,
        text: x.text,
        answers: x.answers,
        task: x.task,
        metric: x.metric,
        subaspects: x.subaspects,
        candidates: x.candidates,
        attrs: x.attrs,
        file: x.file ?? undefined,
        line: x.line ?? undefined,
      }));
    }
  }

  *judgmentChunks(size = 1000): Generator<JudgmentText[]> {
    const q = this.db.prepare(`SELECT rowid AS r, * FROM ${this.t.judgments} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = q.all(after, size) as { r: number; query_id: string; doc_id: string; kind: JudgmentText['kind']; label: number; provenance: string; file: string | null; line: number | null }[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.r;
      yield rows.map((x) => ({ queryId: x.query_id, docId: x.doc_id, kind: x.kind, label: x.label, provenance: x.provenance, file: x.file ?? undefined, line: x.line ?? undefined }));
    }
  }

  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS ${this.t.docs}; DROP TABLE IF EXISTS ${this.t.queries}; DROP TABLE IF EXISTS ${this.t.judgments};`);
  }
}

function duplicate(what: string, first: Located | undefined, at: { file?: string | undefined; line?: number | undefined }, field: string): DataError {
  const where = first ? (first.file && first.file !== at.file ? ` (first in ${first.file} line ${first.line})` : first.line !== null ? ` (first on line ${first.line})` : '') : '';
  return new DataError(`duplicate ${what}${where}`, { ...(at.file !== undefined ? { file: at.file } : {}), ...(at.line !== undefined ? { line: at.line } : {}), field });
}
