/** Loading the sqlite-vec extension into a connection, once. */
import type { Database } from 'better-sqlite3';
import { sqliteVecPath } from '../../store/sqliteVecPath';

const loaded = new WeakSet<Database>();

/**
 * Load sqlite-vec (vec0 virtual tables, vec_* functions) into `db` if it is not there yet. Every
 * connection that touches a `vec_<id>` table needs it, even to drop or count one. Loaded from
 * app.asar.unpacked in the packaged app (store/sqliteVecPath.ts).
 */
export function ensureSqliteVec(db: Database): void {
  if (loaded.has(db)) return;
  try {
    db.prepare('SELECT vec_version()').get();
  } catch {
    db.loadExtension(sqliteVecPath());
  }
  loaded.add(db);
}
