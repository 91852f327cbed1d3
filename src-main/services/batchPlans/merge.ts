/**
 * Batch plans, job 4 (see index.ts): merge — other workspaces' call caches (shards): the same key with
 * another response is an error naming the key; nothing is written unless everything merges.
 */
import type { Database } from 'better-sqlite3';
import { DataError } from '../../core/errors';
import { checkMergeSource } from '../../store/mergeSource';
import { sameJson } from './importEvidence';

/**
 * Merge other workspaces' call caches into this one. Each source is checked first and refused
 * whole, naming it: not a Fairground workspace, a newer schema than this Fairground knows, damaged
 * (what `fairground workspace check` finds: quick_check, foreign keys), or cache rows that are not
 * valid JSON (named by key). Calls with another answer here are listed, every one of them, and
 * nothing of that source is merged.
 */
export function mergeCaches(db: Database, files: readonly string[]): { added: number; alreadyHere: number } {
  let added = 0;
  let alreadyHere = 0;
  for (const file of files) checkMergeSource(file);
  for (const file of files) {
    db.prepare(`ATTACH DATABASE ? AS other`).run(file);
    try {
      const isWorkspace = db.prepare(`SELECT 1 FROM other.sqlite_master WHERE type = 'table' AND name = 'llm_call_cache'`).get();
      if (!isWorkspace) throw new DataError('not a Fairground workspace (no call cache)', { file });
      const columns = (db.prepare(`SELECT name FROM pragma_table_info('llm_call_cache', 'other')`).all() as { name: string }[]).map((c) => c.name);
      if (!columns.includes('computations')) throw new DataError('written by an older Fairground: open it once with this version (fairground workspace migrate) before merging', { file });
      // In SQL, one transaction: every disagreeing call is named and nothing is written if there is one.
      db.transaction(() => {
        const conflicts = (
          db.prepare(`SELECT o.key AS key, o.response AS theirs, m.response AS ours FROM other.llm_call_cache o JOIN main.llm_call_cache m ON m.key = o.key WHERE m.response <> o.response`).all() as {
            key: string;
            theirs: string;
            ours: string;
          }[]
        ).filter((c) => !sameJson(c.theirs, c.ours));
        if (conflicts.length > 0) {
          const shown = conflicts.slice(0, 20).map((c) => c.key);
          throw new DataError(
            `${shown.map((k) => `call ${k} has a different response here than in this file`).join('; ')}${conflicts.length > shown.length ? `; and ${conflicts.length - shown.length} more call(s)` : ''}: the caches disagree on ${conflicts.length} call(s) (a nondeterministic engine, or different weights behind one model name); nothing of this file was merged`,
            { file, field: 'llm_call_cache' },
          );
        }
        alreadyHere += (db.prepare(`SELECT count(*) AS n FROM other.llm_call_cache o JOIN main.llm_call_cache m ON m.key = o.key`).get() as { n: number }).n;
        added += db
          .prepare(
            `INSERT INTO main.llm_call_cache(key, model_key, op, request, response, created_at, duration_ms, computations, served_by)
             SELECT key, model_key, op, request, response, created_at, duration_ms, computations, served_by FROM other.llm_call_cache o
             WHERE NOT EXISTS (SELECT 1 FROM main.llm_call_cache m WHERE m.key = o.key)`,
          )
          .run().changes;
      })();
    } finally {
      db.prepare(`DETACH DATABASE other`).run();
    }
  }
  return { added, alreadyHere };
}
