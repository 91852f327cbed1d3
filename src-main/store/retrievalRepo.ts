/**
 * SQL for retrieval's plain tables (migration 0004): embedding sets, retrieval runs and their
 * results, plus the reads of collections, documents and queries (migration 0003) that retrieval
 * needs. The FTS5 and vec0 index queries live beside the indexes (src-main/retrieval/).
 */
import type { Database } from 'better-sqlite3';

export type EmbeddingSetStatus = 'building' | 'partial' | 'ready' | 'failed';
export type SetMetric = 'cosine' | 'dot';
export type RunMethod = 'bm25' | 'dense' | 'rrf';

export interface EmbeddingSetRow {
  id: number;
  collectionId: number;
  modelKey: string;
  modelName: string;
  dimensions: number;
  metric: SetMetric;
  params: Record<string, unknown>;
  createdAt: string;
  status: EmbeddingSetStatus;
}

export interface RunRow {
  id: number;
  collectionId: number;
  name: string;
  method: RunMethod;
  params: Record<string, unknown>;
  createdAt: string;
  /** Queries with at least one result. */
  queries: number;
  results: number;
}

export interface ResultRow {
  queryId: string;
  docId: string;
  rank: number;
  score: number;
}

export interface QueryRow {
  queryId: string;
  text: string;
  /** The query's own candidate set (doc ids), or null: rank the whole collection. */
  candidates: string[] | null;
}

export interface DocumentRow {
  documentId: number;
  docId: string;
  title: string;
  text: string;
}

interface RawSet {
  id: number;
  collection_id: number;
  model_key: string;
  model_name: string;
  dimensions: number;
  metric: SetMetric;
  params: string;
  created_at: string;
  status: EmbeddingSetStatus;
}

const toSet = (r: RawSet): EmbeddingSetRow => ({
  id: r.id,
  collectionId: r.collection_id,
  modelKey: r.model_key,
  modelName: r.model_name,
  dimensions: r.dimensions,
  metric: r.metric,
  params: JSON.parse(r.params) as Record<string, unknown>,
  createdAt: r.created_at,
  status: r.status,
});

const RUN_SELECT = `SELECT r.id, r.collection_id AS collectionId, r.name, r.method, r.params, r.created_at AS createdAt,
    (SELECT count(DISTINCT query_id) FROM retrieval_results x WHERE x.run_id = r.id) AS queries,
    (SELECT count(*) FROM retrieval_results x WHERE x.run_id = r.id) AS results
  FROM retrieval_runs r`;

type RawRun = Omit<RunRow, 'params'> & { params: string };
const toRun = (r: RawRun): RunRow => ({ ...r, params: JSON.parse(r.params) as Record<string, unknown> });

export class RetrievalRepo {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  // ---- collections, documents, queries (read only) ----

  collectionName(collectionId: number): string | undefined {
    return (this.db.prepare(`SELECT name FROM collections WHERE id = ?`).get(collectionId) as { name: string } | undefined)?.name;
  }

  collectionIdByName(name: string): number | undefined {
    return (this.db.prepare(`SELECT id FROM collections WHERE name = ?`).get(name) as { id: number } | undefined)?.id;
  }

  documents(collectionId: number): DocumentRow[] {
    return this.db.prepare(`SELECT id AS documentId, doc_id AS docId, title, text FROM documents WHERE collection_id = ? ORDER BY id`).all(collectionId) as DocumentRow[];
  }

  /** The documents of a collection with the given doc ids (unknown ids are absent from the map). */
  documentsByDocId(collectionId: number, docIds: readonly string[]): Map<string, DocumentRow> {
    const stmt = this.db.prepare(`SELECT id AS documentId, doc_id AS docId, title, text FROM documents WHERE collection_id = ? AND doc_id = ?`);
    const out = new Map<string, DocumentRow>();
    for (const id of docIds) {
      const row = stmt.get(collectionId, id) as DocumentRow | undefined;
      if (row) out.set(id, row);
    }
    return out;
  }

  queries(collectionId: number): QueryRow[] {
    const rows = this.db.prepare(`SELECT query_id AS queryId, text, candidates FROM queries WHERE collection_id = ? ORDER BY id`).all(collectionId) as {
      queryId: string;
      text: string;
      candidates: string | null;
    }[];
    return rows.map((r) => ({ queryId: r.queryId, text: r.text, candidates: r.candidates === null ? null : (JSON.parse(r.candidates) as string[]) }));
  }

  queryTexts(collectionId: number, queryIds: readonly string[]): Map<string, string> {
    const stmt = this.db.prepare(`SELECT text FROM queries WHERE collection_id = ? AND query_id = ?`);
    const out = new Map<string, string>();
    for (const q of queryIds) {
      const row = stmt.get(collectionId, q) as { text: string } | undefined;
      if (row) out.set(q, row.text);
    }
    return out;
  }

  // ---- embedding sets ----

  createEmbeddingSet(s: Pick<EmbeddingSetRow, 'collectionId' | 'modelKey' | 'modelName' | 'dimensions' | 'metric' | 'params'>): EmbeddingSetRow {
    const info = this.db
      .prepare(`INSERT INTO embedding_sets(collection_id, model_key, model_name, dimensions, metric, params, created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'building')`)
      .run(s.collectionId, s.modelKey, s.modelName, s.dimensions, s.metric, JSON.stringify(s.params), this.now().toISOString());
    return this.embeddingSet(Number(info.lastInsertRowid))!;
  }

  embeddingSet(id: number): EmbeddingSetRow | undefined {
    const r = this.db.prepare(`SELECT * FROM embedding_sets WHERE id = ?`).get(id) as RawSet | undefined;
    return r && toSet(r);
  }

  embeddingSetFor(collectionId: number, modelKey: string): EmbeddingSetRow | undefined {
    const r = this.db.prepare(`SELECT * FROM embedding_sets WHERE collection_id = ? AND model_key = ?`).get(collectionId, modelKey) as RawSet | undefined;
    return r && toSet(r);
  }

  embeddingSets(collectionId?: number): EmbeddingSetRow[] {
    const rows = (
      collectionId === undefined
        ? this.db.prepare(`SELECT * FROM embedding_sets ORDER BY id`).all()
        : this.db.prepare(`SELECT * FROM embedding_sets WHERE collection_id = ? ORDER BY id`).all(collectionId)
    ) as RawSet[];
    return rows.map(toSet);
  }

  setEmbeddingSetStatus(id: number, status: EmbeddingSetStatus, metric?: SetMetric): void {
    this.db.prepare(`UPDATE embedding_sets SET status = ?, metric = coalesce(?, metric) WHERE id = ?`).run(status, metric ?? null, id);
  }

  /** Merges `patch` into a set's params (the record of its latest build, e.g. how texts were fitted). */
  updateEmbeddingSetParams(id: number, patch: Record<string, unknown>): void {
    const set = this.embeddingSet(id);
    if (!set) return;
    this.db.prepare(`UPDATE embedding_sets SET params = ? WHERE id = ?`).run(JSON.stringify({ ...set.params, ...patch }), id);
  }

  deleteEmbeddingSet(id: number): boolean {
    return this.db.prepare(`DELETE FROM embedding_sets WHERE id = ?`).run(id).changes > 0;
  }

  // ---- runs ----

  /** Stores a run and all its results in one transaction (a run is never half written). */
  createRun(run: { collectionId: number; name: string; method: RunMethod; params: Record<string, unknown> }, results: readonly ResultRow[]): RunRow {
    const insertRun = this.db.prepare(`INSERT INTO retrieval_runs(collection_id, name, method, params, created_at) VALUES (?, ?, ?, ?, ?)`);
    const insertResult = this.db.prepare(`INSERT INTO retrieval_results(run_id, query_id, doc_id, rank, score) VALUES (?, ?, ?, ?, ?)`);
    const id = this.db.transaction(() => {
      const runId = Number(insertRun.run(run.collectionId, run.name, run.method, JSON.stringify(run.params), this.now().toISOString()).lastInsertRowid);
      for (const r of results) insertResult.run(runId, r.queryId, r.docId, r.rank, r.score);
      return runId;
    })();
    return this.run(id)!;
  }

  run(id: number): RunRow | undefined {
    const r = this.db.prepare(`${RUN_SELECT} WHERE r.id = ?`).get(id) as RawRun | undefined;
    return r && toRun(r);
  }

  runByName(collectionId: number, name: string): RunRow | undefined {
    const r = this.db.prepare(`${RUN_SELECT} WHERE r.collection_id = ? AND r.name = ?`).get(collectionId, name) as RawRun | undefined;
    return r && toRun(r);
  }

  runs(collectionId?: number): RunRow[] {
    const rows = (
      collectionId === undefined
        ? this.db.prepare(`${RUN_SELECT} ORDER BY r.id DESC`).all()
        : this.db.prepare(`${RUN_SELECT} WHERE r.collection_id = ? ORDER BY r.id DESC`).all(collectionId)
    ) as RawRun[];
    return rows.map(toRun);
  }

  /** `base`, or `base-2`, `base-3`, … — the first name not yet used in the collection. */
  freeRunName(collectionId: number, base: string): string {
    const taken = this.db.prepare(`SELECT 1 FROM retrieval_runs WHERE collection_id = ? AND name = ?`);
    if (!taken.get(collectionId, base)) return base;
    for (let i = 2; ; i++) if (!taken.get(collectionId, `${base}-${i}`)) return `${base}-${i}`;
  }

  deleteRun(id: number): boolean {
    return this.db.prepare(`DELETE FROM retrieval_runs WHERE id = ?`).run(id).changes > 0;
  }

  /** Results of a run, by query then rank; `perQuery` keeps each query's top ranks only. */
  results(runId: number, options: { queryId?: string; perQuery?: number } = {}): ResultRow[] {
    const where = ['run_id = ?'];
    const args: (string | number)[] = [runId];
    if (options.queryId !== undefined) {
      where.push('query_id = ?');
      args.push(options.queryId);
    }
    if (options.perQuery !== undefined) {
      where.push('rank <= ?');
      args.push(options.perQuery);
    }
    return this.db
      .prepare(`SELECT query_id AS queryId, doc_id AS docId, rank, score FROM retrieval_results WHERE ${where.join(' AND ')} ORDER BY query_id, rank`)
      .all(...args) as ResultRow[];
  }

  /** documents.title of the given doc ids in a collection (for result lists). */
  titles(collectionId: number, docIds: readonly string[]): Map<string, string> {
    const stmt = this.db.prepare(`SELECT title FROM documents WHERE collection_id = ? AND doc_id = ?`);
    const out = new Map<string, string>();
    for (const id of new Set(docIds)) {
      const row = stmt.get(collectionId, id) as { title: string } | undefined;
      if (row) out.set(id, row.title);
    }
    return out;
  }
}
