/**
 * What `fairground cache merge` checks about a source workspace before reading a row of it
 * (issue 24 item 7): a Fairground workspace (its application id), a schema this Fairground knows,
 * undamaged (what `fairground workspace check` finds: quick_check and foreign keys), and call-cache
 * rows that are JSON. Opened read-only; the file is never modified.
 */
import Database from 'better-sqlite3';
import { DataError } from '../core/errors';
import { chooseNativeBinding } from './nativeBinding';
import { APPLICATION_ID, latestSchemaVersion } from './workspace';

export function checkMergeSource(file: string): void {
  let db: Database.Database;
  try {
    const nativeBinding = chooseNativeBinding();
    db = new Database(file, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  } catch (err) {
    throw new DataError(`cannot be opened: ${(err as Error).message}`, { file });
  }
  try {
    let appId: number;
    let version: number;
    try {
      appId = db.pragma('application_id', { simple: true }) as number;
      version = db.pragma('user_version', { simple: true }) as number;
      db.prepare(`SELECT count(*) FROM sqlite_master`).get();
    } catch (err) {
      throw new DataError(`not a readable SQLite file (${(err as Error).message.replace(/\s+/g, ' ')}): nothing was merged`, { file });
    }
    if (appId !== APPLICATION_ID) throw new DataError('not a Fairground workspace (another program\'s SQLite file, or none): nothing was merged', { file });
    const latest = latestSchemaVersion();
    if (version > latest) throw new DataError(`written by a newer Fairground (schema version ${version}; this one knows up to ${latest}): nothing was merged; merge with that version`, { file });
    const problems: string[] = [];
    try {
      for (const r of db.pragma('quick_check(5)') as { quick_check: string }[]) if (r.quick_check !== 'ok') problems.push(r.quick_check);
      for (const f of db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[]) problems.push(`${f.table} row ${f.rowid} points to a missing ${f.parent}`);
    } catch (err) {
      problems.push((err as Error).message);
    }
    if (problems.length > 0) {
      throw new DataError(`is damaged (${problems.slice(0, 3).join('; ').replace(/\s+/g, ' ')}${problems.length > 3 ? `; ${problems.length - 3} more` : ''}): nothing was merged; 'fairground workspace check' lists the damage`, { file });
    }
    const hasCache = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'llm_call_cache'`).get();
    if (!hasCache) return;
    const bad = db.prepare(`SELECT key FROM llm_call_cache WHERE json_valid(request) = 0 OR json_valid(response) = 0 ORDER BY key LIMIT 21`).all() as { key: string }[];
    if (bad.length > 0) {
      const shown = bad.slice(0, 20).map((b) => b.key);
      throw new DataError(`call cache row(s) whose request or response is not valid JSON: ${shown.join(', ')}${bad.length > 20 ? ', and more' : ''}; nothing was merged`, { file, field: 'llm_call_cache' });
    }
  } finally {
    db.close();
  }
}
