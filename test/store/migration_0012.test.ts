import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src-main/store/migrations';
import { migration0012 } from '../../src-main/store/migrations/0012_retrieval_tie_order';

/** A workspace of schema 10 (before the one rank order), with hand-written runs. */
function olderWorkspace(): Database.Database {
  const db = new Database(':memory:');
  for (const m of migrations) if (m.version < 12) m.up(db);
  db.prepare(`INSERT INTO collections(id, name, content_hash, created_at) VALUES (1, 'c', '', 'now')`).run();
  const run = db.prepare(`INSERT INTO retrieval_runs(id, collection_id, name, method, params, created_at) VALUES (?, 1, ?, 'bm25', ?, 'now')`);
  const res = db.prepare(`INSERT INTO retrieval_results(run_id, query_id, doc_id, rank, score) VALUES (?, ?, ?, ?, ?)`);
  // Run 1 (k = 3), stored by the old rule (equal scores by doc id ascending):
  //   q1: d10 2, d2 1, d9 1   → trec_eval reads d10, d9, d2 (byte-wise "d9" > "d2")
  //   q2: a 1, b 1, c 1       → c, b, a (q1 and q2 end in a tie at depth 3)
  //   q3: x 3, y 2            → unchanged
  run.run(1, 'old', JSON.stringify({ k: 3 }));
  for (const [q, d, r, s] of [
    ['q1', 'd10', 1, 2],
    ['q1', 'd2', 2, 1],
    ['q1', 'd9', 3, 1],
    ['q2', 'a', 1, 1],
    ['q2', 'b', 2, 1],
    ['q2', 'c', 3, 1],
    ['q3', 'x', 1, 3],
    ['q3', 'y', 2, 2],
  ] as const)
    res.run(1, q, d, r, s);
  // Run 2: already in trec_eval's order.
  run.run(2, 'fine', JSON.stringify({ k: 10 }));
  res.run(2, 'q1', 'b', 1, 1);
  res.run(2, 'q1', 'a', 2, 1);
  return db;
}

describe('migration 0012 retrieval tie order', () => {
  it("re-ranks runs stored with another tie order into trec_eval's, flags them, and leaves ordered runs' results alone", () => {
    const db = olderWorkspace();
    migration0012.up(db);
    const order = (run: number, q: string) =>
      (db.prepare(`SELECT doc_id, rank FROM retrieval_results WHERE run_id = ? AND query_id = ? ORDER BY rank`).all(run, q) as { doc_id: string; rank: number }[]).map((r) => `${r.rank}:${r.doc_id}`);
    expect(order(1, 'q1')).toEqual(['1:d10', '2:d9', '3:d2']);
    expect(order(1, 'q2')).toEqual(['1:c', '2:b', '3:a']);
    expect(order(1, 'q3')).toEqual(['1:x', '2:y']);
    expect(order(2, 'q1')).toEqual(['1:b', '2:a']);
    const params = (id: number) => JSON.parse((db.prepare(`SELECT params FROM retrieval_runs WHERE id = ?`).get(id) as { params: string }).params) as Record<string, unknown>;
    expect(params(1)).toMatchObject({ k: 3, tieOrder: 'trec_eval' });
    expect(params(1).tieNote).toBe(
      "re-ranked on open (migration 12): 2 of 3 queries had equal scores stored in another order (doc id ascending, or RRF first-seen); they now follow trec_eval's order (docno descending), as the export and the evaluation always did; 2 queries end in a tie at depth k = 3: a fresh run may keep other documents of that tie",
    );
    expect(params(2)).toEqual({ k: 10, tieOrder: 'trec_eval' });
    // The scores are kept.
    expect(db.prepare(`SELECT score FROM retrieval_results WHERE run_id = 1 AND doc_id = 'd10'`).get()).toEqual({ score: 2 });
  });
});
