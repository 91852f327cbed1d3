/**
 * The content hash of a collection: SHA-256 (hex) over a canonical serialisation of everything in
 * it except names, descriptions, sources and timestamps:
 *
 *   fairground-collection-v1\n
 *   D<TAB>[doc_id, title, text, attrs]\n                                        by doc_id
 *   Q<TAB>[query_id, text, answers, task, metric, subaspects, candidates, attrs]\n  by query_id
 *   J<TAB>[query_id, doc_id, kind, label, source, provenance]\n                  by query_id, doc_id, kind
 *
 * Each bracket is a JSON array with the JSON columns embedded as values (they are stored in
 * canonical form: sorted keys, no whitespace). Ordering is SQLite's BINARY collation, i.e. UTF-8
 * byte order, the same on every platform. Importing the same content again — in any order, from
 * any file format — gives the same hash; a changed label (also a manual override) changes it.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';

export const CONTENT_HASH_VERSION = 'fairground-collection-v1';

export function computeContentHash(db: Database, collectionId: number): string {
  const h = createHash('sha256');
  h.update(`${CONTENT_HASH_VERSION}\n`);
  const docs = db.prepare(`SELECT doc_id, title, text, attrs FROM documents WHERE collection_id = ? ORDER BY doc_id`).raw(true);
  for (const [id, title, text, attrs] of docs.iterate(collectionId) as Iterable<[string, string, string, string]>) {
    h.update(`D\t[${JSON.stringify(id)},${JSON.stringify(title)},${JSON.stringify(text)},${attrs}]\n`);
  }
  const queries = db
    .prepare(`SELECT query_id, text, answers, task, metric, subaspects, candidates, attrs FROM queries WHERE collection_id = ? ORDER BY query_id`)
    .raw(true);
  for (const [id, text, answers, task, metric, sub, cand, attrs] of queries.iterate(collectionId) as Iterable<
    [string, string, string, string | null, string | null, string | null, string | null, string]
  >) {
    h.update(`Q\t[${JSON.stringify(id)},${JSON.stringify(text)},${answers},${JSON.stringify(task)},${JSON.stringify(metric)},${sub ?? 'null'},${cand ?? 'null'},${attrs}]\n`);
  }
  const judgments = db
    .prepare(`SELECT query_id, doc_id, kind, label, source, provenance FROM judgments WHERE collection_id = ? ORDER BY query_id, doc_id, kind`)
    .raw(true);
  for (const [q, d, kind, label, source, prov] of judgments.iterate(collectionId) as Iterable<[string, string, string, number, string, string]>) {
    h.update(`J\t[${JSON.stringify(q)},${JSON.stringify(d)},${JSON.stringify(kind)},${JSON.stringify(label)},${JSON.stringify(source)},${prov}]\n`);
  }
  return h.digest('hex');
}
