/**
 * The vec0 table of one embedding set: `vec_<setId>(id integer primary key, embedding
 * float[dims] distance_metric=cosine, +text_hash text)`.
 *
 * - `id` is documents.id. vec0 refuses a JS number as primary key (it binds as REAL), so ids are
 *   always bound as BigInt.
 * - `embedding` is stored as given (not normalised), so both cosine (vec0 KNN, distance = 1 − cos)
 *   and dot product (exact scan here, vec0 has no dot metric) can be computed from it.
 * - `text_hash` (an auxiliary column) is the SHA-256 of the exact text that was embedded: a
 *   document whose text changed, or a reused documents.id, is detected and re-embedded.
 *
 * Vectors are float32: sqlite-vec's cosine distance is computed in float32, so it agrees with an
 * exact double-precision cosine to about 1e-6, not to the last bit.
 */
import type { Database } from 'better-sqlite3';
import { ensureSqliteVec } from './sqliteVec';

export function vectorTableName(setId: number): string {
  if (!Number.isSafeInteger(setId) || setId < 1) throw new RangeError(`bad embedding set id ${setId}`);
  return `vec_${setId}`;
}

/** Creates the set's table (dropping any leftover of the same name first). */
export function createVectorTable(db: Database, setId: number, dimensions: number): void {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192) throw new RangeError(`bad embedding dimensions ${dimensions}`);
  ensureSqliteVec(db);
  const name = vectorTableName(setId);
  db.exec(`DROP TABLE IF EXISTS ${name}`);
  db.exec(`CREATE VIRTUAL TABLE ${name} USING vec0(id integer primary key, embedding float[${dimensions}] distance_metric=cosine, +text_hash text)`);
}

export function vectorTableExists(db: Database, setId: number): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(vectorTableName(setId)) !== undefined;
}

export function dropVectorTable(db: Database, setId: number): void {
  ensureSqliteVec(db);
  db.exec(`DROP TABLE IF EXISTS ${vectorTableName(setId)}`);
}

/**
 * Drops `vec_<n>` tables whose set no longer exists (a collection deleted with ON DELETE CASCADE
 * removes its `embedding_sets` rows but cannot drop their virtual tables). Returns the ids dropped.
 */
export function dropOrphanVectorTables(db: Database, liveSetIds: ReadonlySet<number>): number[] {
  const rows = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'vec_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'`).all() as { name: string }[];
  const dropped: number[] = [];
  for (const { name } of rows) {
    const m = /^vec_([0-9]+)$/.exec(name);
    if (!m) continue;
    const id = Number(m[1]);
    if (liveSetIds.has(id)) continue;
    dropVectorTable(db, id);
    dropped.push(id);
  }
  return dropped;
}

export interface StoredVector {
  documentId: number;
  vector: Float32Array;
  textHash: string;
}

export function insertVectors(db: Database, setId: number, rows: readonly StoredVector[]): void {
  ensureSqliteVec(db);
  const name = vectorTableName(setId);
  const del = db.prepare(`DELETE FROM ${name} WHERE id = ?`);
  const ins = db.prepare(`INSERT INTO ${name}(id, embedding, text_hash) VALUES (?, ?, ?)`);
  db.transaction(() => {
    for (const r of rows) {
      const id = BigInt(r.documentId);
      del.run(id);
      ins.run(id, r.vector, r.textHash);
    }
  })();
}

/** documents.id → text hash of every stored vector. */
export function storedTextHashes(db: Database, setId: number): Map<number, string> {
  ensureSqliteVec(db);
  const rows = db.prepare(`SELECT id, text_hash AS textHash FROM ${vectorTableName(setId)}`).all() as { id: number; textHash: string }[];
  return new Map(rows.map((r) => [r.id, r.textHash]));
}

export function deleteVectors(db: Database, setId: number, documentIds: readonly number[]): void {
  ensureSqliteVec(db);
  const del = db.prepare(`DELETE FROM ${vectorTableName(setId)} WHERE id = ?`);
  db.transaction(() => {
    for (const id of documentIds) del.run(BigInt(id));
  })();
}

export function countVectors(db: Database, setId: number): number {
  ensureSqliteVec(db);
  return (db.prepare(`SELECT count(*) AS n FROM ${vectorTableName(setId)}`).get() as { n: number }).n;
}

function toFloat32(blob: Buffer): Float32Array {
  // Copy: the Buffer may not be 4-byte aligned within its backing store.
  const bytes = new Uint8Array(blob.byteLength);
  bytes.set(blob);
  return new Float32Array(bytes.buffer);
}

/** Stored vectors of the given documents (all when `documentIds` is undefined). */
export function readVectors(db: Database, setId: number, documentIds?: readonly number[]): Map<number, Float32Array> {
  ensureSqliteVec(db);
  const name = vectorTableName(setId);
  const out = new Map<number, Float32Array>();
  if (documentIds === undefined) {
    for (const r of db.prepare(`SELECT id, embedding FROM ${name}`).iterate() as Iterable<{ id: number; embedding: Buffer }>) out.set(r.id, toFloat32(r.embedding));
    return out;
  }
  const one = db.prepare(`SELECT embedding FROM ${name} WHERE id = ?`);
  for (const id of documentIds) {
    const r = one.get(BigInt(id)) as { embedding: Buffer } | undefined;
    if (r) out.set(id, toFloat32(r.embedding));
  }
  return out;
}

export interface VectorNeighbour {
  documentId: number;
  /** vec0 cosine distance, 1 − cos. */
  distance: number;
}

/** sqlite-vec's largest k for a KNN query. */
export const VEC0_MAX_K = 4096;

/** The k nearest stored vectors by cosine distance (vec0 KNN; exact, brute force inside sqlite-vec). */
export function knnCosine(db: Database, setId: number, query: Float32Array, k: number): VectorNeighbour[] {
  ensureSqliteVec(db);
  if (k <= 0) return [];
  const kk = Math.min(k, VEC0_MAX_K);
  return db
    .prepare(`SELECT id AS documentId, distance FROM ${vectorTableName(setId)} WHERE embedding MATCH ? AND k = ? ORDER BY distance`)
    .all(query, kk) as VectorNeighbour[];
}
