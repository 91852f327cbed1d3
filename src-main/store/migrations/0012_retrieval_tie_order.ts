import { compareRankOrder } from '../../core/ir/rankOrder';
import type { Migration } from '../migration';

interface StoredResult {
  query_id: string;
  doc_id: string;
  rank: number;
  score: number;
}

/**
 * One rank order everywhere (issue 34 item 1). Runs stored before it ranked equal scores by doc id
 * ascending (RRF: first-seen), while their TREC export and evaluation read docno descending
 * (trec_eval). Each stored query's results are re-ranked into the one order (score descending,
 * docno descending byte-wise: core/ir/rankOrder.ts), so stored = exported = evaluated = the
 * candidates taken from the run. A run whose order changed is flagged in `params.tieNote`, which
 * also names the queries that end in a tie at the run's depth k: the documents of that tie beyond k
 * were never stored, so a fresh run may keep others. Every run gets `params.tieOrder`.
 */
export const migration0012: Migration = {
  version: 12,
  name: 'retrieval_tie_order',
  up(db) {
    const runs = db.prepare(`SELECT id, params FROM retrieval_runs ORDER BY id`).all() as { id: number; params: string }[];
    const results = db.prepare(`SELECT query_id, doc_id, rank, score FROM retrieval_results WHERE run_id = ? ORDER BY query_id, rank`);
    const del = db.prepare(`DELETE FROM retrieval_results WHERE run_id = ? AND query_id = ?`);
    const ins = db.prepare(`INSERT INTO retrieval_results(run_id, query_id, doc_id, rank, score) VALUES (?, ?, ?, ?, ?)`);
    const setParams = db.prepare(`UPDATE retrieval_runs SET params = ? WHERE id = ?`);
    for (const run of runs) {
      let params: Record<string, unknown>;
      try {
        const parsed = JSON.parse(run.params) as unknown;
        params = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
      } catch {
        params = {};
      }
      const depth = typeof params.k === 'number' ? params.k : undefined;
      const byQuery = new Map<string, StoredResult[]>();
      for (const r of results.all(run.id) as StoredResult[]) {
        let list = byQuery.get(r.query_id);
        if (!list) byQuery.set(r.query_id, (list = []));
        list.push(r);
      }
      let reordered = 0;
      let cutInTie = 0;
      for (const [queryId, list] of byQuery) {
        const sorted = list.slice().sort((a, b) => compareRankOrder(a.score, a.doc_id, b.score, b.doc_id));
        const n = sorted.length;
        if (depth !== undefined && n === depth && n >= 2 && sorted[n - 1]!.score === sorted[n - 2]!.score) cutInTie++;
        if (sorted.every((r, i) => r === list[i])) continue;
        reordered++;
        del.run(run.id, queryId);
        sorted.forEach((r, i) => ins.run(run.id, queryId, r.doc_id, i + 1, r.score));
      }
      const notes: string[] = [];
      if (reordered > 0) {
        notes.push(
          `re-ranked on open (migration 12): ${reordered} of ${byQuery.size} queries had equal scores stored in another order (doc id ascending, or RRF first-seen); they now follow trec_eval's order (docno descending), as the export and the evaluation always did`,
        );
      }
      if (reordered > 0 && cutInTie > 0) {
        notes.push(`${cutInTie} queries end in a tie at depth k = ${depth}: a fresh run may keep other documents of that tie`);
      }
      const next = { ...params, tieOrder: 'trec_eval', ...(notes.length > 0 ? { tieNote: notes.join('; ') } : {}) };
      setParams.run(JSON.stringify(next), run.id);
    }
  },
};
