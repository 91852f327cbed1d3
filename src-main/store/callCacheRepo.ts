/**
 * Stored LLM calls, keyed by the call's hash (see engine/callCache.ts). A row holds the full
 * request and response as JSON so a cached result can be audited and exported, not just reused.
 */
import type { Database } from 'better-sqlite3';

export type CachedOp = 'generate' | 'score' | 'embed';

export interface CallCacheEntry {
  key: string;
  modelKey: string;
  op: CachedOp;
  request: unknown;
  response: unknown;
  createdAt: string;
  durationMs: number;
}

interface Row {
  key: string;
  model_key: string;
  op: CachedOp;
  request: string;
  response: string;
  created_at: string;
  duration_ms: number;
}

export class CallCacheRepo {
  constructor(private readonly db: Database) {}

  get(key: string): CallCacheEntry | undefined {
    const r = this.db.prepare(`SELECT * FROM llm_call_cache WHERE key = ?`).get(key) as Row | undefined;
    if (!r) return undefined;
    return {
      key: r.key,
      modelKey: r.model_key,
      op: r.op,
      request: JSON.parse(r.request),
      response: JSON.parse(r.response),
      createdAt: r.created_at,
      durationMs: r.duration_ms,
    };
  }

  /** Store a call; a second put of the same key replaces it (same inputs, same output). */
  put(entry: Omit<CallCacheEntry, 'createdAt'> & { createdAt?: string }): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        entry.key,
        entry.modelKey,
        entry.op,
        JSON.stringify(entry.request),
        JSON.stringify(entry.response),
        entry.createdAt ?? new Date().toISOString(),
        entry.durationMs,
      );
  }

  /** Delete every stored call of one model; returns how many. */
  clearModel(modelKey: string): number {
    return this.db.prepare(`DELETE FROM llm_call_cache WHERE model_key = ?`).run(modelKey).changes;
  }

  count(modelKey?: string): number {
    const row = (
      modelKey === undefined
        ? this.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get()
        : this.db.prepare(`SELECT count(*) AS n FROM llm_call_cache WHERE model_key = ?`).get(modelKey)
    ) as { n: number };
    return row.n;
  }

  /** Stored calls per model and operation, with the engine time they saved when reused. */
  summary(): { modelKey: string; op: CachedOp; calls: number; totalDurationMs: number }[] {
    return (
      this.db
        .prepare(`SELECT model_key, op, count(*) AS calls, sum(duration_ms) AS total FROM llm_call_cache GROUP BY model_key, op ORDER BY model_key, op`)
        .all() as { model_key: string; op: CachedOp; calls: number; total: number }[]
    ).map((r) => ({ modelKey: r.model_key, op: r.op, calls: r.calls, totalDurationMs: r.total }));
  }
}
