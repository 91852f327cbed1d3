/** Facts about the open workspace, and its integrity check as a cancellable background job. */
import { statSync } from 'node:fs';
import type { Workspace } from '../store/workspace';
import { latestSchemaVersion } from '../store/workspace';
import type { JobContext } from './jobRunner';
import { computeContentHash } from '../store/collectionHash';

export class WorkspaceService {
  constructor(private readonly workspace: Workspace) {}

  info() {
    const db = this.workspace.db;
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
      .all() as { name: string }[];
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      if (!/^[A-Za-z0-9_]+$/.test(name) || name.includes('_fts_') || name.includes('_vec_')) continue;
      counts[name] = (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
    }
    let sizeBytes = 0;
    if (this.workspace.path !== ':memory:') {
      for (const suffix of ['', '-wal']) {
        try {
          sizeBytes += statSync(this.workspace.path + suffix).size;
        } catch {
          // no WAL file right now
        }
      }
    }
    return { path: this.workspace.path, schemaVersion: this.workspace.schemaVersion, latestSchemaVersion: latestSchemaVersion(), sizeBytes, counts };
  }

  /**
   * `PRAGMA integrity_check` on the whole file, then a quick per-table scan with progress.
   * Returns the problems found (empty when healthy).
   */
  async check(ctx: JobContext, full: boolean): Promise<{ ok: boolean; problems: string[]; tables: number }> {
    const db = this.workspace.db;
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((t) => t.name);
    const total = tables.length + 2;
    ctx.progress(0, total, 'checking file structure');
    const problems: string[] = [];
    // The pragmas themselves throw on some damage (a virtual table that cannot connect): report it.
    try {
      const rows = db.pragma(full ? 'integrity_check' : 'quick_check') as { integrity_check?: string; quick_check?: string }[];
      for (const r of rows) {
        const v = r.integrity_check ?? r.quick_check;
        if (v && v !== 'ok') problems.push(v);
      }
    } catch (err) {
      problems.push(`the integrity check stopped: ${(err as Error).message}`);
    }
    ctx.progress(1, total, 'checking foreign keys');
    try {
      const fk = db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[];
      for (const f of fk) problems.push(`${f.table} row ${f.rowid} points to a missing ${f.parent}`);
    } catch (err) {
      problems.push(`the foreign key check stopped: ${(err as Error).message}`);
    }
    for (let i = 0; i < tables.length; i++) {
      ctx.throwIfCancelled();
      // Yield to the event loop so cancellation and other requests get through.
      await new Promise((r) => setImmediate(r));
      const name = tables[i]!;
      // A damaged table is a finding of the check, not a failure of it.
      try {
        if (/^[A-Za-z0-9_]+$/.test(name)) db.prepare(`SELECT count(*) FROM "${name}"`).get();
      } catch (err) {
        problems.push(`table ${name} cannot be read: ${(err as Error).message}`);
      }
      ctx.progress(i + 2, total, `scanned ${name}`);
    }
    // Call-cache rows a run would read: each must be JSON (a merge from a damaged file could bring one that is not).
    if (tables.includes('llm_call_cache')) {
      try {
        const bad = db.prepare(`SELECT key FROM llm_call_cache WHERE json_valid(request) = 0 OR json_valid(response) = 0 LIMIT 20`).all() as { key: string }[];
        for (const b of bad) problems.push(`call cache row ${b.key}: its request or response is not valid JSON`);
      } catch (err) {
        problems.push(`the call cache cannot be read: ${(err as Error).message}`);
      }
    }
    // Each collection's content hash (what manifests cite) must still describe its rows (issue 15 item 2).
    if (tables.includes('collections')) {
      try {
        for (const c of db.prepare(`SELECT id, name, content_hash FROM collections ORDER BY name`).all() as { id: number; name: string; content_hash: string }[]) {
          ctx.throwIfCancelled();
          await new Promise((r) => setImmediate(r));
          try {
            const actual = computeContentHash(db, c.id);
            if (actual !== c.content_hash) {
              problems.push(`collection '${c.name}': its rows no longer match its content hash (stored ${c.content_hash.slice(0, 12) || '(none)'}…, computed ${actual.slice(0, 12)}…)`);
            }
          } catch (err) {
            problems.push(`collection '${c.name}': its content hash cannot be computed: ${(err as Error).message}`);
          }
        }
      } catch (err) {
        problems.push(`the collections cannot be listed: ${(err as Error).message}`);
      }
    }
    ctx.progress(total, total, problems.length ? `${problems.length} problem(s)` : 'workspace is healthy');
    return { ok: problems.length === 0, problems, tables: tables.length };
  }
}
