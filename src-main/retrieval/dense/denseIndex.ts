/**
 * Dense retrieval over one embedding set: the k documents of the collection most similar to a query
 * vector.
 *
 * - cosine over the whole collection: vec0 KNN (`embedding MATCH ? AND k = ?`), score = 1 − distance;
 * - dot product over the whole collection: exact scan of all stored vectors (vec0 has no dot
 *   metric), loaded once per index object;
 * - a query with candidates (LaMP profiles): exact cosine/dot over the candidates' vectors only.
 *
 * Vectors of documents no longer in the collection (deleted after embedding) are never returned.
 * Ties: score descending, doc id ascending.
 */
import type { Database } from 'better-sqlite3';
import { similarity, type Vector, type VectorMetric } from '../../core/retrieval/exactKnn';
import { topK } from '../../core/retrieval/ranking';
import { ensureSqliteVec } from './sqliteVec';
import { readVectors, vectorTableName, VEC0_MAX_K } from './vectorTable';

export interface DenseHit {
  documentId: number;
  /** Also `id`, for the core ranking helpers. */
  id: string;
  score: number;
}

export interface CandidateDoc {
  documentId: number;
  docId: string;
}

export class DenseIndex {
  private all: { documentId: number; id: string; vector: Float32Array }[] | undefined;

  constructor(
    private readonly db: Database,
    readonly setId: number,
    readonly collectionId: number,
    readonly dimensions: number,
  ) {
    ensureSqliteVec(db);
  }

  search(query: Vector, k: number, metric: VectorMetric, candidates?: readonly CandidateDoc[]): DenseHit[] {
    if (query.length !== this.dimensions) throw new RangeError(`query vector has ${query.length} dimensions; the embedding set has ${this.dimensions}`);
    if (k <= 0) return [];
    if (candidates) return this.searchCandidates(query, k, metric, candidates);
    if (metric === 'dot') return this.scanAll(query, k, metric);
    return this.knnCosine(query, k);
  }

  private searchCandidates(query: Vector, k: number, metric: VectorMetric, candidates: readonly CandidateDoc[]): DenseHit[] {
    const vectors = readVectors(this.db, this.setId, candidates.map((c) => c.documentId));
    const missing = candidates.filter((c) => !vectors.has(c.documentId));
    if (missing.length > 0) {
      throw new Error(`${missing.length} candidate document(s) have no vector in embedding set ${this.setId} (e.g. '${missing[0]!.docId}'); build the set first`);
    }
    return topK(
      candidates.map((c) => ({ documentId: c.documentId, id: c.docId, score: similarity(query, vectors.get(c.documentId)!, metric) })),
      k,
    );
  }

  private scanAll(query: Vector, k: number, metric: VectorMetric): DenseHit[] {
    this.all ??= this.loadAll();
    return topK(
      this.all.map((d) => ({ documentId: d.documentId, id: d.id, score: similarity(query, d.vector, metric) })),
      k,
    );
  }

  private loadAll() {
    const vectors = readVectors(this.db, this.setId);
    const docs = this.db.prepare(`SELECT id, doc_id AS docId FROM documents WHERE collection_id = ?`).all(this.collectionId) as { id: number; docId: string }[];
    return docs.filter((d) => vectors.has(d.id)).map((d) => ({ documentId: d.id, id: d.docId, vector: vectors.get(d.id)! }));
  }

  private knnCosine(query: Vector, k: number): DenseHit[] {
    const stmt = this.db.prepare(
      `SELECT v.id AS documentId, d.doc_id AS id, 1.0 - v.distance AS score
         FROM (SELECT id, distance FROM ${vectorTableName(this.setId)} WHERE embedding MATCH ? AND k = ?) v
         JOIN documents d ON d.id = v.id
        WHERE d.collection_id = ?`,
    );
    const q = Float32Array.from(query);
    // Over-fetch until k live documents are found (vectors of deleted documents take up places) and,
    // as vec0 cuts among equal distances arbitrarily, until the last row read scores below the k-th:
    // then every document tied with the k-th is among the rows, and topK keeps the one rank order's
    // k (docno descending among ties; issue 34 item 1).
    let stored: number | undefined;
    for (let fetch = k; ; fetch = Math.min(VEC0_MAX_K, fetch * 2)) {
      const rows = topK(stmt.all(q, fetch, this.collectionId) as DenseHit[]);
      if (fetch >= VEC0_MAX_K) return rows.slice(0, k);
      stored ??= (this.db.prepare(`SELECT count(*) AS n FROM ${vectorTableName(this.setId)}`).get() as { n: number }).n;
      if (stored <= fetch) return rows.slice(0, k);
      if (rows.length > k && rows[rows.length - 1]!.score < rows[k - 1]!.score) return rows.slice(0, k);
    }
  }
}
