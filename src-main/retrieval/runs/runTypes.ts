/** What every retrieval run produces: per query, a ranking of doc ids with scores, best first. */
import type { ScoredId } from '../../core/retrieval/ranking';

/** queryId → ranking (best first). Queries with nothing retrieved are absent. */
export type RunRankings = Map<string, ScoredId[]>;

export interface RunProgress {
  signal?: AbortSignal;
  /** Queries done of all. */
  onProgress?(done: number, total: number): void;
}

/** Give the event loop a turn (progress events, cancel requests, other API calls). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Rows for `retrieval_results`: ranks 1..n per query in ranking order. */
export function toResultRows(rankings: RunRankings): { queryId: string; docId: string; rank: number; score: number }[] {
  const rows: { queryId: string; docId: string; rank: number; score: number }[] = [];
  for (const [queryId, ranking] of rankings) {
    ranking.forEach((hit, i) => {
      if (!Number.isFinite(hit.score)) throw new Error(`query '${queryId}': non-finite score for '${hit.id}'`);
      rows.push({ queryId, docId: hit.id, rank: i + 1, score: hit.score });
    });
  }
  return rows;
}
