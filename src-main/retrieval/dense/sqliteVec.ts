/** Loading the sqlite-vec extension into a connection, once. */
import type { Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';

const loaded = new WeakSet<Database>();

/**
 * Load sqlite-vec (vec0 virtual tables, vec_* functions) into `db` if it is not there yet. Every
 * connection that touches a `vec_<id>` table needs it, even to drop or count one.
 */
export function ensureSqliteVec(db: Database): void {
  if (loaded.has(db)) return;
  try {
    db.prepare('SELECT vec_version()').get();
  } catch {
    sqliteVec.load(db);
  }
  loaded.add(db);
}
