/** Workspace settings: stored as JSON per key, validated by the contract's schema, defaults filled in. */
import type { Database } from 'better-sqlite3';
import { availableParallelism } from 'node:os';
import { Settings } from '../api/contract/app';
import { physicalCores } from '../engine/local/settings';

/** How many cores the machine has: logical CPUs this process may use, and physical cores among them. */
export interface CoreCounts {
  logical(): number;
  physical(): number;
}

const MACHINE_CORES: CoreCounts = { logical: availableParallelism, physical: physicalCores };

export const DEFAULT_SETTINGS: Settings = { theme: 'system', threads: 0, pageSize: 100 };

export class SettingsService {
  constructor(
    private readonly db: Database,
    private readonly cores: CoreCounts = MACHINE_CORES,
  ) {}

  get(): Settings {
    const rows = this.db.prepare(`SELECT key, value FROM settings`).all() as { key: string; value: string }[];
    const stored: Record<string, unknown> = {};
    for (const r of rows) {
      try {
        stored[r.key] = JSON.parse(r.value);
      } catch {
        // A hand-edited unreadable value falls back to its default.
      }
    }
    const merged = { ...DEFAULT_SETTINGS };
    for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[]) {
      const parsed = Settings.shape[key].safeParse(stored[key]);
      if (parsed.success) (merged as Record<string, unknown>)[key] = parsed.data;
    }
    return merged;
  }

  /**
   * Stores the given settings. A value equal to the stored one is not written again, and a patch
   * that changes nothing commits nothing: `fairground run --threads 1` on every run would otherwise
   * cost a synchronous commit (an fsync) each time.
   */
  update(patch: Partial<Settings>): Settings {
    const now = new Date().toISOString();
    const stored = this.db.prepare(`SELECT value FROM settings WHERE key = ?`).pluck();
    const changed = Object.entries(patch)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, JSON.stringify(value)] as const)
      .filter(([key, text]) => stored.get(key) !== text);
    if (changed.length > 0) {
      const put = this.db.prepare(`INSERT INTO settings(key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at`);
      this.db.transaction(() => {
        for (const [key, text] of changed) put.run(key, text, now);
      })();
    }
    return this.get();
  }

  /**
   * The thread count the user set for every model (`threads` > 0, never more than the logical
   * CPUs), or undefined for 0: each model's count then comes from measurement (issue 19).
   */
  explicitThreads(): number | undefined {
    const t = this.get().threads;
    return t > 0 ? Math.min(t, this.cores.logical()) : undefined;
  }

  /**
   * The llama.cpp thread count before any measurement: the setting, or for 0 the physical cores
   * (hyperthread siblings share a core's arithmetic units and only add barrier waits).
   */
  effectiveThreads(): number {
    return this.explicitThreads() ?? Math.max(1, Math.min(this.cores.physical(), this.cores.logical()));
  }
}
