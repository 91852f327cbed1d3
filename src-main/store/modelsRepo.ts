/**
 * The model library: GGUF files the researcher added, with what their header says, their SHA-256
 * (the identity the call cache and manifests use) and the engine settings chosen for each.
 */
import type { Database } from 'better-sqlite3';
import { DataError } from '../core/errors';

export type ModelStatus = 'pending' | 'ready' | 'failed' | 'missing';

export interface ModelRecord {
  id: number;
  name: string;
  path: string;
  size: number;
  /** Null until the file has been hashed. */
  sha256: string | null;
  metadata: Record<string, unknown>;
  settings: Record<string, unknown>;
  status: ModelStatus;
  error: string | null;
  addedAt: string;
}

export interface NewModel {
  name: string;
  path: string;
  size: number;
  sha256?: string | null;
  metadata?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  status?: ModelStatus;
}

interface Row {
  id: number;
  name: string;
  path: string;
  size: number;
  sha256: string | null;
  metadata: string;
  settings: string;
  status: ModelStatus;
  error: string | null;
  added_at: string;
}

const fromRow = (r: Row): ModelRecord => ({
  id: r.id,
  name: r.name,
  path: r.path,
  size: r.size,
  sha256: r.sha256,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  settings: JSON.parse(r.settings) as Record<string, unknown>,
  status: r.status,
  error: r.error,
  addedAt: r.added_at,
});

export class ModelsRepo {
  constructor(private readonly db: Database) {}

  add(model: NewModel, now: Date = new Date()): ModelRecord {
    if (this.getByName(model.name)) throw new DataError(`a model named '${model.name}' is already in the library`, { field: 'name' });
    const status = model.status ?? (model.sha256 ? 'ready' : 'pending');
    const info = this.db
      .prepare(
        `INSERT INTO models(name, path, size, sha256, metadata, settings, status, added_at)
         VALUES (@name, @path, @size, @sha256, @metadata, @settings, @status, @addedAt)`,
      )
      .run({
        name: model.name,
        path: model.path,
        size: model.size,
        sha256: model.sha256 ?? null,
        metadata: JSON.stringify(model.metadata ?? {}),
        settings: JSON.stringify(model.settings ?? {}),
        status,
        addedAt: now.toISOString(),
      });
    return this.get(Number(info.lastInsertRowid)) as ModelRecord;
  }

  get(id: number): ModelRecord | undefined {
    const row = this.db.prepare(`SELECT * FROM models WHERE id = ?`).get(id) as Row | undefined;
    return row && fromRow(row);
  }

  getByName(name: string): ModelRecord | undefined {
    const row = this.db.prepare(`SELECT * FROM models WHERE name = ?`).get(name) as Row | undefined;
    return row && fromRow(row);
  }

  list(): ModelRecord[] {
    return (this.db.prepare(`SELECT * FROM models ORDER BY name`).all() as Row[]).map(fromRow);
  }

  /** Record the file's hash; a pending model becomes ready. */
  setHash(id: number, sha256: string): void {
    this.db.prepare(`UPDATE models SET sha256 = ?, status = CASE status WHEN 'pending' THEN 'ready' ELSE status END WHERE id = ?`).run(sha256, id);
  }

  setStatus(id: number, status: ModelStatus, error: string | null = null): void {
    this.db.prepare(`UPDATE models SET status = ?, error = ? WHERE id = ?`).run(status, error, id);
  }

  setSettings(id: number, settings: Record<string, unknown>): void {
    this.db.prepare(`UPDATE models SET settings = ? WHERE id = ?`).run(JSON.stringify(settings), id);
  }

  /** Forget a model (the file stays where it is). Returns whether it existed. */
  remove(id: number): boolean {
    return this.db.prepare(`DELETE FROM models WHERE id = ?`).run(id).changes > 0;
  }
}
