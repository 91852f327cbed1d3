/**
 * What an import may change in a workspace, read through a separate connection: row counts of the
 * collection tables, each collection's stored and recomputed content hash and its source list, and
 * SQLite's integrity check. Two snapshots are equal iff a failed import left no trace.
 */
import Database from 'better-sqlite3';
import { loadVectorExtension } from '../../src-main/store/workspace';
import { computeContentHash } from '../../src-main/store/collectionHash';

export interface WorkspaceSnapshot {
  integrity: string;
  counts: Record<string, number>;
  collections: { name: string; stored: string; recomputed: string; sources: string }[];
}

const TABLES = ['collections', 'documents', 'queries', 'judgments'];

export function snapshotWorkspace(path: string): WorkspaceSnapshot {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    loadVectorExtension(db);
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
    const counts: Record<string, number> = {};
    for (const t of TABLES) counts[t] = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    // Staging tables are TEMP (per connection); a leftover real table would be a leak.
    counts.stagingTables = (db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'fg_stage%'`).get() as { n: number }).n;
    const rows = db.prepare(`SELECT id, name, content_hash, sources FROM collections ORDER BY name`).all() as { id: number; name: string; content_hash: string; sources: string }[];
    const collections = rows.map((r) => ({ name: r.name, stored: r.content_hash, recomputed: computeContentHash(db, r.id), sources: r.sources }));
    return { integrity, counts, collections };
  } finally {
    db.close();
  }
}
