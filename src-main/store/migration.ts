import type { Database } from 'better-sqlite3';

/** One numbered schema change. Applied once, in order, inside a transaction, never edited after release. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
