/**
 * Thread-count tunings per model and machine (migration 0010). The JSON is what the engine measured
 * (engine/local/threadTuning.ts `ThreadTuning`); a row that no longer parses reads as absent, so a
 * damaged row means "tune again", never a failed load.
 */
import type { Database } from 'better-sqlite3';

export interface StoredTuning {
  threads: number;
  machine: string;
  tunedAt: string;
}

export class ThreadTuningRepo {
  constructor(private readonly db: Database) {}

  /** The stored JSON as written (the caller knows its shape), if it parses and names a thread count. */
  get<T extends StoredTuning = StoredTuning>(modelId: number, machine: string): T | undefined {
    const row = this.db.prepare(`SELECT result FROM model_tuning WHERE model_id=? AND machine=?`).get(modelId, machine) as { result: string } | undefined;
    if (!row) return undefined;
    try {
      const parsed = JSON.parse(row.result) as T;
      return Number.isInteger(parsed.threads) && parsed.threads >= 1 ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  put(modelId: number, tuning: StoredTuning): void {
    this.db
      .prepare(
        `INSERT INTO model_tuning(model_id, machine, threads, result, tuned_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(model_id, machine) DO UPDATE SET threads=excluded.threads, result=excluded.result, tuned_at=excluded.tuned_at`,
      )
      .run(modelId, tuning.machine, tuning.threads, JSON.stringify(tuning), tuning.tunedAt);
  }

  clear(modelId: number): number {
    return this.db.prepare(`DELETE FROM model_tuning WHERE model_id=?`).run(modelId).changes;
  }
}
